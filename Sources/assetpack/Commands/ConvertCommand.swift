import AssetPackCLI
import AssetPackFormat
import AssetPackMigration
import Foundation

let convertCommand = CommandSpec(
    name: "convert",
    abstract: "Convert ODR tags or Steam depot build scripts into asset-pack manifests.",
    arguments: "odr PROJECT_DIR | vdf DEPOT.vdf",
    discussion: """
    assetpack convert odr PROJECT_DIR -o OUTDIR [--base DIR]
      One manifest per ODR tag combination (as Xcode built one ODR asset pack per combination).
      Initial-install tags → essential, prefetch-order tags → prefetch (both for first installation
      and updates), other tags → onDemand. OUTDIR (which must not exist, or be empty) receives all
      manifests and conversion-summary.json at once; what could not be mapped is listed there and
      on standard error.

    assetpack convert vdf DEPOT.vdf --asset-pack-id ID (--essential|--prefetch|--on-demand) [-l LANG] [-o MANIFEST.json] [--base DIR]
      Reads a Steam depot build script (DepotBuildConfig) or an app build script (AppBuild with
      Depots). A single depot's manifest goes to -o or standard output; an app build gives one
      manifest per depot, named ID-DEPOTID.json, in the folder -o names.

    sourceRoot: 'assetpack package' resolves a relative sourceRoot against the folder it runs in,
    so the manifests name the content root relative to the current directory (or --base DIR):
    run 'assetpack package' from that same folder. It stays absolute only when the content root
    shares no folder with the base but / (or is a build machine's C:\\ path). See docs/AUDIT.md.
    """,
    options: [
        .option("-o", "--output", value: "PATH", help: "odr: the output folder; vdf: the manifest file (app builds: a folder)."),
        .option("--asset-pack-id", value: "ID", help: "vdf: the asset pack ID (app builds append -DEPOTID)."),
        .option("-l", "--language", value: "LANG", help: "vdf: the BCP 47 language of the pack."),
        .flag("--essential", help: "vdf: essential policy (first installation and updates)."),
        .flag("--prefetch", help: "vdf: prefetch policy (first installation and updates)."),
        .flag("--on-demand", help: "vdf: on-demand policy."),
        .option("--base", value: "DIR", help: "The folder 'assetpack package' will run from; sourceRoot is written relative to it (default: the current directory)."),
        .option("--platform", value: "PLATFORM", help: "vdf: iOS, macOS, tvOS or visionOS; repeat for several (default: all four).", repeatable: true),
    ],
    positionalCount: 2...2
) { args in
    switch args.positionals[0] {
    case "odr": return try convertODR(args)
    case "vdf": return try convertVDF(args)
    default: throw CLIError.usage("convert takes 'odr' or 'vdf' first, not '\(args.positionals[0])'")
    }
}

private func convertODR(_ args: ParsedArguments) throws -> Int32 {
    for vdfOnly in ["--asset-pack-id", "--language", "--platform"] where args.value(vdfOnly) != nil {
        throw CLIError.usage("\(vdfOnly) applies to 'convert vdf' only")
    }
    for flag in ["--essential", "--prefetch", "--on-demand"] where args.flag(flag) {
        throw CLIError.usage("\(flag) applies to 'convert vdf' only; ODR policies come from the project's settings")
    }
    let output = try args.required("--output")
    let project = args.positionals[1]
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: project, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw CLIError.failure("\(project) is not a directory")
    }
    let base = try packageBase(args)
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

private func convertVDF(_ args: ParsedArguments) throws -> Int32 {
    let id = try args.required("--asset-pack-id")
    if let problem = AssetPackID.problem(with: id) { throw CLIError.usage("--asset-pack-id \"\(id)\" \(problem)") }
    let chosen = ["--essential", "--prefetch", "--on-demand"].filter { args.flag($0) }
    guard chosen.count == 1 else { throw CLIError.usage("give exactly one of --essential, --prefetch, --on-demand") }
    let events: [InstallationEventType] = [.firstInstallation, .subsequentUpdate]
    let policy: DownloadPolicy = chosen[0] == "--essential" ? .essential(installationEventTypes: events)
        : chosen[0] == "--prefetch" ? .prefetch(installationEventTypes: events) : .onDemand
    var platforms: [Platform] = Platform.allCases.sorted()
    if !args.all("--platform").isEmpty {
        platforms = try args.all("--platform").map { p in
            guard let v = Platform(rawValue: p) else { throw CLIError.usage("--platform \(p): use iOS, macOS, tvOS or visionOS") }
            return v
        }
    }
    let base = try packageBase(args)
    let script: SteamBuildScript
    do {
        script = try SteamBuildScript.load(path: args.positionals[1])
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
                                                              platforms: platforms, language: args.value("--language"), base: base)
        for d in diagnostics { printError(d.description) }
        guard let manifest else { failed = true; continue }
        files.append(("\(packID).json", try ManifestSetWriter.encode(manifest, name: "\(packID).json")))
        sourceRoots.append(manifest.sourceRoot ?? ".")
    }
    if failed { throw CLIError.failure("\(args.positionals[1]): some depots could not be converted; nothing written") }
    if script.isAppBuild {
        let output = try args.required("--output")
        try ManifestSetWriter.writeSet(files, to: output)
        for f in files { print("\(output)/\(f.name)") }
    } else if let output = args.value("--output"), let file = files.first {
        try ManifestSetWriter.writeFile(file.bytes, to: output)
        printError("wrote \(output)")
    } else if let file = files.first {
        print(String(decoding: file.bytes, as: UTF8.self), terminator: "")
    }
    for root in Set(sourceRoots).sorted() { noteSourceRoot(root, base: base) }
    return 0
}

/// The folder `assetpack package` is expected to run from: `--base DIR` or the current directory.
private func packageBase(_ args: ParsedArguments) throws(CLIError) -> String {
    guard let base = args.value("--base") else { return FileManager.default.currentDirectoryPath }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: base, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw .failure("--base \(base) is not a directory")
    }
    return base
}

/// Tells on standard error where `assetpack package` must run for a manifest's `sourceRoot`.
private func noteSourceRoot(_ sourceRoot: String, base: String) {
    let folder = URL(fileURLWithPath: base).standardizedFileURL.path
    if PortableSourceRoot.isRelative(sourceRoot) {
        printError("sourceRoot \"\(sourceRoot)\" is relative to \(folder): run 'assetpack package' from there")
    } else if sourceRoot.hasPrefix("/") {
        printError("sourceRoot \"\(sourceRoot)\" is absolute: it shares no folder with \(folder) but /")
    } else {
        printError("sourceRoot \"\(sourceRoot)\" is a Windows path from the build script: edit it where the content is")
    }
}
