import Foundation

/// Sends SIGKILL to a process, from a thread of its own, as soon as `condition` holds (checked
/// every 2 ms), or when `seconds` have passed.
public final class Killer: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false

    public init(_ process: Process, when condition: @escaping @Sendable () -> Bool, within seconds: Duration) {
        let pid = process.processIdentifier
        let thread = Thread { [self] in
            // kill(pid, 0) tells whether the child is still there (until it is reaped).
            try? blockingWaitUntil("the condition holds or the child is gone", timeout: seconds, interval: .milliseconds(2)) {
                kill(pid, 0) != 0 || condition()
            }
            kill(pid, SIGKILL)
            lock.withLock { done = true }
        }
        thread.start()
    }

    public var isDone: Bool { lock.withLock { done } }
}
