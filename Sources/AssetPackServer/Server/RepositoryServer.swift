import AssetPackFormat
import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A static-file HTTP(S) server for a repository folder, on libmicrohttpd.
///
/// It runs a thread per connection (MHD_USE_THREAD_PER_CONNECTION): a fault that delays a
/// response (`--latency`, `--bandwidth`) holds up only its own connection, and MHD sends files
/// with sendfile in large chunks in this mode, which measured at least as fast as its epoll
/// thread pool (docs/BENCHMARKS.md). Plain files and single ranges go out as MHD fd responses
/// (sendfile; over TLS MHD reads them instead); multipart and faulty bodies through a callback.
///
/// Slow clients are kept from crowding out the rest by `ConnectionRegistry`: each connection has
/// `requestTimeoutSeconds` to deliver a complete request, and newcomers past the global or
/// per-address limit make room by closing the connection that has waited longest for one.
public final class RepositoryServer: @unchecked Sendable {
    public let directory: String
    public let configuration: ServerConfiguration
    /// The port actually bound.
    public let port: UInt16
    let context: ServingContext
    private var watch: RequestDeadlineWatch?
    private var daemon: OpaquePointer?
    private var listenSocket: Int32
    private var tlsText: DaemonPEMText?

    /// Checks `directory` and the limits, binds the port and starts serving; throws with a clear
    /// message when the folder is missing or unreadable, a limit is out of range, the address is
    /// taken, or TLS material is rejected.
    public init(directory: String, configuration: ServerConfiguration) throws(ServerError) {
        try configuration.validate()
        let root = try RepositoryRoot(directory: directory)
        self.directory = root.realPath.isEmpty ? "/" : root.realPath
        self.configuration = configuration
        let log = try AccessLog(configuration.accessLog)
        let faults = configuration.faults.isActive ? FaultInjector(configuration.faults) : nil
        let registry = ConnectionRegistry(limits: .init(total: configuration.connectionLimit, perAddress: configuration.perAddressConnectionLimit,
                                                        requestTimeoutNanoseconds: UInt64(configuration.requestTimeoutSeconds) * 1_000_000_000))
        context = ServingContext(responder: FileResponder(root: root, policy: configuration.contentPolicy, faults: faults), log: log, registry: registry)
        // Two descriptors per connection at most (the socket and a file being sent), for up to
        // twice connectionLimit connections (those being closed), and some spare.
        raiseOpenFileLimit(toAtLeast: UInt64(configuration.connectionLimit) * 4 + 64)
        // The kernel queues as many connections as may be served at once (net.core.somaxconn
        // caps it, 4096 on Linux 5.4 and later), so a crowd connecting in the same instant waits
        // to be accepted rather than being refused.
        let backlog = Int32(clamping: max(1024, configuration.connectionLimit))
        do { (listenSocket, port) = try makeListeningSocket(host: configuration.host, port: configuration.port, backlog: backlog) } catch {
            throw .listen(error.address, error.reason)
        }
        signal(SIGPIPE, SIG_IGN)  // sendfile to a closed peer raises SIGPIPE otherwise
        try start()
        watch = RequestDeadlineWatch(registry: registry)
    }

    deinit { stop() }

    /// The base URL, e.g. `http://127.0.0.1:8080/`.
    public var url: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(configuration.tls == nil ? "http" : "https")://\(host):\(port)/"
    }

    /// Responses under way: queued, and not yet ended (sent whole, or cut by the client or a
    /// fault). A response's access-log line is written when it ends, so once this is 0 the log
    /// holds every request answered so far.
    public var responsesInProgress: Int { context.responsesInProgress }

    /// Stops accepting, finishes nothing in flight, and releases the port. Idempotent.
    public func stop() {
        watch?.stop()
        watch = nil
        if let d = daemon {
            daemon = nil
            MHD_stop_daemon(d)
            // MHD closed the listen socket it was given: closing it again here would close
            // whatever another thread opened under that number in the meantime.
            listenSocket = -1
        }
        if listenSocket >= 0 { close(listenSocket); listenSocket = -1 }
        tlsText = nil
    }

    private func start() throws(ServerError) {
        // MHD keeps pointers to the PEM text; it lives as long as the daemon.
        tlsText = configuration.tls.map(DaemonPEMText.init)
        var c = cmhd_config.threadPerConnection(listenSocket: listenSocket, pem: tlsText)
        // A backstop: the registry enforces connectionLimit on live connections (see ConnectionRegistry).
        c.connection_limit = UInt32(clamping: configuration.connectionLimit * 2)
        c.connection_timeout_seconds = UInt32(configuration.idleTimeoutSeconds)
        // The context outlives the daemon: it is released only after stop() has returned.
        let cls = Unmanaged.passUnretained(context).toOpaque()
        c.handler = accessHandler
        c.handler_cls = cls
        c.uri_log = requestLineSeen
        c.uri_log_cls = cls
        c.completed = requestCompleted
        c.completed_cls = cls
        c.notify_connection = connectionNotified
        c.notify_connection_cls = cls
        c.keep_url_escaped = 1
        guard let d = cmhd_start(&c) else {
            close(listenSocket)
            listenSocket = -1
            throw .daemon(configuration.tls == nil ? "libmicrohttpd refused to start" : "libmicrohttpd refused to start (check the TLS certificate and key)")
        }
        daemon = d
    }
}
