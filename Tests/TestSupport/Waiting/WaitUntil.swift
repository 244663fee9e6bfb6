import Foundation

/// Waits for something a test started to happen: polls `condition` every `interval` until it
/// holds, and throws (naming `what`) when `timeout` passes first. The deadline is generous on
/// purpose: the wait ends as soon as the condition holds, and on a busy machine — the whole suite
/// at once on two cores, where a task may not run for tens of seconds — it still holds in time.
public func waitUntil(_ what: String = "the condition holds", timeout: Duration = .seconds(90), interval: Duration = .milliseconds(10),
                      _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what, timeout: timeout) }
        try await Task.sleep(for: interval)
    }
}

/// `waitUntil` for code that runs on a thread of its own, not in a task (a server's start, a
/// watcher thread, a synchronous test): sleeps the thread between polls. Named apart so that an
/// async caller never picks it by accident and blocks a thread of the shared pool.
public func blockingWaitUntil(_ what: String = "the condition holds", timeout: Duration = .seconds(90), interval: Duration = .milliseconds(10),
                              _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what, timeout: timeout) }
        Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
    }
}

/// A condition did not hold in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var what: String
    public var timeout: Duration
    public var description: String { "timed out after \(timeout) waiting until \(what)" }
}
