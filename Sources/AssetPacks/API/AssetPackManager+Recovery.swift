import AssetPackFormat
import CPOSIX
import Foundation

extension AssetPackManager {
    /// After a crash, at `init`: an installed folder the store does not know is either the
    /// rename of a download whose transaction never ran — it goes back to that download's
    /// staging folder, so that the next attempt finds every chunk verified on disk and commits
    /// without fetching — or garbage, retired (`RetiredFolders`). Staging folders of no pending download are removed.
    /// Everything goes through the confined root: a link planted in `packs/` or `staging/` is
    /// removed itself, never followed.
    static func reconcile(layout: StorageLayout, root: ConfinedDirectory, store: ClientStore, retired: RetiredFolders) throws {
        let installed = Set(try store.installedDirectories())
        let pending = try store.pendingDownloads()
        for id in (try? root.entries(layout.packsFolder)) ?? [] {
            for name in (try? root.entries(layout.versionsFolder(relativeOf: id))) ?? [] {
                let directory = layout.installDirectory(id: id, folder: name)
                guard !installed.contains(directory) else { continue }
                if let download = pending.first(where: { layout.installDirectory(id: $0.id, version: $0.version, digest: $0.digest) == directory }),
                   let staging = try? layout.checkedStagingDirectory(download.staging, id: download.id),
                   restage(directory, into: StorageLayout.stagedFiles(staging), root: root) {
                    continue
                }
                retired.retire(directory)
            }
            root.removeEmptyFolder(layout.versionsFolder(relativeOf: id))
        }
        let staged = Set(pending.map(\.staging))
        for name in (try? root.entries(layout.stagingFolder)) ?? [] {
            let folder = layout.stagingDirectory(named: name)
            // Files a killed progressive read was writing are of no use.
            try? root.removeTree(StorageLayout.progressiveIncoming(folder))
            if !staged.contains(folder) { retired.retire(folder) }
        }
    }

    /// Moves a committed-but-unrecorded pack folder back to where its download assembled it.
    /// Its files were complete before the rename, so they replace whatever the staging folder
    /// holds in their place (a resumed download hashes what it finds before it trusts it, so
    /// files a crash of the system cut short are fetched again).
    private static func restage(_ folder: String, into files: String, root: ConfinedDirectory) -> Bool {
        let parent = (files as NSString).deletingLastPathComponent
        guard (try? root.directory(parent, create: true)) != nil else { return false }
        try? root.removeTree(files)
        return (try? root.rename(folder, to: files)) != nil
    }
}

extension AssetPackManager {
    /// At `init`, for the installs whose files were left to the kernel's writeback
    /// (`Configuration.flushesBeforeCommit` false). One committed in this boot lost nothing: it
    /// is marked flushed once the kernel has had time to write it back (`BootSession.writebackDelay`),
    /// after one `syncfs` of the root, which then finds little to write. One committed in an
    /// earlier boot may have lost files if that boot ended in a crash: every chunk of its
    /// content is read back and hashed against its index (what a restart reads comes from the
    /// disk); intact, it is marked flushed; otherwise it is no longer installed (its folder
    /// retired, its namespace rows gone), and its next download fetches it again.
    static func settleUnflushedInstalls(store: ClientStore, root: ConfinedDirectory, layout: StorageLayout, retired: RetiredFolders,
                                        boot: BootSession?, writebackDelay: Int64) throws {
        var settled: [InstalledPack] = []
        var writtenBack: [InstalledPack] = []
        for pack in try store.unflushedInstalls() {
            if let boot, let committed = pack.unflushed, committed.id == boot.id {
                if boot.uptime - committed.uptime >= writebackDelay { writtenBack.append(pack) }
                continue
            }
            if isIntactOnDisk(pack, root: root, layout: layout) {
                settled.append(pack)
            } else {
                try store.removeInstalled(pack.id)
                if let directory = try? layout.checkedInstallDirectory(pack.directory, id: pack.id) { retired.retire(directory) }
            }
        }
        if !writtenBack.isEmpty, cposix_syncfs(root.fd) == 0 { settled += writtenBack }
        try store.markFlushed(settled)
    }

    /// For a manager that lives on after an install it left to the writeback (an app, the
    /// agent): `delay` seconds later, one `syncfs` of the root, then `pack` is marked flushed, so
    /// that a restart does not check it. Nothing is held meanwhile: a manager gone by then
    /// leaves the mark to the next one (`settleUnflushedInstalls`). The flushes of the process
    /// run one at a time on a queue of their own, so that many installs' flushes never hold
    /// many threads, and the later ones find little left to write.
    static func markFlushedAfterWriteback(_ pack: InstalledPack, store: ClientStore, root: ConfinedDirectory, delay: Int64) {
        writebackQueue.asyncAfter(deadline: .now() + .seconds(Int(delay))) { [weak store, weak root] in
            guard let store, let root, cposix_syncfs(root.fd) == 0 else { return }
            try? store.markFlushed([pack])
        }
    }

    private static let writebackQueue = DispatchQueue(label: "AssetPacks.Writeback", qos: .utility)

    /// Whether every file of `pack` is in its folder with the bytes its index gives: each chunk
    /// of the content stream read back and hashed, each empty file present.
    private static func isIntactOnDisk(_ pack: InstalledPack, root: ConfinedDirectory, layout: StorageLayout) -> Bool {
        guard let index = try? PackIndex.decode(pack.indexBytes, indexOffset: pack.indexOffset, opened: true),
              let path = try? layout.checkedInstallDirectory(pack.directory, id: pack.id),
              let directory = try? root.directory(path) else { return false }
        let reader = ContentStreamReader(index: index, directory: directory, dropsBehind: true)
        let largest = index.chunks.reduce(0) { max($0, Int($1.uncompressedSize)) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(largest, 1), alignment: 16)
        defer { buffer.deallocate() }
        for s in index.sequence.indices {
            let size = Int(index.chunks[Int(index.sequence[s])].uncompressedSize)
            guard reader.readVerifiedChunk(atSequence: s, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size])) else { return false }
        }
        for f in index.files.indices where index.files.size(at: f) == 0 {
            guard let fd = try? directory.open(index.files.path(at: f), flags: O_RDONLY | O_NONBLOCK) else { return false }
            close(fd)
        }
        return true
    }
}
