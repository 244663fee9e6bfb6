import AssetPackFormat
import Dispatch
import Foundation
import Synchronization

/// Folders the store no longer references — a superseded pack version, a removed pack, garbage
/// a crash left — leave their place with one rename into `retired/`, under a name no later
/// folder can take, and are deleted there on a background queue. An update or a removal so
/// returns once its commit is durable, not after the file system has freed gigabytes (freeing a
/// 2 GiB file takes ext4 0.2–1 s, which an empty root never pays), and a folder made later under
/// the old name (a version installed again) never meets a deletion still under way.
///
/// A process that exits first leaves the rest in `retired/`: the next manager on the root
/// (`sweep`, at `init`) deletes it, the same way. Nothing in `retired/` is read; a link planted
/// there is removed itself, never followed (`ConfinedDirectory.removeTree`).
///
/// A manager configured not to delete in the background (the `assetpack` command's) only
/// retires, and deletes when asked (`waitUntilDeleted`); the command hands what is left to a
/// process of its own as it exits, since a thread of its own still in `unlink` would hold its
/// exit back until the file system has freed the blocks.
final class RetiredFolders: Sendable {
    private let root: ConfinedDirectory
    private let folder: String
    /// false: deletions wait until asked for (`waitUntilDeleted`, or another process).
    private let inBackground: Bool
    private static let queue = DispatchQueue(label: "AssetPacks.RetiredFolders", qos: .utility)
    /// Deletions not yet done on the queue, across every manager of the process.
    private static let pending = DispatchGroup()
    /// Deletions waiting to be asked for, across every manager of the process that does not
    /// delete in the background.
    private static let waiting = Mutex<[Retired]>([])
    /// The roots this process retired folders in, by path as opened.
    private static let roots = Mutex<Set<String>>([])

    private struct Retired: Sendable {
        let root: ConfinedDirectory
        let relative: String
    }

    init(root: ConfinedDirectory, layout: StorageLayout, inBackground: Bool = true) {
        self.root = root
        folder = layout.retiredFolder
        self.inBackground = inBackground
    }

    /// Takes `relative` out of its place at once and deletes it in the background. When it cannot
    /// be renamed (the retired folder cannot be made), it is deleted here and now, as before.
    func retire(_ relative: String) {
        guard root.exists(relative) else { return }
        let name = folder + "/" + UUID().uuidString.lowercased()
        guard (try? root.directory(folder, create: true)) != nil, (try? root.rename(relative, to: name)) != nil else {
            try? root.removeTree(relative)
            return
        }
        delete(name)
    }

    /// Deletes, in the background, whatever an earlier process left retired.
    func sweep() {
        for name in (try? root.entries(folder)) ?? [] { delete(folder + "/" + name) }
    }

    private func delete(_ relative: String) {
        let root = self.root
        Self.roots.withLock { _ = $0.insert(root.path) }
        if inBackground {
            Self.queue.async(group: Self.pending) { try? root.removeTree(relative) }
        } else {
            Self.waiting.withLock { $0.append(Retired(root: root, relative: relative)) }
        }
    }

    /// Deletes every retired folder handed over so far, and waits for those already under way
    /// in the background: a command that exits next frees the space it promised first.
    static func waitUntilDeleted() {
        for r in waiting.withLock({ w in defer { w = [] }; return w }) { try? r.root.removeTree(r.relative) }
        pending.wait()
    }

    /// The roots whose retired folders are not all deleted yet; empty when none is pending.
    static func rootsStillDeleting() -> [String] {
        let waitingRoots = Set(waiting.withLock { $0.map(\.root.path) })
        guard !waitingRoots.isEmpty || pending.wait(timeout: .now()) == .timedOut else { return [] }
        return roots.withLock { $0.union(waitingRoots).sorted() }
    }

    /// Deletes everything in the root's retired folder, here and now.
    static func deleteAll(root: ConfinedDirectory, layout: StorageLayout) {
        let folder = layout.retiredFolder
        for name in (try? root.entries(folder)) ?? [] { try? root.removeTree(folder + "/" + name) }
    }
}
