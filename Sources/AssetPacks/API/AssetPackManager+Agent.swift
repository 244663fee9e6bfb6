import AssetPackFormat
import Foundation

/// The manager's calls when `Configuration.delivery` goes through the agent: each public entry
/// point hands its call here first. The answers are the in-process manager's types; the
/// agent's error replies come back as the `AssetPackManagerError` they stand for.
extension AgentDelivery {
    func assetPack(withID id: String) async throws -> AssetPack {
        try await connection.assetPack(withID: id).assetPack
    }

    func allAssetPacks() async throws -> Set<AssetPack> {
        Set(try await connection.allAssetPacks().map(\.assetPack))
    }

    func ensureLocalAvailability(of assetPack: AssetPack, requireLatestVersion: Bool) async throws {
        await subscribed()
        try await connection.ensureLocalAvailability(ofAssetPackWithID: assetPack.id, requireLatestVersion: requireLatestVersion)
    }

    /// The install step run by the agent: returns once the essential packs are installed; the
    /// returned task ends when every prefetch pack has (its failures as `batch`). The agent owns
    /// the prefetch downloads: cancelling the task stops waiting for them, not them.
    func handleInstallationEvent(_ event: InstallationEventType, broadcaster: StatusBroadcaster) async throws -> Task<Void, any Error> {
        await subscribed()
        // Open before the agent queues anything: no outcome of a prefetch pack is missed.
        let updates = broadcaster.stream()
        let plan = try await connection.handleInstallationEvent(event)
        let connection = self.connection
        return Task {
            var waiting: [String: AssetPack] = [:]
            var successes: Set<AssetPack> = [], failures: [AssetPack: any Error] = [:]
            for id in plan.prefetch {
                let description = try await connection.assetPack(withID: id)
                switch description.request {
                case nil where !description.assetPackStatus.contains(.downloading): successes.insert(description.assetPack)
                case "skipped"?: failures[description.assetPack] = AssetPackManagerError.downloadDeclined(assetPackID: id)
                case "failed"?: failures[description.assetPack] = AgentError.remote(status: 0, kind: "failed", message: description.error ?? "failed")
                default: waiting[id] = description.assetPack
                }
            }
            // A pack that finished meanwhile has its update in the stream (opened before).
            if !waiting.isEmpty {
                for await update in updates {
                    guard let pack = waiting[update.assetPack.id] else { continue }
                    switch update {
                    case .finished(let p): successes.insert(p); waiting[pack.id] = nil
                    case .failed(let p, let error): failures[p] = error; waiting[pack.id] = nil
                    case .paused(let p):
                        // Paused for good (cancelled through the agent), or only yielding its slot.
                        if (try? await connection.assetPack(withID: p.id))?.request == "paused" {
                            failures[p] = AssetPackManagerError.cancelled
                            waiting[pack.id] = nil
                        }
                    default: break
                    }
                    if waiting.isEmpty { break }
                }
            }
            try Task.checkCancellation()
            if !failures.isEmpty {
                throw AssetPackManager.LocalAvailabilityError(successes: successes, failures: failures)
            }
        }
    }

    func installationPlan(for event: InstallationEventType) async throws -> (essential: [AssetPack], prefetch: [AssetPack]) {
        let plan = try await connection.installationPlan(for: event)
        let packs = Dictionary(try await connection.allAssetPacks().map { ($0.id, $0.assetPack) }, uniquingKeysWith: { a, _ in a })
        func described(_ ids: [String]) throws -> [AssetPack] {
            try ids.map { id in
                guard let p = packs[id] else { throw AssetPackManagerError.assetPackNotFound(withID: id) }
                return p
            }.sorted { $0.id < $1.id }
        }
        return (try described(plan.essential), try described(plan.prefetch))
    }

    func checkForUpdates() async throws -> (updatingIDs: Set<String>, removedIDs: Set<String>) {
        await subscribed()
        let result = try await connection.checkForUpdates(detached: true)
        return (Set(result.updated.map(\.id)), Set(result.removed))
    }

    func installUpdates() async throws -> (updated: [AssetPack], removed: [String]) {
        await subscribed()
        let result = try await connection.checkForUpdates()
        return (result.updated.map(\.assetPack), result.removed)
    }

    func remove(assetPackWithID id: String) async throws {
        await subscribed()
        try await connection.remove(assetPackWithID: id)
    }

    /// Where `assetPack` stands on the agent's root against that description of it.
    func status(relativeTo assetPack: AssetPack) async throws -> AssetPack.Status {
        let description = try await connection.assetPack(withID: assetPack.id)
        let known = description.assetPackStatus
        var status = known.intersection(.downloading)
        guard let installed = description.installedVersion else {
            // An agent that does not say which version is installed: its status, against its catalog.
            return known.contains(.downloaded) ? known : status.union(.downloadAvailable)
        }
        status.insert(.downloaded)
        if installed == assetPack.version { status.insert(.upToDate) } else { status.formUnion([.updateAvailable, .outOfDate]) }
        return status
    }

    func localStatus(ofAssetPackWithID id: String) async throws -> AssetPack.Status {
        try await connection.assetPack(withID: id).assetPackStatus
    }

    func assetPackIsAvailableLocally(withID id: String) async throws -> Bool {
        do { return try await connection.assetPack(withID: id).assetPackStatus.contains(.downloaded) }
        catch AssetPackManagerError.assetPackNotFound { return false }
    }

    /// The file, memory-mapped here: the agent says where it is (and records the use).
    func contents(at path: String, searchingInAssetPackWithID id: String?) async throws -> Data {
        let url = try await connection.url(for: path, searchingInAssetPackWithID: id)
        do { return try Data(contentsOf: url, options: .alwaysMapped) } catch {
            throw AssetPackManagerError.storage("cannot read \(url.path): \(error.localizedDescription)")
        }
    }

    func namespace() async throws -> [(path: String, packIDs: [String])] {
        try await connection.namespace().map { ($0.path, $0.packs) }
    }
}
