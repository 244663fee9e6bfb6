import AssetPackFormat
import AssetPackTransport
import AssetPacks
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the API's routes reach: the manager, the queue, the scheduler and the event hub.
final class AgentServiceState: Sendable {
    let root: String
    let socketPath: String
    let manager: AssetPackManager
    let queue: RequestQueueStore
    let scheduler: DownloadScheduler
    let hub: EventHub
    let stopSignal = StopSignal()

    init(root: String, socketPath: String, manager: AssetPackManager, queue: RequestQueueStore, scheduler: DownloadScheduler, hub: EventHub) {
        self.root = root
        self.socketPath = socketPath
        self.manager = manager
        self.queue = queue
        self.scheduler = scheduler
        self.hub = hub
    }

    func statusReport() throws -> AgentStatusReport {
        AgentStatusReport(pid: getpid(), root: root, socket: socketPath, maxParallel: scheduler.maxParallel,
                          running: scheduler.runningIDs, requests: try queue.records(), subscribers: hub.count)
    }
}

/// The agent for one storage root (`assetpack agent`): it holds the root (its manager takes the
/// root's lock, so no other process downloads into it meanwhile), owns every download of it,
/// keeps accepted requests in a durable queue and resumes them at start, and serves the local
/// API (HTTP/1.1 + JSON, docs/AGENT.md) on a Unix socket only its own user may use.
public final class AgentService: @unchecked Sendable {
    public let configuration: AgentConfiguration
    /// Where the API listens.
    public let socketPath: String
    /// Released by `stop`, with the manager and so the root's lock.
    private var state: AgentServiceState?
    private let socket: UnixListeningSocket
    private var server: LocalHTTPServer?
    private var share: ChunkShareServer?
    /// The TCP port the `--share` server listens on; nil when the agent does not share.
    public var sharePort: UInt16? { lock.withLock { share?.port } }
    private var forwarding: Task<Void, Never>?
    private var updates: AutomaticUpdates?
    private let lock = NSLock()
    private var stopped = false
    /// Set (under `stoppedCondition`) once `stop` has finished.
    private var finished = false
    private let stoppedCondition = NSCondition()

    /// Opens the root, the queue and the socket, starts serving, and resumes every request a
    /// previous run left unfinished. Throws when the root is not initialised, another process
    /// holds it (naming it), or the socket path is taken by a live agent.
    public init(configuration: AgentConfiguration) throws {
        self.configuration = configuration
        let root = URL(fileURLWithPath: configuration.root).standardizedFileURL.path
        let layout = StorageLayout(root: root)
        let settings = try RootSettings.load(root: root)
        guard !settings.repositoryURLs.isEmpty, let trust = try settings.trust() else { throw AgentServiceError.rootNotInitialized(root: root) }
        var managerConfiguration = AssetPackManager.Configuration(
            repositoryURLs: settings.repositoryURLs, publicKey: trust.publicKey, storageRoot: root,
            storageBudget: settings.storageBudget, caFile: settings.caFile, storageLockTimeout: configuration.storageLockTimeout)
        trust.apply(to: &managerConfiguration)
        managerConfiguration.channel = settings.channel
        managerConfiguration.seedFolders = settings.seedFolders
        managerConfiguration.peers = settings.peers
        // Device variants: the texture formats and memory the root remembers (`--texture-formats`, `--memory`).
        settings.applyDevice(to: &managerConfiguration)
        // Paid packs: the key server and the entitlement token the root remembers (`--key-server`,
        // `--entitlement`), presented for every sealed pack as the command-line client does.
        managerConfiguration.keyServerURL = settings.keyServerURL
        if let token = settings.entitlementToken { managerConfiguration.entitlementProvider = { _ in token } }
        let schedulerReference = SchedulerReference()
        if let rate = configuration.maxBackgroundRate {
            managerConfiguration.transport = BackgroundRateTransport(inner: try CurlTransport(caFile: settings.caFile),
                                                                     limiter: BandwidthLimiter(bytesPerSecond: rate),
                                                                     isBackground: { schedulerReference.isBackgroundDownload($0) })
        }
        configuration.configureManager(&managerConfiguration)
        if let interval = configuration.updateInterval, interval > .zero {
            // Each automatic check sees a fresh catalog.
            managerConfiguration.catalogMaxAge = min(managerConfiguration.catalogMaxAge, interval)
        }
        // The root first: a second agent stops here, naming the process that holds it.
        let manager = try AssetPackManager(configuration: managerConfiguration)
        // Links planted in place of the queue's files are refused, as for the client store.
        try layout.checkAgentDatabaseFiles()
        let queue = try RequestQueueStore(path: layout.agentDatabase)
        if configuration.acceptsInheritedSocket, let inherited = try SocketActivation.inheritedSocket() {
            socket = UnixListeningSocket(inherited: inherited.descriptor, path: inherited.path)
        } else {
            socket = try UnixListeningSocket(path: configuration.socketPath ?? layout.agentSocket)
        }
        socketPath = socket.path
        let hub = EventHub()
        let scheduler = DownloadScheduler(manager: manager, store: queue, maxParallel: configuration.maxParallel,
                                          backoff: configuration.retryBackoff, shouldDownload: configuration.shouldDownload)
        schedulerReference.set(scheduler)
        let state = AgentServiceState(root: root, socketPath: socket.path, manager: manager, queue: queue, scheduler: scheduler, hub: hub)
        self.state = state
        // Subscribed before anything can download, so that no update is missed.
        let statusStream = manager.statusUpdates
        forwarding = Task { for await update in statusStream { hub.publish(update) } }
        let api = AgentAPI(service: state)
        do {
            server = try LocalHTTPServer(listeningSocket: socket.descriptor, maxBodySize: configuration.maxRequestSize) { api.respond(to: $0) }
            socket.relinquish()
        } catch {
            socket.close()
            socket.removeFile()
            forwarding?.cancel()
            throw error
        }
        if let shareConfiguration = configuration.share {
            do { share = try ChunkShareServer(configuration: shareConfiguration, manager: manager) } catch {
                server?.stop()
                socket.removeFile()
                forwarding?.cancel()
                throw error
            }
        }
        try scheduler.resumeUnfinished()
        if let interval = configuration.updateInterval, interval > .zero {
            self.updates = AutomaticUpdates(interval: interval, manager: manager, scheduler: scheduler)
        }
    }

    deinit { stop() }

    /// Graceful stop (blocking; from async code use `stopped()`): stops accepting connections, ends the event streams, cancels the downloads
    /// under way (they keep what they verified, and their requests stay queued for the next
    /// start), answers waiting requests with 503, closes every connection and releases the root
    /// (once the downloads have let go of the manager). Returns within about `timeout`. Idempotent.
    public func stop(timeout: Duration = .milliseconds(1500)) {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        let deadline = Date().addingTimeInterval(timeout.seconds)
        if let server {
            let listening = server.quiesce()
            if listening >= 0 { close(listening) }
        }
        socket.removeFile()
        lock.withLock { share }?.stop()
        updates?.cancel()
        if let state {
            state.hub.close()
            state.stopSignal.fire()
            state.scheduler.shutdown(deadline: deadline)
        }
        server?.stop()
        forwarding?.cancel()
        lock.withLock {
            server = nil
            share = nil
            state = nil
        }
        stoppedCondition.withLock {
            finished = true
            stoppedCondition.broadcast()
        }
    }

    /// `stop` on a thread of its own: it blocks while downloads wind down, which must not hold
    /// one of the few threads of Swift's cooperative pool (the downloads need them to end).
    public func stopped(timeout: Duration = .milliseconds(1500)) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread { [self] in
                stop(timeout: timeout)
                continuation.resume()
            }.start()
        }
    }

    /// Blocks until `stop` has run.
    public func waitUntilStopped() {
        stoppedCondition.withLock {
            while !finished { stoppedCondition.wait() }
        }
    }

    /// What `GET /v1/status` answers.
    public func statusReport() throws -> AgentStatusReport {
        guard let state = lock.withLock({ state }) else { throw AgentRequestError.stopping }
        return try state.statusReport()
    }
}

extension Duration {
    var seconds: TimeInterval {
        let (s, atto) = components
        return TimeInterval(s) + TimeInterval(atto) / 1e18
    }
}
