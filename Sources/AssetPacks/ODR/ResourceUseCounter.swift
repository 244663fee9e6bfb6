import Foundation

/// How many open resource requests use each pack, in memory: the storage budget never evicts a
/// pack while its count is above zero (ODR's guarantee for resources being accessed). Locked,
/// not actor-isolated, so that `endAccessingResources()` and a request's `deinit` release their
/// packs at once.
final class ResourceUseCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func retain(_ ids: Set<String>) {
        lock.withLock { for id in ids { counts[id, default: 0] += 1 } }
    }

    func release(_ ids: Set<String>) {
        lock.withLock {
            for id in ids { if let n = counts[id] { counts[id] = n > 1 ? n - 1 : nil } }
        }
    }

    /// The packs some open request uses.
    var inUse: Set<String> { lock.withLock { Set(counts.keys) } }
}
