import AssetPackFormat
import Foundation

extension AssetPackManager {
    /// The first half of `AssetPackResourceRequest.beginAccessingResources()`: resolves `tags`
    /// against the catalog and the installed packs, marks every pack they need in use (from here
    /// on the storage budget leaves them alone), touches the installed ones and returns the
    /// catalog's packs that still have to be downloaded. Offline, tags whose packs are all
    /// installed still succeed; otherwise the catalog's error is thrown. Nothing stays marked
    /// when this throws.
    func beginUsingResources(forTags tags: Set<String>, mapping: ResourceTagMapping) async throws -> (ids: Set<String>, missing: [AssetPack]) {
        try requireConfigured()
        if agent != nil {
            let (installed, packs) = try await agentPacks()
            let ids = try mapping.packIDs(forTags: tags, among: Set(packs.keys))
            resourcesInUse.retain(ids)
            return (ids, ids.subtracting(installed).sorted().compactMap { packs[$0] })
        }
        var catalogError: (any Error)?
        let catalog: Catalog?
        do { catalog = try await currentCatalog() } catch { catalog = nil; catalogError = error }
        // No suspension from here on: what is installed now is what gets marked.
        let installed = Set(try store.installedPacks().map(\.id))
        let ids: Set<String>
        do { ids = try mapping.packIDs(forTags: tags, among: installed.union(catalog?.packs.map(\.id) ?? [])) } catch {
            throw catalogError ?? error
        }
        var missing: [AssetPack] = []
        for id in ids.subtracting(installed).sorted() {
            if let catalogError { throw catalogError }
            guard let entry = catalog?.pack(withID: id) else { throw AssetPackManagerError.assetPackNotFound(withID: id) }
            missing.append(AssetPack(entry))
        }
        resourcesInUse.retain(ids)
        for id in ids.intersection(installed) { try? store.touch(id, at: configuration.now()) }
        return (ids, missing)
    }

    /// `conditionallyBeginAccessingResources()`: when every pack `tags` need is installed, marks
    /// them in use and returns their IDs; otherwise nil. Never downloads and never fetches the
    /// catalog (the one held or the cached one, even expired, names the packs).
    func beginUsingInstalledResources(forTags tags: Set<String>, mapping: ResourceTagMapping) async -> Set<String>? {
        guard unavailable == nil else { return nil }
        if agent != nil {
            guard let (installed, packs) = try? await agentPacks(), let ids = try? mapping.packIDs(forTags: tags, among: Set(packs.keys)),
                  ids.isSubset(of: installed) else { return nil }
            resourcesInUse.retain(ids)
            return ids
        }
        guard let (installed, known) = try? locallyKnownPackIDs(), let ids = try? mapping.packIDs(forTags: tags, among: known),
              ids.isSubset(of: installed) else { return nil }
        resourcesInUse.retain(ids)
        for id in ids { try? store.touch(id, at: configuration.now()) }
        return ids
    }

    /// Sets the preservation priority (0…1) of every installed pack that holds resources of
    /// `tags` (ODR's `Bundle.setPreservationPriority(_:forTags:)`). Packs not installed yet are
    /// skipped: the priority lives with an installed pack, so set it again after they arrive.
    public func setPreservationPriority(_ priority: Double, forTags tags: Set<String>) async throws {
        try requireConfigured()
        guard priority.isFinite, (0...1).contains(priority) else {
            throw AssetPackManagerError.invalidPreservationPriority(priority, assetPackID: "tags " + tags.sorted().joined(separator: ", "))
        }
        let installed: Set<String>, known: Set<String>
        if agent != nil {
            let (ids, packs) = try await agentPacks()
            (installed, known) = (ids, Set(packs.keys))
        } else {
            (installed, known) = try locallyKnownPackIDs()
        }
        let ids = try configuration.resourceTagMapping.packIDs(forTags: tags, among: known)
        for id in ids.intersection(installed).sorted() { try await setPreservationPriority(priority, forAssetPackWithID: id) }
    }

    /// Through the agent: the IDs of its installed packs, and every pack it knows by ID.
    private func agentPacks() async throws -> (installed: Set<String>, packs: [String: AssetPack]) {
        let packs = try await agent!.connection.allAssetPacks()
        return (Set(packs.filter { $0.assetPackStatus.contains(.downloaded) }.map(\.id)),
                Dictionary(packs.map { ($0.id, $0.assetPack) }, uniquingKeysWith: { a, _ in a }))
    }

    /// The installed packs' IDs, and those with the IDs of the catalog held or cached (even
    /// expired): what tags resolve against without fetching anything.
    private func locallyKnownPackIDs() throws -> (installed: Set<String>, known: Set<String>) {
        let installed = Set(try store.installedPacks().map(\.id))
        let cached = catalog ?? (try? catalogClient.cached(now: configuration.now(), allowExpired: true)) ?? nil
        return (installed, installed.union(cached?.packs.map(\.id) ?? []))
    }
}
