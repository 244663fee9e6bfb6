import AssetPackFormat
import AssetPackTransport
import Foundation

extension AssetPackManager {
    /// Makes the pack available locally: downloads it when it is not installed (or, with
    /// `requireLatestVersion`, when the installed version is older than this one). Concurrent
    /// calls for one pack share one download. Returns when the pack is installed.
    public func ensureLocalAvailability(of assetPack: AssetPack, requireLatestVersion: Bool = false) async throws {
        if let installed = try store.installedPack(assetPack.id), !requireLatestVersion || installed.version >= assetPack.version {
            try store.touch(assetPack.id)
            return
        }
        try await download(assetPack)
    }

    /// The batch form: every pack is attempted; the error lists what succeeded and what failed.
    public func ensureLocalAvailability(of assetPacks: Set<AssetPack>, requireLatestVersions: Bool = false) async throws {
        var successes: [AssetPack] = []
        var failures: [(AssetPack, any Error)] = []
        await withTaskGroup(of: (AssetPack, (any Error)?).self) { group in
            for pack in assetPacks.sorted(by: { $0.id < $1.id }) {
                group.addTask {
                    do { try await self.ensureLocalAvailability(of: pack, requireLatestVersion: requireLatestVersions); return (pack, nil) }
                    catch { return (pack, error) }
                }
            }
            for await (pack, error) in group {
                if let error { failures.append((pack, error)) } else { successes.append(pack) }
            }
        }
        if !failures.isEmpty {
            throw AssetPackManagerError.batch(successes: successes.sorted { $0.id < $1.id }, failures: failures.sorted { $0.0.id < $1.0.id })
        }
    }

    /// The install step. Downloads every essential pack whose installation events include
    /// `event` and returns when they are installed; starts the prefetch packs for `event`, which
    /// go on in the background (their task is returned). On-demand packs are left alone.
    /// Among localized variants only the best match for the user's languages is taken.
    @discardableResult
    public func handleInstallationEvent(_ event: InstallationEventType) async throws -> Task<Void, any Error> {
        let catalog = try await refreshCatalog()
        let packs = chooseLocalizedVariants(catalog.packs.filter { $0.downloadPolicy.installationEventTypes.contains(event) })
        let essential = packs.filter { if case .essential = $0.downloadPolicy { return true }; return false }.map(AssetPack.init)
        let prefetch = packs.filter { if case .prefetch = $0.downloadPolicy { return true }; return false }.map(AssetPack.init)
        let background = Task {
            try await self.ensureLocalAvailability(of: Set(prefetch), requireLatestVersions: true)
        }
        if !essential.isEmpty { try await ensureLocalAvailability(of: Set(essential), requireLatestVersions: true) }
        return background
    }

    /// Fetches the catalog, updates installed packs that have a newer version (by delta: only
    /// the chunks that changed are downloaded) and removes installed packs the catalog dropped.
    @discardableResult
    public func checkForUpdates() async throws -> (updated: [AssetPack], removed: [String]) {
        let catalog = try await refreshCatalog()
        var updated: [AssetPack] = []
        var removed: [String] = []
        for installed in try store.installedPacks() {
            guard let p = catalog.pack(withID: installed.id) else {
                try await remove(assetPackWithID: installed.id)
                removed.append(installed.id)
                continue
            }
            if p.version > installed.version {
                try await download(AssetPack(p))
                updated.append(AssetPack(p))
            }
        }
        return (updated, removed)
    }

    /// Removes an installed pack and its files (Apple's `remove(assetPackWithID:)`).
    public func remove(assetPackWithID id: String) async throws {
        if let download = inFlight[id] { download.task.cancel(); _ = try? await download.task.value }
        // A download that was stopped (an update of an installed pack, too) goes with the pack.
        let pending = try store.pendingDownload(id)
        if let pending {
            try store.endDownload(id)
            try? FileManager.default.removeItem(atPath: layout.absolute(pending.staging))
        }
        guard let installed = try store.installedPack(id) else {
            if pending != nil { return }
            throw AssetPackManagerError.assetPackNotFound(withID: id)
        }
        try store.removeInstalled(id)
        try? FileManager.default.removeItem(atPath: layout.absolute(installed.directory))
        rmdir(layout.packs + "/" + id)
    }

    /// Picks, among localized variants of the same content, the one that best fits the user's
    /// languages; packs without a language are all kept.
    func chooseLocalizedVariants(_ packs: [CatalogPack]) -> [CatalogPack] {
        var groups: [String: [CatalogPack]] = [:]
        var out: [CatalogPack] = []
        for p in packs {
            guard let language = p.language else { out.append(p); continue }
            groups[LocalizedVariantID.baseID(p.id, language: language) ?? p.id, default: []].append(p)
        }
        for (_, variants) in groups.sorted(by: { $0.key < $1.key }) {
            if let best = languages.best(variants, language: { $0.language }) { out.append(best) }
        }
        return out
    }

    // MARK: Download

    func download(_ assetPack: AssetPack) async throws {
        if let download = inFlight[assetPack.id] { return try await download.task.value }
        // Listeners for this pack learn of a refusal before the download too (and their stream ends).
        func refused(_ error: any Error) -> any Error {
            broadcaster.send(.failed(assetPack, error))
            return error
        }
        let catalog: Catalog
        do { catalog = try await currentCatalog() } catch { throw refused(error) }
        // Another caller may have started this download while the catalog was being fetched.
        if let download = inFlight[assetPack.id] { return try await download.task.value }
        guard let entry = catalog.pack(withID: assetPack.id) else { throw refused(AssetPackManagerError.assetPackNotFound(withID: assetPack.id)) }
        let pack = AssetPack(entry)
        do {
            // Downloads under way count as installed: their bytes are already committed.
            try Allowances(downloadAllowance: configuration.downloadAllowance, essentialDownloadAllowance: configuration.essentialDownloadAllowance,
                           maxInstallSize: configuration.maxInstallSize, essentialMaxInstallSize: configuration.essentialMaxInstallSize)
                .check(pack, installed: try store.installedPacks(), downloading: inFlight.values.map(\.pack))
            guard configuration.shouldDownload(pack) else { throw AssetPackManagerError.downloadDeclined(assetPackID: pack.id) }
        } catch { throw refused(error) }
        let task = Task { try await self.install(entry) }
        inFlight[pack.id] = InFlightDownload(pack: pack, task: task)
        defer { inFlight[pack.id] = nil }
        try await task.value
    }

    private func install(_ entry: CatalogPack) async throws {
        let pack = AssetPack(entry)
        let previousPack = try store.installedPack(entry.id)
        let base = previousPack?.digest.hex ?? ""
        let staging = layout.stagingDirectory(id: entry.id, digest: entry.digest)
        if let pending = try store.pendingDownload(entry.id), pending.staging != staging || pending.base != base {
            // A download of another version (or against another base) was under way: drop it.
            try? FileManager.default.removeItem(atPath: layout.absolute(pending.staging))
        }
        try store.beginDownload(PendingDownload(id: entry.id, version: entry.version, digest: entry.digest, staging: staging, base: base))
        broadcaster.send(.began(pack))
        var previous: PackInstaller.Previous?
        if let p = previousPack, let index = try? PackIndex.decode(p.indexBytes, indexOffset: p.indexOffset) {
            previous = PackInstaller.Previous(index: index, directory: layout.absolute(p.directory))
        }
        let flag = CancellationFlag()
        let broadcaster = self.broadcaster
        let installer = PackInstaller(pack: entry, staging: layout.absolute(staging), client: client, previous: previous,
                                      cancellation: flag) { done, total in
            broadcaster.send(.downloading(pack, DownloadProgress(completedUnitCount: Int64(done), totalUnitCount: Int64(total))))
        }
        installer.parallel = configuration.parallelDownloads
        do {
            let index = try await withTaskCancellationHandler {
                try await offload { try installer.run() }
            } onCancel: { flag.cancel() }
            fetchedBytes += installer.fetchedBytes
            try commit(entry, index: index, stagingFiles: installer.filesDirectory, staging: staging, previous: previousPack)
            broadcaster.send(.finished(pack))
        } catch {
            fetchedBytes += installer.fetchedBytes
            let resumable: Bool
            switch error {
            case AssetPackManagerError.transport(let t):
                // A file the server does not have (or refuses) will not come back under this
                // name: the next catalog names another one.
                resumable = t.isTransient || !(400..<500).contains(t.httpStatus ?? 0)
            case AssetPackManagerError.cancelled: resumable = true
            default: resumable = false
            }
            if !resumable {
                // Verification, storage and refusal failures leave nothing behind; network
                // failures keep what was verified so that the next attempt resumes.
                try? FileManager.default.removeItem(atPath: layout.absolute(staging))
                try? store.endDownload(entry.id)
            }
            broadcaster.send(.failed(pack, error))
            throw error
        }
    }

    /// Makes a staged pack visible: one rename into `packs/`, then one transaction; the previous
    /// version's files go only after both.
    private func commit(_ entry: CatalogPack, index: PackIndex, stagingFiles: String, staging: String, previous: InstalledPack?) throws {
        let directory = layout.installDirectory(id: entry.id, version: entry.version, digest: entry.digest)
        let target = layout.absolute(directory)
        try makeDirectory(layout.packs + "/" + entry.id)
        if FileManager.default.fileExists(atPath: target), previous?.directory != directory {
            try? FileManager.default.removeItem(atPath: target)
        }
        guard rename(stagingFiles, target) == 0 else {
            throw AssetPackManagerError.storage("cannot move \(stagingFiles) to \(target): \(String(cString: strerror(errno)))")
        }
        let now = Date()
        try store.commitInstall(InstalledPack(id: entry.id, version: entry.version, digest: entry.digest, directory: directory,
                                              downloadSize: entry.downloadSize, installSize: entry.installSize, language: entry.language,
                                              downloadPolicy: entry.downloadPolicy, installedAt: now, lastUsed: now,
                                              indexBytes: index.encoded(), indexOffset: entry.index.offset),
                                paths: index.files.map(\.path))
        if let previous, previous.directory != directory { try? FileManager.default.removeItem(atPath: layout.absolute(previous.directory)) }
        try? FileManager.default.removeItem(atPath: layout.absolute(staging))
    }

    /// After a crash: installed folders the store does not know (a rename whose transaction
    /// never ran) and staging folders of no pending download are removed.
    static func reconcile(layout: StorageLayout, store: ClientStore) throws {
        let fm = FileManager.default
        let installed = Set(try store.installedPacks().map(\.directory))
        for id in (try? fm.contentsOfDirectory(atPath: layout.packs)) ?? [] {
            for version in (try? fm.contentsOfDirectory(atPath: layout.packs + "/" + id)) ?? [] where !installed.contains("packs/\(id)/\(version)") {
                try? fm.removeItem(atPath: layout.packs + "/\(id)/\(version)")
            }
            rmdir(layout.packs + "/" + id)
        }
        let pending = Set(try store.pendingDownloads().map(\.staging))
        for name in (try? fm.contentsOfDirectory(atPath: layout.staging)) ?? [] where !pending.contains("staging/\(name)") {
            try? fm.removeItem(atPath: layout.staging + "/" + name)
        }
    }
}
