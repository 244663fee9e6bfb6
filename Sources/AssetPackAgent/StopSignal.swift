import Foundation

/// Tells work that blocks a connection's thread (a route waiting on the manager) that the agent
/// is stopping, so that it gives up at once instead of holding the stop back.
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false
    private var next = 0
    private var handlers: [Int: @Sendable () -> Void] = [:]

    /// Runs `handler` when the signal fires; at once (returning nil) if it already has.
    func register(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let token: Int? = lock.withLock {
            guard !fired else { return nil }
            next += 1
            handlers[next] = handler
            return next
        }
        if token == nil { handler() }
        return token
    }

    func unregister(_ token: Int?) {
        guard let token else { return }
        _ = lock.withLock { handlers.removeValue(forKey: token) }
    }

    func fire() {
        let all: [@Sendable () -> Void] = lock.withLock {
            fired = true
            defer { handlers.removeAll() }
            return Array(handlers.values)
        }
        for handler in all { handler() }
    }
}
