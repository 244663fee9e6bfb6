import ArgumentParsing
import AssetPacks

/// `assetpack delete-retired --root DIR` (hidden): deletes the root's retired folders. A command
/// that exits with deletions still under way starts it detached (`RetiredFolderHandOff`), so that
/// an update returns at its commit while the old version's space is freed behind it.
struct DeleteRetiredCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "delete-retired",
                             abstract: "Delete the retired folders of a storage root (run by assetpack itself).",
                             isHidden: true)
    }

    @Option("--root", value: "DIR", help: "The storage root.")
    var root: String

    init() {}

    func run() throws -> Int32 {
        do { try AssetPackManager.deleteRetiredFolders(inRootAt: root) } catch { throw CLIError.failure("\(error)") }
        return 0
    }
}
