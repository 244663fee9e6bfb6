import AssetPackFormat

extension AssetPackManager {
    /// The packs `handleInstallationEvent(event)` would download, from a fresh catalog, without
    /// downloading them: the essential ones (the install step waits for them) and the prefetch
    /// ones (they go on in the background), with localized variants chosen by the user's
    /// languages. For a caller that schedules the downloads itself (the agent queues each one).
    public func installationPlan(for event: InstallationEventType) async throws -> (essential: [AssetPack], prefetch: [AssetPack]) {
        try requireConfigured()
        if let agent { return try await agent.installationPlan(for: event) }
        let catalog = try await refreshCatalog()
        let packs = languages.chooseVariants(catalog.packs.filter { $0.downloadPolicy.installationEventTypes.contains(event) })
        let essential = packs.filter { if case .essential = $0.downloadPolicy { return true }; return false }.map(AssetPack.init)
        let prefetch = packs.filter { if case .prefetch = $0.downloadPolicy { return true }; return false }.map(AssetPack.init)
        return (essential.sorted { $0.id < $1.id }, prefetch.sorted { $0.id < $1.id })
    }
}
