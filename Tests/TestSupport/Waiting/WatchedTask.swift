import Synchronization

/// A task whose end a wait can see. A test that waits for a sign of the task being under way
/// (a file it writes) also stops waiting when the task has ended: a task that failed before
/// it made that sign is then reported with its own error, not as a wait that timed out.
public struct WatchedTask<Success: Sendable>: Sendable {
    private final class Ended: Sendable {
        let flag = Atomic<Bool>(false)
    }

    private let ended = Ended()
    private let task: Task<Success, any Error>

    public init(_ operation: @escaping @Sendable () async throws -> Success) {
        let ended = ended
        task = Task {
            defer { ended.flag.store(true, ordering: .releasing) }
            return try await operation()
        }
    }

    /// Whether the task has returned or thrown.
    public var hasEnded: Bool { ended.flag.load(ordering: .acquiring) }

    public var result: Result<Success, any Error> { get async { await task.result } }
    public var value: Success { get async throws { try await task.value } }
}
