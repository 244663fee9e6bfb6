import AssetPackFormat
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
    /// Its files were complete and flushed before the rename, so they replace whatever the
    /// staging folder holds in their place.
    private static func restage(_ folder: String, into files: String, root: ConfinedDirectory) -> Bool {
        let parent = (files as NSString).deletingLastPathComponent
        guard (try? root.directory(parent, create: true)) != nil else { return false }
        try? root.removeTree(files)
        return (try? root.rename(folder, to: files)) != nil
    }
}
