import AssetPackFormat
import AssetPackTransport
import Foundation

/// Installs, updates, reads and removes asset packs from a signed static repository, with the
/// shape of Apple's `AssetPackManager` so that code moves between the two with few changes.
///
/// ```swift
/// let manager = try AssetPackManager(configuration: .init(
///     repositoryURLs: ["https://cdn.example.com/packs/"], publicKey: try Ed25519PublicKey(text: key),
///     storageRoot: appSupport + "/AssetPacks"))
/// try await manager.handleInstallationEvent(.firstInstallation)   // essentials ready, prefetch started
/// let pack = try await manager.assetPack(withID: "World2")
/// try await manager.ensureLocalAvailability(of: pack)
/// let level = try await manager.contents(at: "Levels/World2/level1.json")
/// ```
///
/// One manager per storage root at a time: `init` takes an exclusive lock on the root (waiting
/// up to `Configuration.storageLockTimeout`), released when the manager is deinitialized or the
/// process ends.
///
/// Unlike Apple's, there is no `shared` manager and no system download daemon: an app makes one
/// with its `Configuration`, and downloads run while its process does.
public actor AssetPackManager {
    /// What the manager was made with.
    public nonisolated let configuration: Configuration
    let layout: StorageLayout
    /// The storage root: every path below it is opened through this (`ConfinedDirectory`).
    nonisolated let root: ConfinedDirectory
    let store: ClientStore
    let client: RepositoryClient
    let catalogClient: CatalogClient
    let languages: LanguageResolver
    /// Where `contents(at:)`, `url(for:)`, `descriptor(for:)` and `namespace()` look.
    let mergedNamespace: MergedNamespace
    nonisolated let broadcaster = StatusBroadcaster()
    /// Packs that open `AssetPackResourceRequest`s use: never evicted by the storage budget.
    nonisolated let resourcesInUse = ResourceUseCounter()
    /// Held for the manager's lifetime: no other manager uses this root meanwhile.
    let storageLock: StorageLock
    var catalog: Catalog?
    /// When `catalog` was fetched (or, offline, taken from the store), by `configuration.now()`.
    var catalogCheckedAt: Date?
    /// A catalog fetch under way, shared by everyone who needs the catalog meanwhile.
    var catalogRefresh: WaiterGroup<Catalog>?
    /// Downloads under way, shared by everyone who asks for the same pack.
    var inFlight: [String: InFlightDownload] = [:]
    /// Packs past the first check of the limits whose index is being fetched: they count as
    /// downloading for the limits of the others meanwhile.
    var admitting: [String: AssetPack] = [:]
    /// Index fetches under way (by pack ID and digest), shared by the callers that admit one pack.
    var indexFetches: [String: WaiterGroup<FetchedIndex>] = [:]
    /// Network bytes fetched by installs of this manager (for the resume figure). Not in Apple's
    /// API.
    public internal(set) var fetchedBytes: UInt64 = 0 { didSet { fetchedBytesMirror.store(fetchedBytes) } }
    private nonisolated let fetchedBytesMirror = FetchedBytesMirror()
    /// `fetchedBytes`, read without waiting for the manager: the agent's `GET /v1/status` answers
    /// at once while a download holds the manager.
    public nonisolated var fetchedBytesNow: UInt64 { fetchedBytesMirror.load() }

    /// Makes a manager on `configuration.storageRoot`: checks the repository URLs against the
    /// allow-list, creates and locks the root (waiting up to `storageLockTimeout` for another
    /// manager to let go of it), opens the store and cleans up what a crash left. Does not touch
    /// the network. Apple's manager is the system's `shared` one instead.
    public init(configuration: Configuration) throws {
        guard !configuration.repositoryURLs.isEmpty else { throw AssetPackManagerError.invalidConfiguration("no repository URL") }
        if let problem = SettingBounds.problem("parallelDownloads.parts", configuration.parallelDownloads.parts, in: SettingBounds.downloadParts) {
            throw AssetPackManagerError.invalidConfiguration(problem)
        }
        let allowList = DomainAllowList(configuration.allowedDomains)
        for url in configuration.repositoryURLs { try allowList.check(url) }
        self.configuration = configuration
        layout = StorageLayout(root: configuration.storageRoot)
        root = try layout.openRoot()
        // Before anything reads or cleans the root: another manager may be using it.
        storageLock = try StorageLock(layout: layout, root: root, timeout: configuration.storageLockTimeout)
        try layout.checkStoreFiles(in: root)
        store = try ClientStore(path: layout.database)
        let network: any HTTPTransport
        if let t = configuration.transport { network = t } else {
            do { network = try CurlTransport(caFile: configuration.caFile) } catch { throw AssetPackManagerError.transport(error) }
        }
        // A repository folder (`file://`) is read in place beside the HTTP mirrors.
        let transport = SchemeRoutingTransport(network: network)
        client = RepositoryClient(mirrors: configuration.repositoryURLs, transport: transport, allowList: allowList,
                                  retry: configuration.retryPolicy, limits: configuration.networkLimits)
        catalogClient = CatalogClient(client: client, verifier: CatalogVerifier(publicKey: configuration.publicKey), store: store,
                                      anchor: try TrustAnchor.configured(configuration))
        languages = LanguageResolver(preferred: configuration.preferredLanguages, primary: configuration.primaryLanguage)
        mergedNamespace = MergedNamespace(store: store, layout: layout, root: root, languages: languages)
        try Self.reconcile(layout: layout, root: root, store: store)
    }

    // MARK: Status

    /// Where `assetPack` stands on this device against that description of it (Apple's
    /// `status(relativeTo:)`; never touches the network).
    public func status(relativeTo assetPack: AssetPack) throws -> AssetPack.Status {
        var status: AssetPack.Status = []
        let pending = try store.pendingDownload(assetPack.id)
        if inFlight[assetPack.id] != nil || pending != nil { status.insert(.downloading) }
        guard let installed = try store.installedPack(assetPack.id) else { return status.union(.downloadAvailable) }
        status.insert(.downloaded)
        if installed.version >= assetPack.version { status.insert(.upToDate) } else { status.formUnion([.updateAvailable, .outOfDate]) }
        return status
    }

    /// The status of the pack with this ID against the catalog (obsolete when the catalog no
    /// longer lists an installed pack). Uses the cached catalog when offline. Apple's
    /// `localStatus(ofAssetPackWithID:)`, which never fetches and does not throw; this one reads
    /// the catalog as `assetPack(withID:)` does and throws `assetPackNotFound` for a pack neither
    /// the catalog nor the device knows — or, when no catalog was ever accepted and none can be
    /// fetched (a first launch offline), the error of the fetch.
    public func localStatus(ofAssetPackWithID id: String) async throws -> AssetPack.Status {
        var fetchError: (any Error)?
        var catalog: Catalog?
        do { catalog = try await currentCatalog() } catch { fetchError = error }
        let cachedOrFresh: Catalog? = if let catalog { catalog } else { try catalogClient.cached(now: configuration.now(), allowExpired: true) }
        if let p = cachedOrFresh?.pack(withID: id) { return try status(relativeTo: AssetPack(p)) }
        var status: AssetPack.Status = []
        if (try store.installedPack(id)) != nil { status.formUnion([.downloaded, .obsolete]) }
        if inFlight[id] != nil { status.insert(.downloading) }
        if status.isEmpty, cachedOrFresh == nil, let fetchError {
            // No catalog was ever accepted (a first launch offline): what failed is the fetch,
            // not the pack's ID.
            throw fetchError
        }
        guard !status.isEmpty else { throw AssetPackManagerError.assetPackNotFound(withID: id) }
        return status
    }

    /// Whether some version of the pack is installed (Apple's
    /// `assetPackIsAvailableLocally(withID:)`, which is `nonisolated` and does not throw).
    public func assetPackIsAvailableLocally(withID id: String) throws -> Bool {
        try store.installedPack(id) != nil
    }

    /// Updates of every pack's downloads; the stream never ends (stop iterating to leave it).
    /// Apple's `statusUpdates`.
    public nonisolated var statusUpdates: AsyncStream<DownloadStatusUpdate> { broadcaster.stream() }

    /// Updates for one pack; ends after its finished or failed update (Apple's
    /// `statusUpdates(forAssetPackWithID:)`).
    public nonisolated func statusUpdates(forAssetPackWithID id: String) -> AsyncStream<DownloadStatusUpdate> {
        broadcaster.stream(forAssetPackWithID: id)
    }

    /// A download under way: the catalog's pack, the task that runs it, and the callers waiting
    /// for it (when they all leave, its installer stops and the download pauses).
    struct InFlightDownload {
        var pack: AssetPack
        var task: Task<Void, Never>
        var waiters: WaiterGroup<Void>
    }

    /// Runs blocking work (network, disk) on a thread of its own, off the actor and off Swift's
    /// small cooperative pool.
    nonisolated func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let t = Thread { continuation.resume(with: Result { try work() }) }
            t.stackSize = 4 << 20
            t.start()
        }
    }
}

/// A copy of `AssetPackManager.fetchedBytes` that any thread may read.
private final class FetchedBytesMirror: @unchecked Sendable {
    private let lock = NSLock()
    private var value: UInt64 = 0
    func store(_ new: UInt64) { lock.withLock { value = new } }
    func load() -> UInt64 { lock.withLock { value } }
}
