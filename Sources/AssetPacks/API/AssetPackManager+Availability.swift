import AssetPackFormat
import AssetPackTransport
import Foundation

extension AssetPackManager {
    /// Makes the pack available locally: downloads it when it is not installed (or, with
    /// `requireLatestVersion`, when the installed version is older than this one). Concurrent
    /// calls for one pack share one download. Returns when the pack is installed.
    ///
    /// Cancelling the calling task ends this call at once with `CancellationError`; the download
    /// goes on for other callers. When every caller has been cancelled, the download stops,
    /// keeps what it verified (the next call resumes there) and `.paused` is sent.
    ///
    /// Apple's `ensureLocalAvailability(of:requireLatestVersion:)`.
    public func ensureLocalAvailability(of assetPack: AssetPack, requireLatestVersion: Bool = false) async throws {
        try requireConfigured()
        if let agent { return try await agent.ensureLocalAvailability(of: assetPack, requireLatestVersion: requireLatestVersion) }
        if let installed = try store.installedPack(assetPack.id), !requireLatestVersion || installed.version == assetPack.version {
            try store.touch(assetPack.id, at: configuration.now())
            return
        }
        try await download(assetPack)
    }

    /// The batch form: every pack is attempted; a partial failure throws
    /// `LocalAvailabilityError` with what succeeded and what failed (Apple's
    /// `ensureLocalAvailability(of:requireLatestVersions:)`). Cancelling the calling task
    /// cancels each pack's call (downloads no one else waits for pause) and throws
    /// `CancellationError`; packs installed before that stay installed.
    public func ensureLocalAvailability(of assetPacks: Set<AssetPack>, requireLatestVersions: Bool = false) async throws {
        var successes: Set<AssetPack> = []
        var failures: [AssetPack: any Error] = [:]
        await withTaskGroup(of: (AssetPack, (any Error)?).self) { group in
            for pack in assetPacks.sorted(by: { $0.id < $1.id }) {
                group.addTask {
                    do { try await self.ensureLocalAvailability(of: pack, requireLatestVersion: requireLatestVersions); return (pack, nil) }
                    catch { return (pack, error) }
                }
            }
            for await (pack, error) in group {
                if let error { failures[pack] = error } else { successes.insert(pack) }
            }
        }
        try Task.checkCancellation()
        if !failures.isEmpty {
            throw LocalAvailabilityError(successes: successes, failures: failures)
        }
    }

    /// The install step. Downloads every essential pack whose installation events include
    /// `event` and returns when they are installed; starts the prefetch packs for `event`, which
    /// go on in the background (their task is returned). On-demand packs are left alone.
    /// Among localized variants only the best match for the user's languages is taken.
    ///
    /// Cancelling the returned task pauses the prefetch downloads (it ends with
    /// `CancellationError`). Cancelling the calling task while essentials download pauses them
    /// and cancels the prefetch task too (the caller never gets it).
    ///
    /// Apple's system takes this step itself when the app is installed or updated; here the app
    /// calls it (at launch) with the event that applies.
    @discardableResult
    public func handleInstallationEvent(_ event: InstallationEventType) async throws -> Task<Void, any Error> {
        try requireConfigured()
        if let agent { return try await agent.handleInstallationEvent(event, broadcaster: broadcaster) }
        let (essential, prefetch) = try await installationPlan(for: event)
        let background = Task {
            try await self.ensureLocalAvailability(of: Set(prefetch), requireLatestVersions: true)
        }
        if !essential.isEmpty {
            try await withTaskCancellationHandler {
                try await ensureLocalAvailability(of: Set(essential), requireLatestVersions: true)
            } onCancel: { background.cancel() }
        }
        return background
    }

    /// Fetches the catalog, starts updating the installed packs that have a newer version (by
    /// delta: only the chunks that changed are downloaded) and removes installed packs the
    /// catalog dropped (Apple's `checkForUpdates()`). Returns once the removals are done and the
    /// updates have started: the IDs being updated and the IDs removed by this call. Follow the
    /// updates on `statusUpdates` (a refused or failed one ends with `.failed`);
    /// `installUpdates()` waits for them instead. Through the agent, the agent runs them.
    @discardableResult
    public func checkForUpdates() async throws -> (updatingIDs: Set<String>, removedIDs: Set<String>) {
        try requireConfigured()
        if let agent { return try await agent.checkForUpdates() }
        let (updates, removed) = try await refreshAndRemove()
        for pack in updates {
            // The update's outcome reaches `statusUpdates`; no caller waits for it here.
            Task { try? await self.download(pack) }
        }
        return (Set(updates.map(\.id)), Set(removed))
    }

    /// `checkForUpdates()` that returns once the updates are installed, with the packs updated
    /// and the IDs removed; the first failure is thrown. Not in Apple's API (the CLI's
    /// `assetpack update`).
    @discardableResult
    public func installUpdates() async throws -> (updated: [AssetPack], removed: [String]) {
        try requireConfigured()
        if let agent { return try await agent.installUpdates() }
        let (updates, removed) = try await refreshAndRemove()
        for pack in updates { try await download(pack) }
        return (updates, removed)
    }

    /// Fetches the catalog, removes the installed packs it dropped and returns the installed
    /// packs it has newer versions of, with the IDs removed.
    private func refreshAndRemove() async throws -> (updates: [AssetPack], removed: [String]) {
        let catalog = try await refreshCatalog()
        var updates: [AssetPack] = []
        var removed: [String] = []
        for installed in try store.installedPacks() {
            guard let p = catalog.pack(withID: installed.id) else {
                try await remove(assetPackWithID: installed.id)
                removed.append(installed.id)
                continue
            }
            // Another pack digest is an update whichever way its version went: a rollback or a
            // channel switch serves earlier content as a catalog that is itself newer.
            if p.digest != installed.digest { updates.append(AssetPack(p)) }
        }
        return (updates, removed)
    }

    /// Removes an installed pack and its files, and stops and drops a download of it under way
    /// (Apple's `remove(assetPackWithID:)`). `assetPackNotFound` when there was neither.
    public func remove(assetPackWithID id: String) async throws {
        try requireConfigured()
        if let agent { return try await agent.remove(assetPackWithID: id) }
        if let download = inFlight[id] { download.task.cancel(); await download.task.value }
        // A download that was stopped (an update of an installed pack, too) goes with the pack.
        let pending = try store.pendingDownload(id)
        if let pending {
            // A folder read back from the store is used only in the form the layout gives it.
            let staging = try layout.checkedStagingDirectory(pending.staging, id: id)
            try store.endDownload(id)
            try? root.removeTree(staging)
        }
        // Progressive reads of the pack stop, and the files they placed go.
        let progressive = removeProgressiveFiles(of: id, stoppingReads: true)
        guard let installed = try store.installedPack(id) else {
            if pending != nil || progressive { return }
            throw AssetPackManagerError.assetPackNotFound(withID: id)
        }
        try uninstall(installed)
    }

    /// Removes an installed pack's store rows (its namespace paths with them), then its files
    /// (retired: gone from `packs/` at once, deleted in the background).
    /// A folder the store records in another form than the layout's is refused (nothing is
    /// removed): a tampered row could name any folder.
    func uninstall(_ installed: InstalledPack) throws {
        let directory = try layout.checkedInstallDirectory(installed.directory, id: installed.id)
        try store.removeInstalled(installed.id)
        retired.retire(directory)
        root.removeEmptyFolder(layout.versionsFolder(relativeOf: installed.id))
    }

    /// Waits until the folders this process retired (superseded versions, removed packs) are
    /// deleted. An app need not call it: they are deleted in the background, and what is left
    /// when the process exits is deleted by the next manager on the root. `assetpack remove`
    /// calls it, so that the space it reports freed is free when it returns.
    public static func waitUntilRetiredFoldersAreDeleted() {
        RetiredFolders.waitUntilDeleted()
    }

    /// The storage roots whose retired folders this process has not finished deleting (empty
    /// when nothing is pending): a command-line tool about to exit hands them to a process of
    /// its own (`deleteRetiredFolders(inRootAt:)`) instead of making its caller wait.
    public static func rootsWithRetiredFoldersPending() -> [String] {
        RetiredFolders.rootsStillDeleting()
    }

    /// Deletes every retired folder of the storage root at `path` and returns when done. Takes
    /// no lock: nothing reads `retired/`, and its names are never reused. Links there are
    /// removed, never followed.
    public static func deleteRetiredFolders(inRootAt path: String) throws {
        let root: ConfinedDirectory
        do { root = try ConfinedDirectory(root: path) } catch { throw AssetPackManagerError.invalidConfiguration("storage root \(path): \(error)") }
        RetiredFolders.deleteAll(root: root, layout: StorageLayout(root: path))
    }
}
