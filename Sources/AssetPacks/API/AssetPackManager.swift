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
/// guard let pack = try await manager.manifest.assetPack(withID: "World2") else { return }
/// try await manager.ensureLocalAvailability(of: pack)
/// let level = try await manager.contents(at: "Levels/World2/level1.json")
/// ```
///
/// One manager per storage root at a time: `init` takes an exclusive lock on the root (waiting
/// up to `Configuration.storageLockTimeout`), released when the manager is deinitialized or the
/// process ends.
///
/// `AssetPackManager.shared` is configured without code, as Apple's is (`ConfigurationLookup`);
/// `init(configuration:)` makes one for an explicit setup. In
/// process (the default), downloads run while the app does; with `Configuration.delivery` set
/// to `.agent(socketPath:)` (or `.automatic`), every call goes through the root's agent
/// (`assetpack agent`, Apple's system daemon), which holds the root and owns the downloads, with
/// the same calls, types, errors and status updates.
public actor AssetPackManager {
    /// What the manager was made with.
    public nonisolated let configuration: Configuration
    let layout: StorageLayout
    /// What an in-process manager holds on its root; nil when the agent does the work.
    nonisolated let local: LocalRoot?
    /// The storage root: every path below it is opened through this (`ConfinedDirectory`);
    /// nil when the agent does the work.
    nonisolated let rootDirectory: ConfinedDirectory?
    /// The root's agent, when `configuration.delivery` chose it: every public call goes there.
    nonisolated let agent: AgentDelivery?
    /// Why this manager cannot work: the shared manager found no usable configuration (or could
    /// not open its root). Every call throws it; nil for a working manager.
    nonisolated let unavailable: AssetPackManagerError?
    /// The languages localized packs resolve by (the app's `resolvedLanguage` first when set).
    nonisolated let languageChoice: LanguageChoice
    nonisolated var languages: LanguageResolver { languageChoice.resolver }
    nonisolated let broadcaster = StatusBroadcaster()
    /// Packs that open `AssetPackResourceRequest`s use: never evicted by the storage budget.
    nonisolated let resourcesInUse = ResourceUseCounter()
    var catalog: Catalog?
    /// When `catalog` was fetched (or, offline, taken from the store), by `configuration.now()`.
    var catalogCheckedAt: Date?
    /// A catalog fetch under way, shared by everyone who needs the catalog meanwhile.
    var catalogRefresh: WaiterGroup<Catalog>?
    /// Downloads under way, shared by everyone who asks for the same pack.
    var inFlight: [String: InFlightDownload] = [:]
    /// The downloads under way a cancelled `Progress` pauses, from any thread.
    nonisolated let pauses = DownloadPauses()
    /// Packs past the first check of the limits whose index is being fetched: they count as
    /// downloading for the limits of the others meanwhile.
    var admitting: [String: AssetPack] = [:]
    /// Index fetches under way (by pack ID and digest), shared by the callers that admit one pack.
    var indexFetches: [String: WaiterGroup<FetchedIndex>] = [:]
    /// Progressive reads under way (`AssetReadAccess`), by a key of their own: the pack they read
    /// and the flag that stops them (`remove` of the pack sets it).
    var progressiveReads: [Int: (id: String, flag: CancellationFlag)] = [:]
    var nextProgressiveRead = 0
    /// The index of the version progressive reads of a pack last used, by pack ID and digest.
    var progressiveIndexes: [String: FetchedIndex] = [:]
    /// The sources of each pack's latest install by this manager (under way or done).
    var deliveries: [String: (sources: SourceCounters, version: Int)] = [:]
    /// Network bytes fetched by installs of this manager (for the resume figure). Not in Apple's
    /// API.
    public internal(set) var fetchedBytes: UInt64 = 0 { didSet { fetchedBytesMirror.store(fetchedBytes) } }
    private nonisolated let fetchedBytesMirror = FetchedBytesMirror()
    /// `fetchedBytes`, read without waiting for the manager: the agent's `GET /v1/status` answers
    /// at once while a download holds the manager.
    public nonisolated var fetchedBytesNow: UInt64 { fetchedBytesMirror.load() }
    /// Chunk bytes this manager took from LAN peers (`Configuration.peers`) instead of the
    /// repository; not part of `fetchedBytes`.
    public internal(set) var peerBytes: UInt64 = 0
    /// Files of installed versions that updates by this manager linked into the next version
    /// without reading them (unchanged since their verified install).
    var filesLinkedUnread = 0
    /// Files of chunks that updates by this manager made from patches, linked from the installed
    /// version instead of written (their bytes there unchanged).
    var filesLinkedFromPatchedChunks = 0
    /// Chunks of installed versions that updates by this manager copied into the next version
    /// inside the kernel, without reading them (their file unchanged since its verified install).
    var chunksCopiedUnread = 0

    /// Makes a manager on `configuration.storageRoot`: checks the repository URLs against the
    /// allow-list, creates and locks the root (waiting up to `storageLockTimeout` for another
    /// manager to let go of it), opens the store and cleans up what a crash left. Does not touch
    /// the network. Apple's manager is the system's `shared` one instead.
    ///
    /// Through the agent (`configuration.delivery`), none of that: the manager opens its
    /// subscription to the agent's status stream and returns (`.automatic` first asks the
    /// root's socket whether an agent answers).
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        layout = StorageLayout(root: configuration.storageRoot)
        languageChoice = LanguageChoice(LanguageResolver(preferred: configuration.preferredLanguages, primary: configuration.primaryLanguage))
        if let socketPath = try Self.agentSocket(for: configuration) {
            // The agent holds the root: nothing under it is opened (or locked) here.
            agent = try AgentDelivery(socketPath: socketPath, broadcaster: broadcaster)
            unavailable = nil
            local = nil
            rootDirectory = nil
            return
        }
        agent = nil
        unavailable = nil
        guard !configuration.repositoryURLs.isEmpty else { throw AssetPackManagerError.invalidConfiguration("no repository URL") }
        if let problem = SettingBounds.problem("parallelDownloads.parts", configuration.parallelDownloads.parts, in: SettingBounds.downloadParts) {
            throw AssetPackManagerError.invalidConfiguration(problem)
        }
        let allowList = DomainAllowList(configuration.allowedDomains)
        for url in configuration.repositoryURLs { try allowList.check(url) }
        for peer in configuration.peers where !(peer.lowercased().hasPrefix("http://") || peer.lowercased().hasPrefix("https://")) {
            throw AssetPackManagerError.invalidConfiguration("peer \(peer): a peer is an http:// or https:// URL (an agent's --share address)")
        }
        let root = try layout.openRoot()
        rootDirectory = root
        // Before anything reads or cleans the root: another manager may be using it.
        let storageLock = try StorageLock(layout: layout, root: root, timeout: configuration.storageLockTimeout)
        try layout.checkStoreFiles(in: root)
        let store = try ClientStore(path: layout.database)
        let network: any HTTPTransport
        if let t = configuration.transport { network = t } else {
            do { network = try CurlTransport(caFile: configuration.caFile) } catch { throw AssetPackManagerError.transport(error) }
        }
        // A repository folder (`file://`) is read in place beside the HTTP mirrors.
        let transport = SchemeRoutingTransport(network: network)
        let client = RepositoryClient(mirrors: configuration.repositoryURLs, transport: transport, allowList: allowList,
                                      retry: configuration.retryPolicy, limits: configuration.networkLimits, peers: configuration.peers)
        local = LocalRoot(store: store, client: client,
                          catalogClient: CatalogClient(client: client, verifier: CatalogVerifier(publicKey: configuration.publicKey), store: store,
                                                       anchor: try TrustAnchor.configured(configuration), channel: try Self.channel(configuration),
                                                       device: DeviceDetection.capabilities(configuration)),
                          mergedNamespace: MergedNamespace(store: store, layout: layout, root: root, languages: languageChoice),
                          storageLock: storageLock, retired: RetiredFolders(root: root, layout: layout, inBackground: configuration.deletesRetiredFoldersInBackground))
        try Self.reconcile(layout: layout, root: root, store: store, retired: local!.retired)
        try Self.settleUnflushedInstalls(store: store, root: root, layout: layout, retired: local!.retired, boot: configuration.bootSession(),
                                          writebackDelay: configuration.writebackDelay)
        local!.retired.sweep()
        broadcaster.onPause { [pauses] id in pauses.pause(id) }
    }

    /// The channel the configuration follows (nil: the default one), or `invalidConfiguration`
    /// for a name that is not a channel name.
    private static func channel(_ configuration: Configuration) throws -> String? {
        guard let name = ChannelName.normalized(configuration.channel) else { return nil }
        if let why = ChannelName.problem(with: name) { throw AssetPackManagerError.invalidConfiguration("channel \"\(name)\" \(why)") }
        return name
    }

    /// A manager that cannot work, for this reason: every call throws it (the shared manager
    /// without a usable configuration).
    init(unavailable reason: AssetPackManagerError) {
        configuration = Configuration(repositoryURLs: [], publicKey: Ed25519PublicKey(rawBytes: [UInt8](repeating: 0, count: 32))!, storageRoot: "")
        layout = StorageLayout(root: "")
        languageChoice = LanguageChoice(LanguageResolver(preferred: [], primary: "en"))
        agent = nil
        local = nil
        rootDirectory = nil
        unavailable = reason
    }

    /// Throws why the manager cannot work, if it cannot.
    nonisolated func requireConfigured() throws {
        if let unavailable { throw unavailable }
    }

    /// The stream a manager that cannot work hands out: it never yields and never ends, as
    /// Apple's `statusUpdates` never ends.
    static func unavailableStream(_ reason: AssetPackManagerError) -> AsyncStream<DownloadStatusUpdate> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { _ in }
    }

    /// The agent's socket when `configuration.delivery` goes through one now; nil for in-process.
    private static func agentSocket(for configuration: Configuration) throws -> String? {
        switch configuration.delivery {
        case .inProcess: return nil
        case .agent(let socketPath): return socketPath
        case .automatic:
            let path = AgentConnection.socketPath(forRoot: configuration.storageRoot)
            guard FileManager.default.fileExists(atPath: path), let connection = try? AgentConnection(socketPath: path),
                  connection.answersNow() else { return nil }
            return path
        }
    }

    /// What an in-process manager opens on its root (nothing of it exists with an agent).
    struct LocalRoot: Sendable {
        let store: ClientStore
        let client: RepositoryClient
        let catalogClient: CatalogClient
        /// Where `contents(at:)`, `url(for:)`, `descriptor(for:)` and `namespace()` look.
        let mergedNamespace: MergedNamespace
        /// Held for the manager's lifetime: no other manager uses this root meanwhile.
        let storageLock: StorageLock
        /// Where superseded and removed folders go to be deleted in the background.
        let retired: RetiredFolders
    }

    // The in-process manager's parts. Every entry point hands its call to `agent` first when
    // there is one, so these are read only by an in-process manager.
    nonisolated var root: ConfinedDirectory { rootDirectory! }
    var store: ClientStore { local!.store }
    var client: RepositoryClient { local!.client }
    var catalogClient: CatalogClient { local!.catalogClient }
    var mergedNamespace: MergedNamespace { local!.mergedNamespace }
    var retired: RetiredFolders { local!.retired }

    // MARK: Status

    /// Where `assetPack` stands on this device against that description of it (Apple's
    /// `status(relativeTo:)`; never touches the network).
    public func status(relativeTo assetPack: AssetPack) async throws -> AssetPack.Status {
        try requireConfigured()
        if let agent { return try await agent.status(relativeTo: assetPack) }
        var status: AssetPack.Status = []
        let pending = try store.pendingDownload(assetPack.id)
        if inFlight[assetPack.id] != nil || pending != nil { status.insert(.downloading) }
        if try !holdsContentKey(assetPack) { status.insert(.requiresEntitlement) }
        guard let installed = try store.installedPack(assetPack.id) else { return status.union(.downloadAvailable) }
        status.insert(.downloaded)
        // The same content under another version number (a channel that numbered it otherwise)
        // is up to date too: updates follow the pack digest.
        let entry = heldCatalog?.pack(withID: assetPack.id)
        let sameContent = entry.map { $0.version == assetPack.version && $0.digest == installed.digest } ?? false
        // Another variant of the same version chosen now (a capability changed): the next
        // update switches to it.
        let switching = entry.map { $0.chosenVariant != nil && $0.version == installed.version && $0.digest != installed.digest } ?? false
        if (installed.version == assetPack.version || sameContent) && !switching { status.insert(.upToDate) } else { status.formUnion([.updateAvailable, .outOfDate]) }
        return status
    }

    /// The status of the pack with this ID against the catalog the manager holds (obsolete
    /// when the catalog no longer lists an installed pack), without touching the network
    /// (Apple's `localStatus(ofAssetPackWithID:)`): the catalog held, else the last one accepted
    /// (expired or not). Empty for a pack that neither the catalog nor the device knows, and
    /// when the store cannot be read.
    public func localStatus(ofAssetPackWithID id: String) async -> AssetPack.Status {
        guard unavailable == nil else { return [] }
        if let agent { return (try? await agent.localStatus(ofAssetPackWithID: id)) ?? [] }
        if let p = heldCatalog?.pack(withID: id) { return (try? await status(relativeTo: AssetPack(p))) ?? [] }
        var status: AssetPack.Status = []
        if (try? store.installedPack(id)) != nil { status.formUnion([.downloaded, .obsolete]) }
        if inFlight[id] != nil || (try? store.pendingDownload(id)) != nil { status.insert(.downloading) }
        return status
    }

    /// The catalog the manager holds, else the last one accepted (expired or not); nil when
    /// there is none. Never touches the network.
    var heldCatalog: Catalog? {
        if let catalog { return catalog }
        return try? catalogClient.cached(now: configuration.now(), allowExpired: true)
    }

    /// Whether some version of the pack is installed (Apple's
    /// `assetPackIsAvailableLocally(withID:)`): false too when the store (or the agent) cannot
    /// be asked.
    public nonisolated func assetPackIsAvailableLocally(withID id: String) -> Bool {
        guard unavailable == nil else { return false }
        if let agent { return (try? agent.connection.assetPackNow(withID: id).assetPackStatus.contains(.downloaded)) ?? false }
        guard let local else { return false }
        return (try? local.store.installedPack(id)) != nil
    }

    /// The installed version of the pack, described as the store recorded it (no platforms: the
    /// store keeps none); nil when none is installed. For the agent, which describes installed
    /// packs to its clients (an obsolete one too). In process only.
    package func installedAssetPack(withID id: String) throws -> AssetPack? {
        guard agent == nil, let p = try store.installedPack(id) else { return nil }
        return AssetPack(id: p.id, version: p.version, downloadSize: p.downloadSize, installSize: p.installSize, language: p.language,
                         downloadPolicy: p.downloadPolicy, platforms: [])
    }

    /// Updates of every pack's downloads; the stream never ends (stop iterating to leave it).
    /// Apple's `statusUpdates`.
    public nonisolated var statusUpdates: AsyncStream<DownloadStatusUpdate> {
        if let unavailable { return Self.unavailableStream(unavailable) }
        agent?.keepSubscribed()
        return broadcaster.stream()
    }

    /// Updates for one pack; ends after its finished or failed update (Apple's
    /// `statusUpdates(forAssetPackWithID:)`).
    public nonisolated func statusUpdates(forAssetPackWithID id: String) -> AsyncStream<DownloadStatusUpdate> {
        if let unavailable { return Self.unavailableStream(unavailable) }
        agent?.keepSubscribed()
        return broadcaster.stream(forAssetPackWithID: id)
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
