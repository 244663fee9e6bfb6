import Foundation

/// Network bytes of one install, counted as they arrive (for progress and the re-download figure).
final class TransferCounters: @unchecked Sendable {
    private let lock = NSLock()
    private var fetched: UInt64 = 0
    private var done: UInt64 = 0

    /// Download bytes a previous run had placed (progress, but not fetched by this run).
    func resumed(_ n: UInt64) { lock.withLock { done += n } }

    func received(_ n: UInt64) { lock.withLock { fetched += n; done += n } }
    /// Bytes fetched alone (the index, repaired chunks): fetched, but no progress.
    func refetched(_ n: UInt64) { lock.withLock { fetched += n } }

    var fetchedBytes: UInt64 { lock.withLock { fetched } }
    var completedBytes: UInt64 { lock.withLock { done } }
}
