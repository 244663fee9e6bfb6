import AssetPackFormat
import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What libmicrohttpd's callbacks reach: the responder, the access log and the connection
/// registry. A separate object from `RepositoryServer`, so that callbacks running while the
/// server's deinit stops the daemon never touch an object being destroyed.
///
/// The life of a request, in libmicrohttpd's calls:
/// 1. `requestLineSeen` (MHD_OPTION_URI_LOG_CALLBACK) with the target still whole: a
///    `RequestRecord` becomes the request's context.
/// 2. `accessHandler` once the headers are in, then once per piece of body, then once more:
///    that last call answers (`handle`).
/// 3. `requestCompleted` when the response ended or the connection broke: the log line, with
///    the body bytes that actually left.
/// Connections are announced to the registry as they open and close (`connectionNotified`).
final class ServingContext: @unchecked Sendable {
    let responder: FileResponder
    let log: AccessLog
    let registry: ConnectionRegistry
    /// Responses queued whose log line is not written yet.
    private let answering = Mutex(0)

    init(responder: FileResponder, log: AccessLog, registry: ConnectionRegistry) {
        self.responder = responder
        self.log = log
        self.registry = registry
    }

    /// Answers one request: plans the response and hands it to MHD; the log line waits for the end.
    fileprivate func handle(_ connection: OpaquePointer, record: RequestRecord, url: UnsafePointer<CChar>,
                            method: String, version: UnsafePointer<CChar>) -> MHD_Result {
        registry.answering(connection)
        let versionText = String(cString: version)
        let header: (String) -> String? = { name in
            MHD_lookup_connection_value(connection, cmhd_header_kind, name).map { String(cString: $0) }
        }
        let request = FileRequest(method: method, target: String(cString: url), targetBytes: record.targetBytes(url: url, version: version),
                                  query: QueryParameters(target: record.targetPrefix), version: versionText, header: header)
        let plan = responder.respond(to: request)
        let reason = MHD_get_reason_phrase_for(UInt32(plan.status)).map { String(cString: $0) } ?? ""
        record.answer = AnsweredRequest(
            client: numericHost(cmhd_client_address(connection)), method: method, target: request.target, version: versionText,
            status: plan.status, announcedLength: plan.bodyLength, note: plan.logNote,
            headerLength: responseHeaderLength(status: plan.status, reason: reason, fields: plan.headers, contentLength: plan.bodyLength,
                                               requestVersion: versionText, connectionHeader: header("Connection")),
            sentBefore: bytesSent(connection))
        answering.withLock { $0 += 1 }
        return queue(plan, on: connection)
    }

    /// The request is over (`completed`: libmicrohttpd sent the whole response).
    fileprivate func finished(_ connection: OpaquePointer, record: RequestRecord, completed: Bool) {
        registry.waiting(connection)
        guard let a = record.answer else { return }
        let sent = a.bodyBytesSent(completed: completed, sentAfter: completed ? nil : bytesSent(connection))
        log.record(client: a.client, method: a.method, target: a.target, version: a.version, status: a.status, bytes: sent, note: a.note)
        answering.withLock { $0 -= 1 }
    }

    /// How many responses have been queued and not yet ended (and logged).
    var responsesInProgress: Int { answering.withLock { $0 } }

    private func bytesSent(_ connection: OpaquePointer) -> UInt64? {
        let fd = cmhd_connection_fd(connection)
        guard fd >= 0 else { return nil }
        let n = cmhd_socket_bytes_sent(fd)
        return n >= 0 ? UInt64(n) : nil
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

/// MHD_OPTION_URI_LOG_CALLBACK: the request line is in; its target has not been cut at `?`
/// yet. What this returns is the request's context pointer, released in `requestCompleted`.
let requestLineSeen: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { _, uri, _ in
    guard let uri else { return nil }
    return Unmanaged.passRetained(RequestRecord(target: uri)).toOpaque()
}

/// MHD's request callback: decodes the C arguments and forwards to the context. Answering on
/// the first call (headers in) would make MHD close the connection, not knowing whether a body
/// follows; a body on GET/HEAD is read and ignored.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, _, uploadSize, requestState in
    guard let cls, let connection, let url, let method, let version, let requestState, let state = requestState.pointee else { return cmhd_no }
    let record = Unmanaged<RequestRecord>.fromOpaque(state).takeUnretainedValue()
    if !record.headersSeen {
        record.headersSeen = true
        return cmhd_yes
    }
    if let uploadSize, uploadSize.pointee != 0 {
        uploadSize.pointee = 0
        return cmhd_yes
    }
    let context = Unmanaged<ServingContext>.fromOpaque(cls).takeUnretainedValue()
    return context.handle(connection, record: record, url: url, method: String(cString: method), version: version)
}

/// MHD_OPTION_NOTIFY_COMPLETED: the response ended (or the connection broke).
let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestState, termination in
    guard let cls, let connection, let requestState, let state = requestState.pointee else { return }
    requestState.pointee = nil
    let record = Unmanaged<RequestRecord>.fromOpaque(state).takeRetainedValue()
    let context = Unmanaged<ServingContext>.fromOpaque(cls).takeUnretainedValue()
    context.finished(connection, record: record, completed: termination == cmhd_completed_ok)
}

/// MHD_OPTION_NOTIFY_CONNECTION: a connection opened or closed.
let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let context = Unmanaged<ServingContext>.fromOpaque(cls).takeUnretainedValue()
    if code == cmhd_connection_started {
        context.registry.opened(connection, fd: cmhd_connection_fd(connection), address: numericHost(cmhd_client_address(connection)))
    } else {
        context.registry.closed(connection)
    }
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
