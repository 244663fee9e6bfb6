import Foundation

extension AssetPackManager {
    /// What `statusUpdates` reports about a download (Apple's
    /// `AssetPackManager.DownloadStatusUpdate`): Apple's five cases, in Apple's shapes.
    public enum DownloadStatusUpdate: Sendable {
        /// The download started, or resumed after it was paused.
        case began(AssetPack)
        /// The download stopped and keeps what it verified, for the next request to resume:
        /// every caller left it, or its `Progress` was cancelled.
        case paused(AssetPack)
        /// Bytes arrived (about ten times a second). The `Progress` counts compressed bytes of
        /// this download (what the installed version does not already provide); each update
        /// carries a snapshot of its own. Cancelling it pauses the download (a second cancel,
        /// or one after the download ended, does nothing).
        case downloading(AssetPack, Progress)
        /// The pack is installed and readable: the last update of its download.
        case finished(AssetPack)
        /// The download failed with this error: the last update of its download.
        case failed(AssetPack, any Error)

        /// The pack the update is about. Not in Apple's API.
        public var assetPack: AssetPack {
            switch self {
            case .began(let p), .paused(let p), .downloading(let p, _), .finished(let p), .failed(let p, _): return p
            }
        }

        var isTerminal: Bool {
            switch self { case .finished, .failed: return true; default: return false }
        }
    }
}

/// The name the update had before it was nested in `AssetPackManager` as Apple nests it.
public typealias DownloadStatusUpdate = AssetPackManager.DownloadStatusUpdate

/// A status update as the manager's parts (and the agent's event stream) produce it, before it
/// reaches a stream: progress as plain figures, made into a `Progress` per update on the way out.
enum DownloadEvent: Sendable {
    case began(AssetPack)
    case paused(AssetPack)
    case downloading(AssetPack, completed: Int64, total: Int64)
    case finished(AssetPack)
    case failed(AssetPack, any Error)

    var assetPack: AssetPack {
        switch self {
        case .began(let p), .paused(let p), .downloading(let p, _, _), .finished(let p), .failed(let p, _): return p
        }
    }

    var isTerminal: Bool {
        switch self { case .finished, .failed: return true; default: return false }
    }

    /// The public update; a `.downloading` one gets a `Progress` whose cancellation calls
    /// `pause` with the pack's ID.
    func update(pause: @escaping @Sendable (String) -> Void) -> AssetPackManager.DownloadStatusUpdate {
        switch self {
        case .began(let p): return .began(p)
        case .paused(let p): return .paused(p)
        case .finished(let p): return .finished(p)
        case .failed(let p, let e): return .failed(p, e)
        case .downloading(let p, let completed, let total):
            let progress = Progress(totalUnitCount: total)
            progress.completedUnitCount = completed
            progress.kind = .file
            progress.isPausable = false
            let id = p.id
            progress.cancellationHandler = { pause(id) }
            return .downloading(p, progress)
        }
    }
}
