import Foundation

/// How a started child ended, learned with `waitpid` rather than from Foundation's `Process`.
/// On Linux, `Process` learns of an exit when a socket it shares with the child closes; a child
/// started at the same moment by another test can inherit that socket and keep it open (an agent
/// for minutes), so the exit is never seen: `isRunning` stays true and `waitUntilExit` blocks for
/// ever on a zombie (swift-corelibs-foundation issue 4795). Polling `waitpid` sees it at once.
public enum ChildExit {
    /// An exit status, or the signal that ended the child (`signaled`), as `Process` reports them.
    public struct Status: Sendable, Equatable {
        public var code: Int32
        public var signaled: Bool

        public init(code: Int32, signaled: Bool) {
            self.code = code
            self.signaled = signaled
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var reaped: [Key: Status] = [:]

    private struct Key: Hashable {
        var object: ObjectIdentifier
        var pid: Int32
    }

    /// nil while `process` runs; how it ended once it has (the child is reaped then).
    public static func poll(_ process: Process) -> Status? {
        let key = Key(object: ObjectIdentifier(process), pid: process.processIdentifier)
        return lock.withLock {
            if let known = reaped[key] { return known }
            var raw: Int32 = 0
            let result = waitpid(key.pid, &raw, WNOHANG)
            if result == key.pid {
                // WIFSIGNALED / WTERMSIG / WEXITSTATUS, which are macros.
                let signal = raw & 0x7F
                let status = signal == 0 ? Status(code: (raw >> 8) & 0xFF, signaled: false) : Status(code: signal, signaled: true)
                reaped[key] = status
                return status
            }
            // Foundation reaped it first: its own record is complete once isRunning is false.
            if result == -1, errno == ECHILD, !process.isRunning {
                return Status(code: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal)
            }
            return nil
        }
    }

    /// Waits (without holding a thread) until `process` has ended; how it ended.
    public static func wait(for process: Process, timeout: Duration) async throws -> Status {
        var status: Status?
        try await waitUntil("process \(process.processIdentifier) exits", timeout: timeout) {
            status = poll(process)
            return status != nil
        }
        return status!
    }
}
