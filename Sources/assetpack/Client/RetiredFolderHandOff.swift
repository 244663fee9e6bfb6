#if canImport(Glibc)
import Glibc
#endif
import AssetPacks
import CPOSIX

/// What a command does with the retired folders it has not finished deleting when it is about
/// to exit (a superseded version, a pack evicted for room): it starts `assetpack delete-retired`
/// for each such root in a session of its own, its standard streams on /dev/null and no other
/// descriptor inherited, and exits without waiting — as the agent and an app delete them in the
/// background. When the hand-off cannot start, it waits for the deletions itself.
enum RetiredFolderHandOff {
    static func run() {
        let roots = AssetPackManager.rootsWithRetiredFoldersPending()
        guard !roots.isEmpty else { return }
        guard let executable = currentExecutable(), roots.allSatisfy({ spawn(executable, root: $0) }) else {
            AssetPackManager.waitUntilRetiredFoldersAreDeleted()
            return
        }
    }

    private static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func spawn(_ executable: String, root: String) -> Bool {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        guard cposix_spawn_detach(&attributes, &actions) == 0 else { return false }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        let words = [executable, DeleteRetiredCommand.configuration.name, "--root", root]
        var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        arguments.append(nil)
        defer { arguments.forEach { free($0) } }
        var child: pid_t = 0
        return posix_spawn(&child, executable, &actions, &attributes, arguments, Glibc.environ) == 0
    }
}
