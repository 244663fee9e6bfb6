import AssetPackFormat
import Foundation

extension AssetPackManager {
    /// After a crash, at `init`: an installed folder the store does not know is either the
    /// rename of a download whose transaction never ran — it goes back to that download's
    /// staging folder, so that the next attempt finds every chunk verified on disk and commits
    /// without fetching — or garbage, removed. Staging folders of no pending download are removed.
    static func reconcile(layout: StorageLayout, store: ClientStore) throws {
        let fm = FileManager.default
        let installed = Set(try store.installedPacks().map(\.directory))
        let pending = try store.pendingDownloads()
        for id in (try? fm.contentsOfDirectory(atPath: layout.packs)) ?? [] {
            for name in (try? fm.contentsOfDirectory(atPath: layout.versionsFolder(of: id))) ?? [] {
                let directory = layout.installDirectory(id: id, folder: name)
                guard !installed.contains(directory) else { continue }
                if let download = pending.first(where: { layout.installDirectory(id: $0.id, version: $0.version, digest: $0.digest) == directory }),
                   restage(layout.absolute(directory), into: layout.absolute(StorageLayout.stagedFiles(download.staging))) {
                    continue
                }
                try? fm.removeItem(atPath: layout.absolute(directory))
            }
            rmdir(layout.versionsFolder(of: id))
        }
        let staged = Set(pending.map(\.staging))
        for name in (try? fm.contentsOfDirectory(atPath: layout.staging)) ?? [] where !staged.contains(layout.stagingDirectory(named: name)) {
            try? fm.removeItem(atPath: layout.absolute(layout.stagingDirectory(named: name)))
        }
    }

    /// Moves a committed-but-unrecorded pack folder back to where its download assembled it.
    /// Its files were complete and flushed before the rename, so they replace whatever the
    /// staging folder holds in their place.
    private static func restage(_ folder: String, into files: String) -> Bool {
        let parent = (files as NSString).deletingLastPathComponent
        guard (try? makeDirectory(parent)) != nil else { return false }
        try? FileManager.default.removeItem(atPath: files)
        return rename(folder, files) == 0
    }
}
