import AssetPacks

/// How an agent runs: the storage root it owns, where it listens, and how many packs it
/// downloads at once. The repository, key and CA come from what the root remembers
/// (`RootSettings`, written by the first `assetpack install`).
public struct AgentConfiguration: Sendable {
    public var root: String
    /// Where the API listens; nil for `ROOT/agent.sock`. Ignored when systemd passes a socket.
    public var socketPath: String?
    /// Packs downloaded at once.
    public var maxParallel: Int
    /// Whether a listening socket passed by systemd (LISTEN_FDS, LISTEN_PID) is used.
    public var acceptsInheritedSocket: Bool
    /// How long a request that failed for a passing reason (the network, a 5xx) waits before it
    /// is tried again; it is tried indefinitely.
    public var retryBackoff: RetryBackoff
    /// Asked before every download the agent starts on its own (the install step's packs,
    /// automatic updates); nil lets them all go.
    public var shouldDownload: ShouldDownloadHook?
    /// Bytes per second that background downloads (prefetch, detached requests, updates) may
    /// take together; nil for no limit. Downloads a caller waits for are never limited.
    public var maxBackgroundRate: UInt64?
    /// How often the agent checks the catalog and updates installed packs on its own; nil never.
    public var updateInterval: Duration?
    /// How long start waits for another holder of the root (a process, or an agent in this
    /// process that is still winding down) before it fails naming the holder.
    public var storageLockTimeout: Duration
    /// The largest request body the API reads (larger ones get 413).
    public var maxRequestSize: Int
    /// Serve the installed packs' chunks to LAN peers (`--share`); nil (the default) does not.
    public var share: ShareConfiguration?
    /// Changes the manager's configuration after it is built from the root's settings (tests:
    /// retry policy, parts).
    public var configureManager: @Sendable (inout AssetPackManager.Configuration) -> Void

    public init(root: String, socketPath: String? = nil, maxParallel: Int = 2, acceptsInheritedSocket: Bool = true,
                retryBackoff: RetryBackoff = RetryBackoff(), storageLockTimeout: Duration = .seconds(2),
                shouldDownload: ShouldDownloadHook? = nil, updateInterval: Duration? = nil, maxBackgroundRate: UInt64? = nil, maxRequestSize: Int = 1 << 20, share: ShareConfiguration? = nil, configureManager: @escaping @Sendable (inout AssetPackManager.Configuration) -> Void = { _ in }) {
        self.root = root
        self.socketPath = socketPath
        self.maxParallel = maxParallel
        self.acceptsInheritedSocket = acceptsInheritedSocket
        self.retryBackoff = retryBackoff
        self.storageLockTimeout = storageLockTimeout
        self.shouldDownload = shouldDownload
        self.updateInterval = updateInterval
        self.maxBackgroundRate = maxBackgroundRate
        self.maxRequestSize = maxRequestSize
        self.share = share
        self.configureManager = configureManager
    }
}
