import Foundation

/// A thread that, a few times per request timeout (at least once a second), closes the
/// connections that have waited too long for a complete request. Stopped and joined by `stop`.
final class RequestDeadlineWatch: @unchecked Sendable {
    private let registry: ConnectionRegistry
    private let period: TimeInterval
    private let condition = NSCondition()
    private var stopping = false
    private var running = true

    init(registry: ConnectionRegistry) {
        self.registry = registry
        period = min(1, Double(registry.limits.requestTimeoutNanoseconds) / 4e9)
        let thread = Thread { [self] in run() }
        thread.name = "assetpack-serve request deadlines"
        thread.start()
    }

    private func run() {
        condition.lock()
        while !stopping {
            _ = condition.wait(until: Date(timeIntervalSinceNow: period))
            if stopping { break }
            condition.unlock()
            registry.closeExpired()
            condition.lock()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the thread and waits for it to finish. Idempotent.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }
}
