import ArgumentParsing
import AssetPackFormat
import AssetPackMigration
import Foundation

/// `assetpack convert vdf`.
struct ConvertVDFCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "vdf",
            abstract: "Convert a Steam depot or app build script into asset-pack manifests.",
            discussion: """
            Reads a Steam depot build script (DepotBuildConfig) or an app build script (AppBuild with
            Depots). A single depot's manifest goes to -o or standard output; an app build gives one
            manifest per depot, named ID-DEPOTID.json, in the folder -o names. Give exactly one of
            --essential, --prefetch, --on-demand.

            \(ConvertCommand.sourceRootNote)
            """)
    }

    @Argument("DEPOT.vdf")
    var scriptPath: String
    @Option("-o", "--output", value: "PATH", help: "The manifest file (app builds: a folder).")
    var output: String?
    @Option("--asset-pack-id", value: "ID", help: "The asset pack ID (app builds append -DEPOTID).")
    var assetPackID: String
    @Option("-l", "--language", value: "LANG", help: "The BCP 47 language of the pack.")
    var language: String?
    @Flag("--essential", help: "Essential policy (first installation and updates).")
    var essential: Bool
    @Flag("--prefetch", help: "Prefetch policy (first installation and updates).")
    var prefetch: Bool
    @Flag("--on-demand", help: "On-demand policy.")
    var onDemand: Bool
    var base = PackageBaseOption()
    @Option("--platform", value: "PLATFORM", help: "iOS, macOS, tvOS or visionOS; repeat for several (default: all four).")
    var platforms: [String]

    init() {}

    func run() throws -> Int32 {
        let id = assetPackID
        if let problem = AssetPackID.problem(with: id) { throw CLIError.usage("--asset-pack-id \"\(id)\" \(problem)") }
        let events: [InstallationEventType] = [.firstInstallation, .subsequentUpdate]
        let chosen = [(essential, DownloadPolicy.essential(installationEventTypes: events)),
                      (prefetch, .prefetch(installationEventTypes: events)), (onDemand, .onDemand)].filter(\.0)
        guard chosen.count == 1, let policy = chosen.first?.1 else {
            throw CLIError.usage("give exactly one of --essential, --prefetch, --on-demand")
        }
        var platforms: [Platform] = Platform.allCases.sorted()
        if !self.platforms.isEmpty {
            platforms = try self.platforms.map { p in
                guard let v = Platform(rawValue: p) else { throw CLIError.usage("--platform \(p): use iOS, macOS, tvOS or visionOS") }
                return v
            }
        }
        let base = try self.base.folder()
        let script: SteamBuildScript
        do {
            script = try SteamBuildScript.load(path: scriptPath)
        } catch {
            printError(error.description) // already "file:line:column: error: reason"
            return 1
        }
        for w in script.warnings { printError(w.description) }
        var files: [(name: String, bytes: [UInt8])] = []
        var sourceRoots: [String] = []
        var failed = false
        for depot in script.depots {
            let packID = script.isAppBuild ? "\(id)-\(depot.depotID ?? "depot")" : id
            let (manifest, diagnostics) = DepotConverter.manifest(for: depot, assetPackID: packID, policy: policy,
                                                                  platforms: platforms, language: language, base: base)
            for d in diagnostics { printError(d.description) }
            guard let manifest else { failed = true; continue }
            files.append(("\(packID).json", try ManifestSetWriter.encode(manifest, name: "\(packID).json")))
            sourceRoots.append(manifest.sourceRoot ?? ".")
        }
        if failed { throw CLIError.failure("\(scriptPath): some depots could not be converted; nothing written") }
        if script.isAppBuild {
            guard let output else { throw CLIError.usage("missing required option --output (an app build writes a folder of manifests)") }
            try ManifestSetWriter.writeSet(files, to: output)
            for f in files { print("\(output)/\(f.name)") }
        } else if let output, let file = files.first {
            try ManifestSetWriter.writeFile(file.bytes, to: output)
            printError("wrote \(output)")
        } else if let file = files.first {
            print(String(decoding: file.bytes, as: UTF8.self), terminator: "")
        }
        for root in Set(sourceRoots).sorted() { noteSourceRoot(root, base: base) }
        return 0
    }
}
