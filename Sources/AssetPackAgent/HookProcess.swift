import AssetPackFormat
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `/bin/sh -c COMMAND` started with posix_spawn in a process group of its own (so that a hook
/// that hangs goes with everything it started), its standard input a pipe, its output discarded.
/// No Foundation `Process`: its exit is waited for with `waitpid` on the caller's thread, which
/// depends on nothing else in the process being free.
final class HookProcess: @unchecked Sendable {
    let pid: pid_t
    private var input: Int32

    typealias SpawnError = ChildSpawn.SpawnError

    init(command: String) throws {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw SpawnError(code: errno) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var spawn = ChildSpawn()
        spawn.input = .descriptor(pipeEnds[0])
        spawn.defaultSignals = [SIGPIPE, SIGTERM, SIGINT]
        let child: pid_t
        do { child = try spawn.spawn("/bin/sh", ["/bin/sh", "-c", command]) } catch {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw error
        }
        close(pipeEnds[0])
        pid = child
        input = pipeEnds[1]
    }

    deinit { if input >= 0 { close(input) } }

    /// Writes `bytes` to the hook's standard input and closes it; a hook that exits without
    /// reading is not an error.
    func write(_ bytes: [UInt8]) {
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        close(input)
        input = -1
    }

    /// Blocks until the hook exits; its raw wait status.
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    func killGroup() { kill(-pid, SIGKILL) }
}
