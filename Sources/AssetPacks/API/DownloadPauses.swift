import AssetPackTransport
import Foundation

/// The in-process downloads a cancelled `Progress` can pause, reachable from any thread: a
/// cancel stops the download's installer at once (no hop to the manager first), and the
/// download then ends as paused rather than failed.
final class DownloadPauses: @unchecked Sendable {
    private let lock = NSLock()
    private var flags: [String: CancellationFlag] = [:]
    private var requested: Set<String> = []

    /// The download of `id` under way stops through `flag`.
    func register(_ id: String, _ flag: CancellationFlag) {
        lock.withLock {
            flags[id] = flag
            requested.remove(id)
        }
    }

    /// The download of `id` that stopped through `flag` is over.
    func unregister(_ id: String, _ flag: CancellationFlag) {
        lock.withLock { if flags[id] === flag { flags[id] = nil } }
    }

    /// Pauses the download of `id` under way; nothing when none is.
    func pause(_ id: String) {
        let flag: CancellationFlag? = lock.withLock {
            guard let flag = flags[id] else { return nil }
            requested.insert(id)
            return flag
        }
        flag?.cancel()
    }

    /// Whether the download of `id` was paused (and forgets it).
    func takePause(_ id: String) -> Bool {
        lock.withLock { requested.remove(id) != nil }
    }
}
