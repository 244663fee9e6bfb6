import AssetPackFormat
import Dispatch
import Foundation

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
final class RetiredFolders: Sendable {
    private let root: ConfinedDirectory
    private let folder: String
    private static let queue = DispatchQueue(label: "AssetPacks.RetiredFolders", qos: .utility)
    /// Deletions not yet done, across every manager of the process.
    private static let pending = DispatchGroup()

    init(root: ConfinedDirectory, layout: StorageLayout) {
        self.root = root
        folder = layout.retiredFolder
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
        Self.queue.async(group: Self.pending) { try? root.removeTree(relative) }
    }

    /// Waits until every deletion handed to the background so far is done: a command that exits
    /// next frees the space it promised first.
    static func waitUntilDeleted() {
        pending.wait()
    }
}
