import AssetPacks   // `import BackgroundAssets` in the app this was written for; nothing else changed
import Foundation

/// An app's asset code written from Apple's Background Assets documentation, one function per
/// call the documentation shows. It compiles against `import AssetPacks` with only the import
/// line changed; `AppleParityTests` runs it against a real repository on loopback.
struct AppAssets {
    /// Apple's apps use the shared manager; the tests hand in one per repository.
    var manager: AssetPackManager = .shared

    // MARK: Asset packs (`AssetPack`, `manifest`)

    /// A pack looked up the 27.0 way: `assetPack(withID:)` on the manager is deprecated there in
    /// favour of the manifest, whose lookup returns nil for an unknown ID.
    func pack(_ id: String) async throws -> AssetPack {
        guard let pack = try await manager.manifest.assetPack(withID: id) else {
            throw ManagedBackgroundAssetsError.assetPackNotFound(withID: id)
        }
        return pack
    }

    /// The pack's identity and figures as Apple types them.
    func describe(_ id: String) async throws -> (id: String, version: Int, downloadSize: Int, language: Locale.Language?, userInfo: Data?, text: String) {
        let pack = try await pack(id)
        return (pack.id, pack.version, pack.downloadSize, pack.language, pack.userInfo, "\(pack)")
    }

    /// What the manifest offers (27.0).
    func offered() async throws -> (all: [String], localized: [String], french: [String], primary: Locale.Language?, languages: [Locale.Language], levels: AssetPack?) {
        let manifest = try await manager.manifest
        return (manifest.assetPacks.map(\.id).sorted(),
                manifest.localizedAssetPacks.map(\.id).sorted(),
                manifest.localizedAssetPacks(for: Locale.Language(identifier: "fr")).map(\.id).sorted(),
                manifest.primaryLanguage,
                manifest.availableLanguages,
                manifest.assetPack(withID: "Levels"))
    }

    // MARK: Status

    func isReady(_ id: String) async throws -> Bool {
        let pack = try await pack(id)
        let status = try await manager.status(relativeTo: pack)
        return status.contains(.downloaded) && status.contains(.upToDate)
    }

    func offlineStatus(_ id: String) async -> AssetPack.Status {
        await manager.localStatus(ofAssetPackWithID: id)
    }

    /// From synchronous code, as Apple's is `nonisolated` and does not throw.
    func canShowLevelsNow() -> Bool {
        manager.assetPackIsAvailableLocally(withID: "Levels")
    }

    // MARK: Downloads

    func download(_ id: String) async throws {
        let pack = try await pack(id)
        try await manager.ensureLocalAvailability(of: pack, requireLatestVersion: true)
    }

    /// The batch form (27.0): what worked and, for the rest, why not.
    func downloadAll(_ ids: [String]) async throws -> (ok: Set<String>, failed: [String: String]) {
        var packs: Set<AssetPack> = []
        for id in ids { packs.insert(try await pack(id)) }
        do {
            try await manager.ensureLocalAvailability(of: packs, requireLatestVersions: false)
            return (Set(ids), [:])
        } catch let error as AssetPackManager.LocalAvailabilityError {
            var failed: [String: String] = [:]
            for (pack, reason) in error.failures { failed[pack.id] = "\(reason)" }
            return (Set(error.successes.map(\.id)), failed)
        }
    }

    /// Follows a download, pausing it once through its `Progress` (cancelled twice: the second
    /// does nothing) and resuming it; the updates seen, by name.
    func downloadWithOnePause(_ id: String) async throws -> [String] {
        let pack = try await pack(id)
        let updates = manager.statusUpdates(forAssetPackWithID: id)
        let first = Task { try await manager.ensureLocalAvailability(of: pack) }
        var seen: [String] = []
        var pausedOnce = false
        for await update in updates {
            switch update {
            case .began: seen.append("began")
            case .downloading(_, let progress):
                if seen.last != "downloading" { seen.append("downloading") }
                if !pausedOnce {
                    pausedOnce = true
                    progress.cancel()
                    progress.cancel()
                }
            case .paused:
                seen.append("paused")
                _ = try? await first.value
                // Resumed where it stopped.
                Task { try await manager.ensureLocalAvailability(of: pack) }
            case .finished: seen.append("finished")
            case .failed(_, let error): seen.append("failed: \(error)")
            }
        }
        return seen
    }

    /// Every update until `count` packs finished, from the stream for all packs.
    func watchAll(untilFinished count: Int) async -> [String] {
        var finished: [String] = []
        for await update in manager.statusUpdates {
            if case .finished(let pack) = update { finished.append(pack.id) }
            if finished.count == count { break }
        }
        return finished.sorted()
    }

    @discardableResult
    func refresh() async throws -> (updatingIDs: Set<String>, removedIDs: Set<String>) {
        try await manager.checkForUpdates()
    }

    // MARK: Reading files

    func level() throws -> Data {
        try manager.contents(at: "Levels/level1.json")
    }

    func levelReadIntoMemory() throws -> Data {
        try manager.contents(at: "Levels/level1.json", searchingInAssetPackWithID: "Levels", options: [])
    }

    func levelBytes(count: Int) throws -> [UInt8] {
        let descriptor = try manager.descriptor(for: "Levels/level1.json", searchingInAssetPackWithID: "Levels")
        defer { try? descriptor.close() }
        var buffer = [UInt8](repeating: 0, count: count)
        let n = read(descriptor.rawValue, &buffer, count)
        return Array(buffer.prefix(max(n, 0)))
    }

    func levelURL() throws -> URL {
        try manager.url(for: "Levels/level1.json")
    }

    func greeting(in language: Locale.Language) throws -> (contents: Data, url: URL, firstByte: UInt8) {
        let data = try manager.contents(at: "Voices/hello.txt", asLocalizedFor: language)
        let url = try manager.url(for: "Voices/hello.txt", asLocalizedFor: language)
        let descriptor = try manager.descriptor(for: "Voices/hello.txt", asLocalizedFor: language)
        defer { try? descriptor.close() }
        var byte: UInt8 = 0
        _ = read(descriptor.rawValue, &byte, 1)
        return (data, url, byte)
    }

    /// The app lets the player choose the voice language, then brings the packs in line.
    func chooseVoiceLanguage(_ language: Locale.Language?) async throws -> [Locale.Language] {
        manager.resolvedLanguage = language
        try await manager.reconcilePreferredLanguages()
        return await manager.locallyAvailableLanguages
    }

    // MARK: 27.2

    func installedFigures(_ id: String) async throws -> (version: Int, logical: Int64, allocated: Int64) {
        let version = try manager.localVersion(ofAssetPackWithID: id)
        let logical = try await manager.localSize(ofAssetPackWithID: id, calculationMethod: .logical)
        let allocated = try await manager.localSize(ofAssetPackWithID: id, calculationMethod: .allocated)
        return (version, logical, allocated)
    }

    // MARK: Errors

    func missingFile() -> String {
        do {
            _ = try manager.contents(at: "Levels/missing.json")
            return "found"
        } catch ManagedBackgroundAssetsError.fileNotFound(let path) {
            return "fileNotFound \(path.string)"
        } catch {
            return "other: \(error)"
        }
    }

    func missingPack() async -> String {
        do {
            _ = try await (manager as any CatalogReadsBefore27).assetPack(withID: "NoSuchPack")
            return "found"
        } catch ManagedBackgroundAssetsError.assetPackNotFound(let id) {
            return "assetPackNotFound \(id)"
        } catch {
            return "other: \(error)"
        }
    }

    /// Code written for 26.x: the manager's own lookups, deprecated in 27.0 and still there.
    func before27(_ id: String) async throws -> (one: AssetPack, all: Set<String>) {
        let manager: any CatalogReadsBefore27 = manager
        return (try await manager.assetPack(withID: id), Set(try await manager.allAssetPacks.map(\.id)))
    }

    func remove(_ id: String) async throws {
        try await manager.remove(assetPackWithID: id)
    }
}

/// The app's downloader extension (Apple's is an app extension target; here the manager holds
/// it): large packs wait for a better moment.
struct DownloaderExtension: ManagedDownloaderExtension {
    func shouldDownload(_ assetPack: AssetPack) -> Bool {
        assetPack.downloadSize < 1_000_000
    }
}

/// One that keeps the default answer.
struct DefaultDownloaderExtension: ManagedDownloaderExtension {}

/// `AssetPack` has Apple's conformances.
func requireAppleConformances<T: Identifiable & Hashable & Sendable & CustomStringConvertible>(_: T.Type) -> Bool where T.ID == String { true }

/// The manager's catalog reads from Background Assets 26, which 27.0 deprecates (ours are
/// deprecated the same way). App code written for 26 compiles unchanged, with the warnings
/// Apple's SDK gives; the tests call them through this protocol to keep their build free of
/// those warnings.
protocol CatalogReadsBefore27 {
    func assetPack(withID id: String) async throws -> AssetPack
    var allAssetPacks: Set<AssetPack> { get async throws }
}

extension AssetPackManager: CatalogReadsBefore27 {}
