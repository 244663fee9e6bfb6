import AssetPackFormat
import Foundation

extension AssetPackManager {
    /// The catalog the manager holds while it is younger than `configuration.catalogMaxAge`
    /// (by `configuration.now()`); otherwise fetched (and checked) again. Offline, the last
    /// accepted catalog while it has not expired.
    func currentCatalog() async throws -> Catalog {
        if let catalog, let checkedAt = catalogCheckedAt,
           abs(configuration.now().timeIntervalSince(checkedAt)) < configuration.catalogMaxAge.timeInterval {
            return catalog
        }
        return try await refreshCatalog()
    }

    /// Fetches the catalog now. Callers that come while a fetch is under way share it; a caller
    /// whose task is cancelled stops waiting (`CancellationError`) and the fetch goes on.
    @discardableResult
    func refreshCatalog() async throws -> Catalog {
        if let running = catalogRefresh, let key = running.register() { return try await running.wait(key) }
        let waiters = WaiterGroup<Catalog>()
        guard let key = waiters.register() else { throw CancellationError() }
        catalogRefresh = waiters
        Task {
            let outcome = await fetchCatalog()
            catalogRefresh = nil
            waiters.complete(outcome)
        }
        return try await waiters.wait(key)
    }

    /// One fetch: the repository's catalog, or offline the last accepted one while it is valid.
    private func fetchCatalog() async -> Result<Catalog, any Error> {
        let catalogClient = self.catalogClient
        let now = configuration.now()
        do {
            let fresh = try await offload { try catalogClient.refresh(now: now) }
            hold(fresh, checkedAt: now)
            return .success(fresh)
        } catch AssetPackManagerError.transport(let error) {
            // Offline: the last accepted catalog while it is valid (asked for again after
            // catalogMaxAge, like a fetched one); otherwise the network is what failed (an
            // expired cache is no reason to blame the catalog).
            guard let cached = try? catalogClient.cached(now: now, allowExpired: false) else {
                return .failure(AssetPackManagerError.transport(error))
            }
            hold(cached, checkedAt: now)
            return .success(cached)
        } catch {
            return .failure(error)
        }
    }

    private func hold(_ fresh: Catalog, checkedAt: Date) {
        catalog = fresh
        catalogCheckedAt = checkedAt
    }

    /// In root mode, how fresh the view of the repository is: the root, timestamp and catalog
    /// versions last accepted, when the repository last vouched for them online and whether that
    /// timestamp has expired (offline, the client goes on with its last view and this says how
    /// stale it is). nil in single-key mode or before the first accepted catalog. Never touches
    /// the network. Not in Apple's API. Through the agent, `invalidConfiguration`: the agent
    /// holds that view (`assetpack status --root DIR` prints it).
    public func repositoryFreshness() throws -> RepositoryFreshness? {
        try requireConfigured()
        guard agent == nil else {
            throw AssetPackManagerError.invalidConfiguration("repositoryFreshness() is not available through the agent; `assetpack status --root DIR` prints the agent's view")
        }
        return try catalogClient.freshness(now: configuration.now())
    }

    /// The pack with this ID in the catalog (Apple's `assetPack(withID:)`, deprecated in
    /// Background Assets 27.0 in favour of `manifest`).
    @available(*, deprecated, message: "Background Assets 27.0 deprecates it: use `manifest.assetPack(withID:)`")
    public func assetPack(withID id: String) async throws -> AssetPack {
        try await catalogPack(withID: id)
    }

    /// Every pack in the catalog (Apple's `allAssetPacks`, deprecated in Background Assets 27.0
    /// in favour of `manifest`).
    @available(*, deprecated, message: "Background Assets 27.0 deprecates it: use `manifest.assetPacks`")
    public var allAssetPacks: Set<AssetPack> {
        get async throws { try await catalogPacks }
    }

    /// The pack with this ID in the catalog, fetched again when the one held is older than
    /// `configuration.catalogMaxAge`; `assetPackNotFound` when the catalog has none. What the
    /// deprecated `assetPack(withID:)` returns, for this package's own commands and tests.
    package func catalogPack(withID id: String) async throws -> AssetPack {
        try requireConfigured()
        if let agent { return try await agent.assetPack(withID: id) }
        guard let p = try await currentCatalog().pack(withID: id) else { throw AssetPackManagerError.assetPackNotFound(withID: id) }
        return AssetPack(p)
    }

    /// Every pack in the catalog, read as `catalogPack(withID:)` reads it (what the deprecated
    /// `allAssetPacks` returns).
    package var catalogPacks: Set<AssetPack> {
        get async throws {
            try requireConfigured()
            if let agent { return try await agent.allAssetPacks() }
            return Set(try await currentCatalog().packs.map(AssetPack.init))
        }
    }
}

extension Duration {
    /// The duration in seconds, as Foundation counts time.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
