#if canImport(Glibc)
import Glibc
#endif
import CPOSIX

/// One `posix_spawn` of a child process, set up the way this package's children need: what its
/// standard input and output are (standard error follows output), whether it leads a process
/// group or a session of its own, which signals it starts with at their default action, and
/// whether it inherits descriptors from 3 up. Its signal mask starts empty. No Foundation
/// `Process`: the caller waits for the child with `waitpid` (or not at all), depending on
/// nothing else in the process.
package struct ChildSpawn {
    package enum Input { case null, descriptor(Int32) }
    package enum Output { case null, file(String) }
    package enum Leadership { case processGroup, session }

    package var input: Input = .null
    /// A file is created (0644) or truncated.
    package var output: Output = .null
    package var leads: Leadership = .processGroup
    /// Signals set back to their default action in the child; nil: every signal.
    package var defaultSignals: [Int32]? = nil
    /// Descriptors 3 and up are closed in the child, close-on-exec or not.
    package var closesInheritedDescriptors = false

    package init() {}

    /// Starts `path` (searched in `PATH` when it has no slash) with `arguments` (the first is its
    /// name) and `environment` ("KEY=value"; nil: this process's). Returns the child's process ID,
    /// or throws the error number posix_spawn answered.
    package func spawn(_ path: String, _ arguments: [String], environment: [String]? = nil) throws(SpawnError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        switch input {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, 0)
        }
        switch output {
        case .null: posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        case .file(let file): posix_spawn_file_actions_addopen(&actions, 1, file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var defaults = sigset_t()
        if let signals = defaultSignals {
            sigemptyset(&defaults)
            for s in signals { sigaddset(&defaults, s) }
        } else {
            sigfillset(&defaults)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if case .processGroup = leads {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        if case .session = leads, cposix_spawn_new_session(&attributes) != 0 { throw SpawnError(code: EINVAL) }
        if closesInheritedDescriptors, cposix_spawn_close_from(&actions, 3) != 0 { throw SpawnError(code: EINVAL) }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup($0) } + [nil] }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = envp.map { posix_spawnp(&pid, path, &actions, &attributes, argv, $0) }
            ?? posix_spawnp(&pid, path, &actions, &attributes, argv, Glibc.environ)
        guard rc == 0 else { throw SpawnError(code: rc) }
        return pid
    }

    package struct SpawnError: Error, CustomStringConvertible {
        package var code: Int32
        package init(code: Int32) { self.code = code }
        package var description: String { String(cString: strerror(code)) }
    }
}
