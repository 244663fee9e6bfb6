import ArgumentParsing
import AssetPackFormat
import AssetPackMigration
import Foundation

/// `assetpack convert odr`.
struct ConvertODRCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "odr",
            abstract: "Convert an Xcode project's On-Demand Resources tags into asset-pack manifests.",
            discussion: """
            One manifest per ODR tag combination (as Xcode built one ODR asset pack per combination).
            Initial-install tags → essential, prefetch-order tags → prefetch (both for first installation
            and updates), other tags → onDemand. OUTDIR (which must not exist, or be empty) receives all
            manifests and conversion-summary.json at once; what could not be mapped is listed there and
            on standard error. ODR policies come from the project's settings.

            \(ConvertCommand.sourceRootNote)
            """)
    }

    @Argument("PROJECT_DIR")
    var project: String
    @Option("-o", "--output", value: "OUTDIR", help: "The output folder (required).")
    var output: String
    var base = PackageBaseOption()

    init() {}

    func run() throws -> Int32 {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: project, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError.failure("\(project) is not a directory")
        }
        let base = try self.base.folder()
        let result = ODRConverter.convert(projectDirectory: project, base: base)
        guard !result.manifests.isEmpty else {
            for u in result.unmapped { printError("not mapped: \(u)") }
            throw CLIError.failure("\(project): no tagged content to convert")
        }
        var files: [(name: String, bytes: [UInt8])] = []
        for m in result.manifests {
            files.append(("\(m.assetPackID).json", try ManifestSetWriter.encode(m, name: "\(m.assetPackID).json")))
        }
        let sourceRoot = result.manifests[0].sourceRoot ?? "."
        struct Summary: Encodable { var manifests: [String]; var sourceRoot: String; var unmapped: [String] }
        let summary = Summary(manifests: files.map(\.name), sourceRoot: sourceRoot, unmapped: result.unmapped)
        files.append(("conversion-summary.json", Array((jsonString(summary) + "\n").utf8)))
        try ManifestSetWriter.writeSet(files, to: output)
        for m in result.manifests {
            print("\(output)/\(m.assetPackID).json: \(m.downloadPolicy.name), \(m.fileSelectors.count) selector(s), \(m.platforms.map(\.rawValue).joined(separator: ", "))")
        }
        for u in result.unmapped { printError("not mapped: \(u)") }
        noteSourceRoot(sourceRoot, base: base)
        return 0
    }
}
