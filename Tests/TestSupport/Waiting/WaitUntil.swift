import Foundation

/// Waits for something a test started to happen: polls `condition` every `interval` until it
/// holds, and throws (naming `what`) when `timeout` passes first. The deadline is generous on
/// purpose: the wait ends as soon as the condition holds, and on a busy machine it still holds in
/// time. Time in which the waiting task could not run does not count (`WaitBudget`): with the
/// whole suite at once on two cores, synchronous tests can hold every thread of Swift's shared
/// pool for a minute or more, and the task the test waits on cannot run then either.
public func waitUntil(_ what: String = "the condition holds", timeout: Duration = .seconds(90), interval: Duration = .milliseconds(10),
                      _ condition: () async throws -> Bool) async throws {
    var budget = WaitBudget(timeout: timeout, interval: interval)
    while try await !condition() {
        guard budget.remains() else { throw WaitTimedOut(what: what, timeout: timeout) }
        try await Task.sleep(for: interval)
    }
}

/// `waitUntil` for code that runs on a thread of its own, not in a task (a server's start, a
/// watcher thread, a synchronous test): sleeps the thread between polls. Named apart so that an
/// async caller never picks it by accident and blocks a thread of the shared pool.
public func blockingWaitUntil(_ what: String = "the condition holds", timeout: Duration = .seconds(90), interval: Duration = .milliseconds(10),
                              _ condition: () throws -> Bool) throws {
    var budget = WaitBudget(timeout: timeout, interval: interval)
    while try !condition() {
        guard budget.remains() else { throw WaitTimedOut(what: what, timeout: timeout) }
        Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
    }
}

/// The time a wait has spent polling, against its timeout. A poll that comes back more than a
/// second after the previous one (the waiter was not scheduled: the machine or the shared pool
/// was held by other work) counts as one interval, so that a stall of the whole process is not
/// taken for a condition that never holds. Four times the timeout on the clock ends the wait
/// whatever was counted, so that a wait whose every poll is slow still ends.
public struct WaitBudget {
    private let timeout: Duration
    private let interval: Duration
    private let start: ContinuousClock.Instant
    private var last: ContinuousClock.Instant
    private var spent: Duration = .zero

    public init(timeout: Duration, interval: Duration, start: ContinuousClock.Instant = .now) {
        self.timeout = timeout
        self.interval = interval
        self.start = start
        last = start
    }

    /// Counts the time since the previous poll; false once the timeout is spent.
    public mutating func remains(at now: ContinuousClock.Instant = .now) -> Bool {
        let gap = now - last
        last = now
        spent += gap > interval + .seconds(1) ? interval : gap
        return spent < timeout && now - start < timeout * 4
    }
}

/// A condition did not hold in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var what: String
    public var timeout: Duration
    public var description: String { "timed out after \(timeout) waiting until \(what)" }
}
