import AssetPackFormat
import AssetPackTransport
import Foundation

extension AssetPackManager {
    /// Downloads and installs the catalog's version of `assetPack`, or joins the download of it
    /// under way. A caller whose task is cancelled stops waiting at once (`CancellationError`)
    /// while the download goes on for the others; when every caller has left, the download
    /// stops, keeps its staging folder (the next one resumes) and `.paused` is sent.
    func download(_ assetPack: AssetPack) async throws {
        try Task.checkCancellation()
        if try await joinDownload(assetPack.id) { return }
        // Listeners for this pack learn of a refusal before the download too (and their stream ends).
        func refused(_ error: any Error) -> any Error {
            broadcaster.send(.failed(assetPack, error))
            return error
        }
        let catalog: Catalog
        do { catalog = try await currentCatalog() } catch is CancellationError { throw CancellationError() } catch { throw refused(error) }
        // Another caller may have started this download while the catalog was being fetched.
        if try await joinDownload(assetPack.id) { return }
        guard let entry = catalog.pack(withID: assetPack.id) else { throw refused(AssetPackManagerError.assetPackNotFound(withID: assetPack.id)) }
        // A paused download that finished after all while this caller waited for it.
        if let installed = try store.installedPack(entry.id), installed.digest == entry.digest { return }
        let pack = AssetPack(entry)
        // A pack the catalog's own figures put over a limit is refused without a request.
        do {
            _ = try limitDecisions(pack)
            guard configuration.shouldDownload(pack), configuration.downloaderExtension?.shouldDownload(pack) ?? true else { throw AssetPackManagerError.downloadDeclined(assetPackID: pack.id) }
        } catch { throw refused(error) }
        // Then the index (it is small, and pinned by the catalog's digest): every figure those
        // decisions read is checked against it before they count, so a catalog that understates
        // a pack's sizes cannot get it past the allowances or the storage budget, and one that
        // overstates them cannot make the budget evict anything.
        let index: FetchedIndex
        admitting[pack.id] = pack
        do {
            defer { admitting[pack.id] = nil }
            // A sealed pack's key first: without an entitlement nothing of the pack is fetched.
            let contentKey = try await contentKey(for: entry)
            index = try await verifiedIndex(entry, contentKey: contentKey)
        } catch is CancellationError { throw CancellationError() } catch { throw refused(error) }
        if try await joinDownload(assetPack.id) { return }
        if let installed = try store.installedPack(entry.id), installed.digest == entry.digest { return }
        do {
            // Decided again: other downloads may have started while the index came.
            let evictions = try limitDecisions(pack)
            // No suspension from the check to `inFlight` below: no other download slips in between.
            for evicted in evictions { try uninstall(evicted) }
        } catch { throw refused(error) }
        let flag = CancellationFlag()
        let waiters = WaiterGroup<Void>(onAbandoned: { flag.cancel() })
        guard let key = waiters.register() else { throw CancellationError() }
        let task = Task {
            let outcome: Result<Void, any Error>
            do {
                try await install(entry, index: index, contentKey: index.index.contentKey, cancellation: flag, waiters: waiters)
                outcome = .success(())
            } catch { outcome = .failure(error) }
            // Gone from the table before anyone hears the outcome: whoever asks next starts afresh.
            if inFlight[entry.id]?.waiters === waiters { inFlight[entry.id] = nil }
            waiters.complete(outcome)
        }
        inFlight[pack.id] = InFlightDownload(pack: pack, task: task, waiters: waiters)
        try await waiters.wait(key)
    }

    /// Waits for the download of `id` under way, if there is one: true once it has installed the
    /// pack (its failure is thrown), false when none is under way.
    private func joinDownload(_ id: String) async throws -> Bool {
        while let download = inFlight[id] {
            if let key = download.waiters.register() {
                try await download.waiters.wait(key)
                return true
            }
            // Every caller left that one and it is stopping: once it has, start afresh (the new
            // download resumes from its staging folder).
            await download.task.value
            try Task.checkCancellation()
        }
        return false
    }

    /// Checks the allowances and chooses what the storage budget evicts for `pack` (nothing is
    /// evicted here); throws the refusal.
    func limitDecisions(_ pack: AssetPack) throws -> [InstalledPack] {
        // Downloads under way (and those being admitted) count as installed: their bytes are
        // already committed.
        let downloading = inFlight.values.map(\.pack) + admitting.values.filter { $0.id != pack.id }
        try Allowances(downloadAllowance: configuration.downloadAllowance, essentialDownloadAllowance: configuration.essentialDownloadAllowance,
                       maxInstallSize: configuration.maxInstallSize, essentialMaxInstallSize: configuration.essentialMaxInstallSize)
            .check(pack, installed: try store.installedPacks(), downloading: downloading)
        // The whole set is chosen (or the download refused) before anything is evicted.
        return try configuration.storageBudget.map {
            try StorageBudget(budget: $0).evictions(for: pack, installed: try store.installedPacks(), downloading: downloading,
                                                    busy: Set(inFlight.keys).union(admitting.keys).union(try store.pendingDownloads().map(\.id)).union(resourcesInUse.inUse))
        } ?? []
    }

    /// A pack's index as fetched (or read back from its staging folder) and checked.
    struct FetchedIndex: Sendable {
        var bytes: [UInt8]
        var index: PackIndex
        /// The patch table from the installed version, when the index came through it.
        var patchTable: [UInt8]?
    }

    /// The pack's index, from its staging folder or the network, checked against the catalog's
    /// figures (`CatalogIndexAgreement`). Callers admitting the same pack share one fetch; a
    /// cancelled caller leaves at once, and the fetch stops when every caller has left.
    func verifiedIndex(_ entry: CatalogPack, contentKey: ContentKey?) async throws -> FetchedIndex {
        let key = "\(entry.id) \(entry.digest.hex)"
        if let running = indexFetches[key], let k = running.register() { return try await running.wait(k) }
        let flag = CancellationFlag()
        let waiters = WaiterGroup<FetchedIndex>(onAbandoned: { flag.cancel() })
        guard let k = waiters.register() else { throw CancellationError() }
        indexFetches[key] = waiters
        var keyed = PackIndexFetch(pack: entry, client: client)
        keyed.contentKey = contentKey
        // An update makes the new index from the installed one when the patch file has an index patch.
        if let installed = try? store.installedPack(entry.id), installed.digest != entry.digest {
            keyed.previous = PackIndexFetch.PreviousIndex(digest: installed.digest, bytes: installed.indexBytes, offset: installed.indexOffset)
        }
        let fetch = keyed
        let stagedPath = StorageLayout.stagedIndex(layout.stagingDirectory(id: entry.id, digest: entry.digest))
        let root = self.root
        Task {
            let outcome: Result<FetchedIndex, any Error>
            do {
                let loaded = try await offload {
                    // A staged copy that cannot be read (or is not there) is fetched again.
                    let staged = try? StorageLayout.confined { () throws(ConfinementError) in try root.contents(of: stagedPath) }
                    return try fetch.load(staged: staged ?? nil, cancellation: flag)
                }
                fetchedBytes += loaded.fetched
                outcome = .success(FetchedIndex(bytes: loaded.bytes, index: loaded.index, patchTable: loaded.patchTable))
            } catch { outcome = .failure(error) }
            if indexFetches[key] === waiters { indexFetches[key] = nil }
            waiters.complete(outcome)
        }
        return try await waiters.wait(k)
    }

    private func install(_ entry: CatalogPack, index: FetchedIndex, contentKey: ContentKey?, cancellation flag: CancellationFlag,
                         waiters: WaiterGroup<Void>) async throws {
        let pack = AssetPack(entry)
        let previousPack = try store.installedPack(entry.id)
        let base = previousPack?.digest.hex ?? ""
        let staging = layout.stagingDirectory(id: entry.id, digest: entry.digest)
        if let pending = try store.pendingDownload(entry.id), pending.staging != staging || pending.base != base {
            // A download of another version (or against another base) was under way: drop it.
            try? root.removeTree(try layout.checkedStagingDirectory(pending.staging, id: entry.id))
        }
        try store.beginDownload(PendingDownload(id: entry.id, version: entry.version, digest: entry.digest, staging: staging, base: base))
        // From here a cancelled `Progress` pauses this download: it stops, keeps what it
        // verified, `.paused` is sent and its callers get `cancelled`.
        pauses.register(entry.id, flag)
        defer { pauses.unregister(entry.id, flag) }
        broadcaster.send(.began(pack))
        var previous: PackInstaller.Previous?
        if let p = previousPack, let index = try? PackIndex.decode(p.indexBytes, indexOffset: p.indexOffset, opened: true) {
            previous = PackInstaller.Previous(index: index, directory: try layout.checkedInstallDirectory(p.directory, id: p.id), digest: p.digest)
            // Files left to the kernel's writeback in an earlier boot may not hold what was
            // verified (a crash before writeback): the change time vouches for nothing then.
            if p.unflushed == nil || p.unflushed?.id == configuration.bootSession()?.id { previous?.verifiedBefore = p.committedChangeTime }
        }
        let broadcaster = self.broadcaster
        let installer = PackInstaller(pack: entry, root: root, staging: staging, client: client, previous: previous,
                                      cancellation: flag) { done, total in
            broadcaster.send(.downloading(pack, completed: Int64(done), total: Int64(total)))
        }
        installer.parallel = configuration.parallelDownloads
        installer.checkedIndex = (index.bytes, index.index)
        let fetchedIndexBytes = index.bytes
        installer.checkedPatchTable = index.patchTable
        installer.seedFolders = configuration.seedFolders
        installer.seedLimits = configuration.seedScanLimits
        let boot = configuration.flushesBeforeCommit ? nil : configuration.bootSession()
        installer.flushesFiles = boot == nil
        deliveries[entry.id] = (installer.sources, entry.version)
        installer.contentKey = contentKey
        do {
            // `remove(assetPackWithID:)` cancels this task; the waiters' leaving sets the flag.
            let index = try await withTaskCancellationHandler {
                try await offload { try installer.run() }
            } onCancel: { flag.cancel() }
            fetchedBytes += installer.fetchedBytes
            peerBytes += installer.peerBytes
            filesLinkedUnread += installer.filesLinkedUnread
            filesLinkedFromPatchedChunks += installer.filesLinkedFromPatchedChunks
            chunksCopiedUnread += installer.chunksCopiedUnread
            try commit(entry, index: index, indexBytes: fetchedIndexBytes, stagingFiles: installer.filesDirectory, staging: staging,
                       previous: previousPack, previousIndex: previous?.index, unflushed: boot)
            broadcaster.send(.finished(pack))
        } catch {
            fetchedBytes += installer.fetchedBytes
            peerBytes += installer.peerBytes
            let resumable = Self.isResumable(error)
            if !resumable {
                // Verification, storage and refusal failures leave nothing behind; network
                // failures keep what was verified so that the next attempt resumes.
                try? root.removeTree(staging)
                try? store.endDownload(entry.id)
            }
            // Stopped because no one waits for it any more: paused, not failed (and the pack's
            // own streams go on, to see it resume).
            let pausedByProgress = pauses.takePause(entry.id)
            broadcaster.send(resumable && (waiters.isAbandoned || pausedByProgress) ? .paused(pack) : .failed(pack, error))
            throw error
        }
    }

    /// The index bytes the store keeps for an installed pack: the pack file's own (`bytes`) when
    /// they hash to its digest, as they do for every unsealed pack; else (a sealed pack, whose
    /// bytes are sealed) the opened index encoded again with its file table at zstd level 1, since
    /// the store only decodes it. Encoding a million files' table again took 26 MB and a few tenths
    /// of a second at the end of every install.
    static func storedIndexBytes(_ index: PackIndex, bytes: [UInt8], digest: SHA256Digest) -> [UInt8] {
        !index.isSealed && SHA256Digest.hash(bytes) == digest ? bytes : index.encodedForStore()
    }

    /// Whether a failed download keeps its staging folder for the next attempt.
    private static func isResumable(_ error: any Error) -> Bool {
        switch error {
        case AssetPackManagerError.transport(let t):
            // A file the server does not have (or refuses) will not come back under this
            // name: the next catalog names another one.
            return t.isTransient || !(400..<500).contains(t.httpStatus ?? 0)
        case AssetPackManagerError.cancelled, is CancellationError: return true
        default: return false
        }
    }

    /// Makes a staged pack visible: one rename into `packs/`, then one transaction; the previous
    /// version's files go only after both, retired (renamed away now, deleted in the background).
    /// `unflushed`: the boot the files were written in when they were not flushed. `previousIndex`:
    /// the previous version's index as decoded for the download. `indexBytes`: the index's bytes as
    /// fetched or made, which the store keeps when they are the pack's own (`storedIndexBytes`).
    private func commit(_ entry: CatalogPack, index: PackIndex, indexBytes: [UInt8], stagingFiles: String, staging: String,
                        previous: InstalledPack?, previousIndex: PackIndex?, unflushed: BootSession?) throws {
        let directory = layout.installDirectory(id: entry.id, version: entry.version, digest: entry.digest)
        // The rename's change time, read back: every file verified into the folder was written
        // before it, and a write, link or rename of one after it gives that file a later one.
        // The rename waits for the clock's next tick past the last write, so that no file
        // written just before it shares its time (and would count as changed since).
        let committed = try StorageLayout.confined { () throws(ConfinementError) -> Int64 in
            _ = try root.directory(layout.versionsFolder(relativeOf: entry.id), create: true)
            if root.exists(directory), previous?.directory != directory { try? root.removeTree(directory) }
            _ = try root.directory(stagingFiles).renewChangeTimePastEarlierChanges()
            try root.rename(stagingFiles, to: directory)
            return (try? root.directory(directory))?.changeTime ?? 0
        }
        let now = configuration.now()
        let installed = InstalledPack(id: entry.id, version: entry.version, digest: entry.digest, directory: directory,
                                      downloadSize: entry.downloadSize, installSize: entry.installSize, language: entry.language,
                                      downloadPolicy: entry.downloadPolicy, installedAt: now, lastUsed: now,
                                      indexBytes: Self.storedIndexBytes(index, bytes: indexBytes, digest: entry.digest),
                                      indexOffset: entry.index.offset, committedChangeTime: committed, unflushed: unflushed)
        let replacing = previous.flatMap { old in
            previousIndex.map { ClientStore.ReplacedVersion(indexBytes: old.indexBytes, indexOffset: old.indexOffset, index: $0) }
        }
        try store.commitInstall(installed, paths: PackPaths(files: index.files), replacing: replacing)
        if unflushed != nil {
            var mark = installed
            mark.indexBytes = []   // only its ID and digest are needed
            Self.markFlushedAfterWriteback(mark, store: store, root: root, delay: configuration.writebackDelay)
        }
        // Keys are kept for the installed version only: the next update sealed under the same
        // key needs no key server, and a rotated key's predecessor is dropped.
        try store.keepContentKey(entry.sealed?.keyID, of: entry.id)
        if let previous, previous.directory != directory, let old = try? layout.checkedInstallDirectory(previous.directory, id: previous.id) {
            // The previous version's names of the files this one shares with it go first (no
            // block is freed), then the commit's change time is taken again: removing a name
            // moves the file's change time, which would otherwise fall after the commit and have
            // the next update read and hash every file this one linked.
            if (try? root.removeFilesWithOtherNames(in: old)) != nil, let renewed = try? root.directory(directory).renewChangeTimePastEarlierChanges() {
                try? store.setCommittedChangeTime(renewed, of: entry.id, digest: entry.digest)
            }
            retired.retire(old)
        }
        try? root.removeTree(staging)
        // What progressive reads of this or other versions placed is of no use now.
        _ = removeProgressiveFiles(of: entry.id, stoppingReads: false)
    }
}
