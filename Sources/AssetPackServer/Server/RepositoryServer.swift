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
/// `connectionLimit` bounds the number of threads.
public final class RepositoryServer: @unchecked Sendable {
    public let directory: String
    public let configuration: ServerConfiguration
    /// The port actually bound.
    public let port: UInt16
    let responder: FileResponder
    let log: AccessLog
    private var daemon: OpaquePointer?
    private var listenSocket: Int32
    private var tlsText: (key: UnsafeMutablePointer<CChar>?, certificate: UnsafeMutablePointer<CChar>?)?

    /// Checks `directory`, binds the port and starts serving; throws with a clear message when
    /// the folder is missing or unreadable, the address is taken, or TLS material is rejected.
    public init(directory: String, configuration: ServerConfiguration) throws(ServerError) {
        let root = try RepositoryRoot(directory: directory)
        self.directory = root.realPath.isEmpty ? "/" : root.realPath
        self.configuration = configuration
        log = try AccessLog(configuration.accessLog)
        let faults = configuration.faults.isActive ? FaultInjector(configuration.faults) : nil
        responder = FileResponder(root: root, policy: configuration.contentPolicy, faults: faults)
        (listenSocket, port) = try makeListeningSocket(host: configuration.host, port: configuration.port)
        signal(SIGPIPE, SIG_IGN)  // sendfile to a closed peer raises SIGPIPE otherwise
        try start()
    }

    deinit { stop() }

    /// The base URL, e.g. `http://127.0.0.1:8080/`.
    public var url: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(configuration.tls == nil ? "http" : "https")://\(host):\(port)/"
    }

    /// Stops accepting, finishes nothing in flight, and releases the port. Idempotent.
    public func stop() {
        if let d = daemon {
            daemon = nil
            MHD_stop_daemon(d)
            // MHD closed the listen socket it was given: closing it again here would close
            // whatever another thread opened under that number in the meantime.
            listenSocket = -1
        }
        if listenSocket >= 0 { close(listenSocket); listenSocket = -1 }
        if let t = tlsText { free(t.key); free(t.certificate); tlsText = nil }
    }

    private func start() throws(ServerError) {
        var flags = UInt32(MHD_USE_ERROR_LOG.rawValue) | UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue)
            | UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_POLL.rawValue)
        if configuration.tls != nil { flags |= UInt32(MHD_USE_TLS.rawValue) }
        // MHD keeps pointers to the PEM text; it lives as long as the daemon.
        tlsText = configuration.tls.map { (strdup($0.privateKeyPEM), strdup($0.certificatePEM)) }
        let (key, cert) = tlsText ?? (nil, nil)
        var c = cmhd_config()
        c.flags = flags
        c.listen_socket = listenSocket
        c.connection_limit = UInt32(configuration.connectionLimit)
        c.connection_timeout_seconds = UInt32(configuration.idleTimeoutSeconds)
        c.https_mem_key = UnsafePointer(key)
        c.https_mem_cert = UnsafePointer(cert)
        c.handler = accessHandler
        c.handler_cls = Unmanaged.passUnretained(self).toOpaque()
        c.keep_url_escaped = 1
        guard let d = cmhd_start(&c) else {
            close(listenSocket)
            listenSocket = -1
            throw .daemon(configuration.tls == nil ? "libmicrohttpd refused to start" : "libmicrohttpd refused to start (check the TLS certificate and key)")
        }
        daemon = d
    }

    /// Answers one request: plans the response, hands it to MHD, writes the log line.
    fileprivate func handle(_ connection: OpaquePointer, url: String, method: String, version: String) -> MHD_Result {
        let request = FileRequest(method: method, target: url, version: version) { name in
            MHD_lookup_connection_value(connection, cmhd_header_kind, name).map { String(cString: $0) }
        }
        let plan = responder.respond(to: request)
        let result = queue(plan, on: connection)
        log.record(client: numericHost(cmhd_client_address(connection)), method: method, target: url, version: version,
                   status: plan.status, bytes: method == "HEAD" ? 0 : plan.bodyLength, note: plan.logNote)
        return result
    }

    private func queue(_ plan: ResponsePlan, on connection: OpaquePointer) -> MHD_Result {
        let response: OpaquePointer?
        switch plan.body {
        case .empty:
            response = MHD_create_response_from_buffer(0, nil, cmhd_respmem_persistent)
        case .text(let text):
            var bytes = Array(text.utf8)
            response = bytes.withUnsafeMutableBytes { MHD_create_response_from_buffer($0.count, $0.baseAddress, cmhd_respmem_must_copy) }
        case .file(let file, let offset, let length):
            let fd = file.takeDescriptor()
            response = MHD_create_response_from_fd_at_offset64(length, fd, offset)
            if response == nil { close(fd) }
        case .stream(let body):
            let context = Unmanaged.passRetained(body).toOpaque()
            response = MHD_create_response_from_callback(body.length, 64 * 1024, readBody, context, releaseBody)
            if response == nil { Unmanaged<ResponseBody>.fromOpaque(context).release() }
        }
        guard let response else { return cmhd_no }
        defer { MHD_destroy_response(response) }
        for (name, value) in plan.headers { _ = MHD_add_response_header(response, name, value) }
        return MHD_queue_response(connection, UInt32(plan.status), response)
    }
}

/// MHD's request callback: decodes the C arguments and forwards to the server.
/// MHD calls it first when the headers are in (answering then would make MHD close the
/// connection, not knowing whether a body follows), then once per piece of body, then once more
/// with no body left: that last call answers.
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, _, uploadSize, requestState in
    guard let cls, let connection, let url, let method, let version, let requestState else { return cmhd_no }
    if requestState.pointee == nil {
        requestState.pointee = cls  // any non-nil marker: "headers seen"
        return cmhd_yes
    }
    if let uploadSize, uploadSize.pointee != 0 {
        uploadSize.pointee = 0  // a body on GET/HEAD is read and ignored
        return cmhd_yes
    }
    let server = Unmanaged<RepositoryServer>.fromOpaque(cls).takeUnretainedValue()
    return server.handle(connection, url: String(cString: url), method: String(cString: method), version: String(cString: version))
}

/// MHD's body callback for streamed responses.
private let readBody: MHD_ContentReaderCallback = { cls, position, buffer, capacity in
    guard let cls, let buffer else { return cmhd_content_reader_end_with_error }
    let body = Unmanaged<ResponseBody>.fromOpaque(cls).takeUnretainedValue()
    switch body.read(at: position, into: buffer, capacity: capacity) {
    case .bytes(let n): return n == 0 ? cmhd_content_reader_end_of_stream : n
    case .abort: return cmhd_content_reader_end_with_error
    }
}

private let releaseBody: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<ResponseBody>.fromOpaque(cls).release()
}
