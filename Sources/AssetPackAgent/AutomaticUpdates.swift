import AssetPacks
import Foundation

/// Apple's "the system keeps packs up to date": every `interval` the agent checks the catalog,
/// queues an update (by delta, as a background request the should-download hook decides on)
/// for each installed pack with a newer version, and removes installed packs the catalog
/// dropped. It sleeps in between (a timer, no polling); a failed check waits for the next one.
final class AutomaticUpdates: Sendable {
    private let task: Task<Void, Never>

    init(interval: Duration, manager: AssetPackManager, scheduler: DownloadScheduler) {
        task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                try? await Self.check(manager: manager, scheduler: scheduler)
            }
        }
    }

    func cancel() { task.cancel() }

    static func check(manager: AssetPackManager, scheduler: DownloadScheduler) async throws {
        let catalog = try await manager.catalogPacks
        for pack in catalog.sorted(by: { $0.id < $1.id }) where try await manager.status(relativeTo: pack).contains(.updateAvailable) {
            _ = try scheduler.ensure(pack.id, requireLatestVersion: true, priority: .update, background: true)
        }
        let listed = Set(catalog.map(\.id))
        let installed = Set(try await manager.namespace().flatMap(\.packIDs))
        for id in installed.subtracting(listed).sorted() where await manager.localStatus(ofAssetPackWithID: id).contains(.obsolete) {
            _ = try? scheduler.cancel(id, forget: true)
            try await manager.remove(assetPackWithID: id)
        }
    }
}
