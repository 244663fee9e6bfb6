/// The app's say in which packs download (Apple's `ManagedDownloaderExtension`): asked before
/// any download starts, in process and in the agent alike. Register one in
/// `AssetPackManager.Configuration.downloaderExtension` (the agent's manager too, through
/// `AgentConfiguration.configureManager`; the agent's `--should-download CMD` is the same
/// question asked of a command).
///
/// ```swift
/// struct DownloaderExtension: ManagedDownloaderExtension {
///     func shouldDownload(_ assetPack: AssetPack) -> Bool {
///         assetPack.downloadPolicy.name != "prefetch" || !onCellular()
///     }
/// }
/// ```
///
/// Apple's is an app extension (`BADownloaderExtension` with a configuration, run by the
/// system); here it is a plain value the manager holds.
public protocol ManagedDownloaderExtension: Sendable {
    /// Whether `assetPack` should download now; `false` fails that download with
    /// `downloadDeclined`. By default `true`.
    func shouldDownload(_ assetPack: AssetPack) -> Bool
}

extension ManagedDownloaderExtension {
    /// Every pack downloads.
    public func shouldDownload(_ assetPack: AssetPack) -> Bool { true }
}
