import ArgumentParsing
import AssetPackMigration
import Foundation

/// `--base DIR`: the folder `assetpack package` is expected to run from, which converted
/// manifests name their sourceRoot relative to.
struct PackageBaseOption: ParsableArguments {
    @Option("--base", value: "DIR", help: "The folder 'assetpack package' will run from; sourceRoot is written relative to it (default: the current directory).")
    var base: String?

    init() {}

    /// `--base DIR` or the current directory.
    func folder() throws(CLIError) -> String {
        guard let base else { return FileManager.default.currentDirectoryPath }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: base, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .failure("--base \(base) is not a directory")
        }
        return base
    }
}

/// Tells on standard error where `assetpack package` must run for a manifest's `sourceRoot`.
func noteSourceRoot(_ sourceRoot: String, base: String) {
    let folder = URL(fileURLWithPath: base).standardizedFileURL.path
    if PortableSourceRoot.isRelative(sourceRoot) {
        printError("sourceRoot \"\(sourceRoot)\" is relative to \(folder): run 'assetpack package' from there")
    } else if sourceRoot.hasPrefix("/") {
        printError("sourceRoot \"\(sourceRoot)\" is absolute: it shares no folder with \(folder) but /")
    } else {
        printError("sourceRoot \"\(sourceRoot)\" is a Windows path from the build script: edit it where the content is")
    }
}
