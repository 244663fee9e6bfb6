extension AssetPackManager {
    /// Where the bytes of the latest install of pack `id` came from, source by source (mirrors,
    /// patches, seed folders, the copy already on disk); while it runs, the figures so far. Nil
    /// when this manager (or, through the agent, the agent) has not installed the pack since it
    /// started. Not in Apple's API.
    public func sources(ofAssetPackWithID id: String) async throws -> AssetPackSources? {
        if let agent { return try await agent.connection.assetPack(withID: id).sources }
        guard let delivery = deliveries[id] else { return nil }
        return delivery.sources.snapshot(id: id, version: delivery.version)
    }


    /// `sources(ofAssetPackWithID:)` of every pack this manager installed (or is installing)
    /// since it started, by pack ID. In process only (through the agent: empty; ask per pack).
    public func sourcesOfInstalls() -> [AssetPackSources] {
        deliveries.keys.sorted().map { id in deliveries[id]!.sources.snapshot(id: id, version: deliveries[id]!.version) }
    }
}
