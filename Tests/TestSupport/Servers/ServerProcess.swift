import AssetPackFormat
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server started for a test, bounded in time. It is spawned with posix_spawn in a process
/// group of its own, with every signal unblocked and at its default action (Foundation's
/// `Process` passes on the test thread's blocked-signal mask, which leaves `timeout` and nginx
/// deaf to SIGTERM), and runs under `timeout(1)`, so it dies after `lifetime` seconds even if
/// the test process is killed first. `stop()` (also called from deinit) ends the whole group.
public final class ServerProcess: @unchecked Sendable {
    public let port: UInt16
    public let logPath: String
    private let pid: pid_t
    private let lock = NSLock()
    private var exited = false

    /// Starts `arguments` (an executable looked up in PATH, then its arguments) with its output
    /// in `logPath`, and waits until 127.0.0.1:`port` accepts connections.
    public init(_ arguments: [String], port: UInt16, logPath: String, environment: [String: String] = [:], lifetime: Int = 300,
                startTimeout: Duration = .seconds(30)) throws {
        self.port = port
        self.logPath = logPath
        pid = try Self.spawn(["timeout", "--kill-after=5", String(lifetime)] + arguments, logPath: logPath, environment: environment)
        try? blockingWaitUntil("\(arguments[0]) listens on port \(port) or exits", timeout: startTimeout, interval: .milliseconds(50)) {
            isListening(port: port) || !isRunning
        }
        guard isRunning, isListening(port: port) else {
            stop()
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw TestSupportError("\(arguments.joined(separator: " ")) did not start listening on port \(port): \(text.suffix(2000))")
        }
    }

    deinit { stop() }

    /// Whether the server is still running (reaps it if it has exited).
    public var isRunning: Bool {
        lock.withLock {
            if exited { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { exited = true }
            return !exited
        }
    }

    /// SIGTERM to the group, then SIGKILL if it is still there after 5 seconds; waits for it.
    public func stop() {
        guard isRunning else { return }
        kill(-pid, SIGTERM)
        if (try? blockingWaitUntil("the server ends on SIGTERM", timeout: .seconds(5), interval: .milliseconds(20)) { !isRunning }) == nil {
            kill(-pid, SIGKILL)
            try? blockingWaitUntil("the server ends on SIGKILL", timeout: .seconds(60), interval: .milliseconds(20)) { !isRunning }
        }
        kill(-pid, SIGKILL) // workers left behind by a master that died first
    }

    private static func spawn(_ arguments: [String], logPath: String, environment: [String: String]) throws -> pid_t {
        var spawn = ChildSpawn()
        spawn.output = .file(logPath)
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
        do { return try spawn.spawn(arguments[0], arguments, environment: merged) } catch {
            throw TestSupportError("cannot start \(arguments[0]): \(error)")
        }
    }

    /// Tries `make` with fresh ports up to `attempts` times (another process may take a port
    /// between the moment it was found free and the moment the server binds it).
    public static func withFreePort<T>(attempts: Int = 4, _ make: (UInt16) throws -> T) throws -> T {
        var lastError: any Error = TestSupportError("no attempt made")
        for _ in 0..<attempts {
            do { return try make(try freeLoopbackPort()) } catch { lastError = error }
        }
        throw lastError
    }
}
