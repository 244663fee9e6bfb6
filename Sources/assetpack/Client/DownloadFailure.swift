import ArgumentParsing
import AssetPacks

/// A download command's failure (install, ensure), saying so when the root holds no pack at all:
/// on a first launch offline the error alone ("could not connect") does not tell the user that
/// the app has none of its content yet.
func downloadFailure(_ error: any Error, manager: AssetPackManager, root: String) -> CLIError {
    let empty = (try? runBlocking { try await manager.namespace().isEmpty }) ?? false
    return .failure("\(error)" + (empty ? " (nothing is installed in \(root))" : ""))
}
