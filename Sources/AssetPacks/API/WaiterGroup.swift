import Foundation

/// The callers awaiting one piece of shared work (a download, a catalog refresh). Each caller
/// registers, then waits; a caller whose task is cancelled stops waiting at once with
/// `CancellationError` while the work goes on for the others. When the last registered caller
/// leaves before the work is done, the group is abandoned and `onAbandoned` runs (once): for a
/// download, that pauses it.
final class WaiterGroup<Success: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let onAbandoned: @Sendable () -> Void
    private var registered: Set<Int> = []
    private var continuations: [Int: CheckedContinuation<Success, any Error>] = [:]
    private var nextKey = 0
    private var outcome: Result<Success, any Error>?
    private var abandoned = false

    init(onAbandoned: @escaping @Sendable () -> Void = {}) {
        self.onAbandoned = onAbandoned
    }

    /// True once every caller has left before the work finished (no one may join after that).
    var isAbandoned: Bool { lock.withLock { abandoned } }

    /// Counts a caller in, synchronously (so that the group cannot be abandoned between joining
    /// and waiting); nil when the group is already abandoned.
    func register() -> Int? {
        lock.withLock {
            guard !abandoned else { return nil }
            nextKey += 1
            registered.insert(nextKey)
            return nextKey
        }
    }

    /// Waits for the work's outcome, or throws `CancellationError` as soon as the calling task
    /// is cancelled.
    func wait(_ key: Int) async throws -> Success {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Success, any Error>) in
                let ready: Result<Success, any Error>? = lock.withLock {
                    if let outcome { registered.remove(key); return outcome }
                    // Checked under the lock: a cancellation after this finds the continuation.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    continuations[key] = continuation
                    return nil
                }
                guard let ready else { return }
                if case .failure(let error) = ready, error is CancellationError { leave(key) }
                continuation.resume(with: ready)
            }
        } onCancel: {
            leave(key)
        }
    }

    /// Hands the outcome to every caller still waiting.
    func complete(_ result: Result<Success, any Error>) {
        let waiting = lock.withLock {
            outcome = result
            registered.removeAll()
            defer { continuations.removeAll() }
            return Array(continuations.values)
        }
        for c in waiting { c.resume(with: result) }
    }

    /// A caller leaves (its task was cancelled): its wait ends with `CancellationError`, and if it
    /// was the last one before the work finished, the group is abandoned.
    private func leave(_ key: Int) {
        let (continuation, abandonNow): (CheckedContinuation<Success, any Error>?, Bool) = lock.withLock {
            guard registered.remove(key) != nil else { return (nil, false) }
            let c = continuations.removeValue(forKey: key)
            let last = registered.isEmpty && outcome == nil && !abandoned
            if last { abandoned = true }
            return (c, last)
        }
        if abandonNow { onAbandoned() }
        continuation?.resume(throwing: CancellationError())
    }
}
