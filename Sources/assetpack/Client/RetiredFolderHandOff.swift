#if canImport(Glibc)
import Glibc
#endif
import AssetPackFormat
import AssetPacks

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
        var child = ChildSpawn()
        child.leads = .session
        child.closesInheritedDescriptors = true
        return (try? child.spawn(executable, [executable, DeleteRetiredCommand.configuration.name, "--root", root])) != nil
    }
}
