import Foundation

extension AssetPackManager {
    /// Sets how much an installed pack should be kept when the storage budget
    /// (`Configuration.storageBudget`) needs room: 0…1, packs of lower priority are evicted
    /// first (ties: the least recently used first). Packs that never had one have 0.5. The
    /// priority is stored with the pack and kept across its updates (ODR's
    /// `setPreservationPriority(_:forTags:)`).
    public func setPreservationPriority(_ priority: Double, forAssetPackWithID id: String) async throws {
        try requireConfigured()
        if let agent { return try await agent.connection.setPreservationPriority(priority, forAssetPackWithID: id) }
        guard priority.isFinite, (0...1).contains(priority) else {
            throw AssetPackManagerError.invalidPreservationPriority(priority, assetPackID: id)
        }
        guard try store.setPreservationPriority(priority, of: id) else { throw AssetPackManagerError.assetPackNotFound(withID: id) }
    }

    /// The preservation priority of an installed pack (0…1; 0.5 unless set); `assetPackNotFound`
    /// when it is not installed. ODR had no getter.
    public func preservationPriority(ofAssetPackWithID id: String) async throws -> Double {
        try requireConfigured()
        if let agent { return try await agent.connection.preservationPriority(ofAssetPackWithID: id) }
        guard let installed = try store.installedPack(id) else { throw AssetPackManagerError.assetPackNotFound(withID: id) }
        return installed.preservationPriority
    }
}
