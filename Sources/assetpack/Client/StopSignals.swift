import Foundation

/// SIGINT and SIGTERM for a command that serves until it is stopped (`serve`, `key-server`):
/// blocked before any server thread exists, so that every thread inherits the mask and the
/// signals wait for `wait()` on the command's own thread.
struct StopSignals {
    private var set = sigset_t()

    /// Blocks SIGINT and SIGTERM for this thread and the threads it starts from now on.
    static func block() -> StopSignals {
        var signals = StopSignals()
        sigemptyset(&signals.set)
        sigaddset(&signals.set, SIGINT)
        sigaddset(&signals.set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals.set, nil)
        return signals
    }

    /// Waits for one of them; returns its number.
    func wait() -> Int32 {
        var set = self.set
        var received: Int32 = 0
        sigwait(&set, &received)
        return received
    }
}
