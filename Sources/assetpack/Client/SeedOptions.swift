import ArgumentParsing
import AssetPacks
import Foundation

/// `--seed DIR` (repeatable) and `--remember-seeds`: folders whose files may hold chunks of the
/// packs to install. The root remembers them only when asked; remembered ones apply to every
/// later command (and to the root's agent).
struct SeedOptions: ParsableArguments {
    @Option("--seed", value: "DIR", help: "Take chunks found in the files under DIR (an earlier copy, an unpacked build, a USB stick) from disk instead of the network; each is verified by SHA-256. Repeatable.")
    var seeds: [String]
    @Flag("--remember-seeds", help: "Remember the --seed folders given now for later commands and the root's agent (none given: forget them).")
    var remember: Bool

    /// The folders given, as absolute paths; each must be a folder.
    func given() throws(CLIError) -> [String] {
        var out: [String] = []
        for seed in seeds {
            let path = URL(fileURLWithPath: seed).standardizedFileURL.path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                throw .usage("--seed \(seed): no such folder")
            }
            if !out.contains(path) { out.append(path) }
        }
        return out
    }

    /// The folders this command uses (the remembered ones and those given; only those given
    /// with `--remember-seeds`), and `settings` as they are to be saved.
    func applied(to settings: RootSettings) throws(CLIError) -> (folders: [String], settings: RootSettings) {
        let given = try given()
        var settings = settings
        if remember {
            settings.seedFolders = given
            return (given, settings)
        }
        return (settings.seedFolders + given.filter { !settings.seedFolders.contains($0) }, settings)
    }

    /// The options that the root's agent (which uses the remembered folders) cannot follow.
    func changes(to settings: RootSettings) -> [String] {
        guard let given = try? given() else { return ["--seed"] }
        if remember { return given == settings.seedFolders ? [] : ["--remember-seeds"] }
        return given.allSatisfy(settings.seedFolders.contains) ? [] : ["--seed"]
    }
}
