import CMicroHTTPD
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// HTTP/1.1 on libmicrohttpd over the agent's Unix socket.
///
/// A thread per connection (MHD_USE_THREAD_PER_CONNECTION): a request that waits for a download,
/// or an event stream, blocks only its own connection. Every request is checked before its
/// body is read: a peer of another user ID gets 403 (SO_PEERCRED), a declared body over
/// `maxBodySize` 413; a body that grows past it while arriving is cut off with 413 too. Request
/// lines and headers over libmicrohttpd's memory limit, and garbage, get its own 4xx. A body
/// must declare its length (411 otherwise), so that an oversize one is refused before it is read.
/// URLs stay escaped (MHD_OPTION_UNESCAPE_CALLBACK): each path segment is decoded on its own,
/// so that `%2F` in a pack ID cannot make a new segment.
final class LocalHTTPServer: @unchecked Sendable {
    typealias Handler = @Sendable (LocalHTTPRequest) -> LocalHTTPResponse
    let handler: Handler
    let maxBodySize: Int
    let allowedUserID: uid_t
    private var daemon: OpaquePointer?
    private let lock = NSLock()

    /// Starts serving on `listeningSocket` (which MHD then owns and closes).
    init(listeningSocket: Int32, maxBodySize: Int = 1 << 20, allowedUserID: uid_t = getuid(), handler: @escaping Handler) throws(AgentServiceError) {
        self.handler = handler
        self.maxBodySize = maxBodySize
        self.allowedUserID = allowedUserID
        signal(SIGPIPE, SIG_IGN)  // writing to a client that left raises SIGPIPE otherwise
        var c = cmhd_config()
        c.flags = UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue) | UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
            | UInt32(MHD_USE_POLL.rawValue) | UInt32(MHD_USE_ITC.rawValue)
        c.listen_socket = listeningSocket
        c.connection_limit = 4096
        c.connection_timeout_seconds = 60
        c.handler = agentAccessHandler
        c.handler_cls = Unmanaged.passUnretained(self).toOpaque()
        c.completed = agentRequestCompleted
        c.completed_cls = nil
        c.keep_url_escaped = 1
        guard let d = cmhd_start(&c) else { throw .server("libmicrohttpd refused to start on the socket") }
        daemon = d
    }

    deinit { stop() }

    /// Stops accepting connections; those open go on until `stop`. Returns the listening
    /// socket, which the caller now owns (or -1).
    func quiesce() -> Int32 {
        lock.withLock {
            guard let daemon else { return -1 }
            return MHD_quiesce_daemon(daemon)
        }
    }

    /// Closes every connection and waits for their threads. Bodies that block must have been
    /// woken first (the agent closes its event streams and waiting requests before this).
    func stop() {
        let d: OpaquePointer? = lock.withLock {
            let d = daemon
            daemon = nil
            return d
        }
        if let d { MHD_stop_daemon(d) }
    }

    fileprivate func begin(_ connection: OpaquePointer) -> RequestContext {
        let context = RequestContext()
        let fd = cmhd_connection_fd(connection)
        context.peer = fd >= 0 ? PeerCredentials.of(socket: fd) : nil
        if context.peer?.userID != allowedUserID {
            context.rejection = .error(403, "forbidden", "the agent serves only user \(allowedUserID)")
        } else if MHD_lookup_connection_value(connection, cmhd_header_kind, "Transfer-Encoding") != nil {
            context.rejection = .error(411, "lengthRequired", "a request body must declare its Content-Length")
        } else if let length = MHD_lookup_connection_value(connection, cmhd_header_kind, "Content-Length").map({ String(cString: $0) }),
                  let n = UInt64(length.trimmingCharacters(in: .whitespaces)), n > UInt64(maxBodySize) {
            context.rejection = .error(413, "requestTooLarge", "a request body may hold at most \(maxBodySize) bytes")
        }
        return context
    }

    fileprivate func respond(_ connection: OpaquePointer, context: RequestContext, url: String, method: String) -> MHD_Result {
        if let rejection = context.rejection { return queue(rejection, on: connection) }
        var query: [String: String] = [:]
        for name in ["detach", "requireLatestVersion", "pack", "location", "progressive", "range", "language"] {
            if let v = MHD_lookup_connection_value(connection, cmhd_get_argument_kind, name) {
                let raw = String(cString: v).replacingOccurrences(of: "+", with: " ")
                guard let decoded = raw.removingPercentEncoding else { return queue(.error(400, "malformedRequest", "query parameter \(name) is not validly percent-encoded"), on: connection) }
                query[name] = decoded
            }
        }
        // The path as segments, each percent-decoded on its own.
        var segments: [String] = []
        for raw in url.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            guard let segment = String(raw).removingPercentEncoding else {
                return queue(.error(400, "malformedRequest", "the path is not validly percent-encoded"), on: connection)
            }
            segments.append(segment)
        }
        let request = LocalHTTPRequest(method: method, segments: segments, query: query, body: context.body, peer: context.peer)
        return queue(handler(request), on: connection)
    }

    fileprivate func queue(_ plan: LocalHTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let response: OpaquePointer?
        switch plan.body {
        case .bytes(var bytes):
            response = bytes.withUnsafeMutableBytes { MHD_create_response_from_buffer($0.count, $0.baseAddress, cmhd_respmem_must_copy) }
        case .file(let fd, let length):
            response = MHD_create_response_from_fd64(length, fd)
            if response == nil { Glibc.close(fd) }
        case .stream(let stream):
            let box = Unmanaged.passRetained(StreamBox(stream)).toOpaque()
            response = MHD_create_response_from_callback(cmhd_size_unknown, 16 * 1024, readStream, box, releaseStream)
            if response == nil { Unmanaged<StreamBox>.fromOpaque(box).release() }
        }
        guard let response else { return cmhd_no }
        defer { MHD_destroy_response(response) }
        _ = MHD_add_response_header(response, "Content-Type", plan.contentType)
        for (name, value) in plan.headers { _ = MHD_add_response_header(response, name, value) }
        return MHD_queue_response(connection, UInt32(plan.status), response)
    }
}

/// What one request has gathered between MHD's calls: the peer, its body so far, and a
/// rejection decided before the body was read.
private final class RequestContext {
    var peer: PeerCredentials?
    var body: [UInt8] = []
    var rejection: LocalHTTPResponse?
    var answered = false
}

private final class StreamBox {
    let stream: any LocalHTTPBodyStream
    init(_ stream: any LocalHTTPBodyStream) { self.stream = stream }
}

/// MHD's request callback: first with the headers, then once per piece of body, then once
/// with no body left, which answers.
private let agentAccessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, requestState in
    guard let cls, let connection, let url, let method, let requestState else { return cmhd_no }
    let server = Unmanaged<LocalHTTPServer>.fromOpaque(cls).takeUnretainedValue()
    guard let state = requestState.pointee else {
        let context = server.begin(connection)
        requestState.pointee = Unmanaged.passRetained(context).toOpaque()
        guard let rejection = context.rejection else { return cmhd_yes }
        // Refused before any body is read: MHD closes the connection after the answer.
        context.answered = true
        return server.queue(rejection, on: connection)
    }
    let context = Unmanaged<RequestContext>.fromOpaque(state).takeUnretainedValue()
    if let uploadSize, uploadSize.pointee != 0 {
        let n = uploadSize.pointee
        uploadSize.pointee = 0
        if context.answered { return cmhd_yes }
        if context.rejection == nil, let uploadData {
            // Content-Length was checked with the headers, and MHD reads no more than it says:
            // this only guards against that changing.
            guard context.body.count + n <= server.maxBodySize else { return cmhd_no }
            context.body.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: n))
        }
        return cmhd_yes
    }
    if context.answered { return cmhd_yes }
    context.answered = true
    return server.respond(connection, context: context, url: String(cString: url), method: String(cString: method))
}

private let agentRequestCompleted: MHD_RequestCompletedCallback = { _, _, requestState, _ in
    guard let requestState, let state = requestState.pointee else { return }
    Unmanaged<RequestContext>.fromOpaque(state).release()
    requestState.pointee = nil
}

private let readStream: MHD_ContentReaderCallback = { cls, _, buffer, capacity in
    guard let cls, let buffer else { return cmhd_content_reader_end_with_error }
    let n = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue().stream.read(into: UnsafeMutableRawPointer(buffer), capacity: capacity)
    return n == 0 ? cmhd_content_reader_end_of_stream : n
}

private let releaseStream: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let box = Unmanaged<StreamBox>.fromOpaque(cls)
    box.takeUnretainedValue().stream.close()
    box.release()
}
