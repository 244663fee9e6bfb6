import CCurl
import Foundation

/// `HTTPTransport` on libcurl.
///
/// - Connections are kept alive and reused: every request runs on an easy handle taken from a
///   small pool, and all handles share one connection cache (up to 32 idle connections), DNS cache and TLS session cache
///   (a CURLSH guarded by one mutex per kind of data), so the transport is safe to use from any
///   number of threads at once, each request on its own handle.
/// - HTTP/2 is negotiated over TLS when the server offers it (CURL_HTTP_VERSION_2TLS).
/// - `caFile` replaces the system's trusted roots (CURLOPT_CAINFO), for private servers.
/// - Only http and https URLs are accepted; redirects are never followed (see `HTTPRequest`).
public final class CurlTransport: HTTPTransport, @unchecked Sendable {
    public let caFile: String?
    public let userAgent: String
    /// When set, every request goes over this Unix socket (CURLOPT_UNIX_SOCKET_PATH) whatever
    /// the URL's host: how a client talks to a local agent.
    public let unixSocketPath: String?
    private let share: OpaquePointer
    private let lock = NSLock()
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private static let maxIdleHandles = 16

    /// Throws `.invalidRequest` when libcurl cannot start or `caFile` is not a readable file.
    public init(caFile: String? = nil, userAgent: String = "AssetPacks/1", unixSocketPath: String? = nil) throws(TransportError) {
        guard CurlLibrary.initialized else { throw .invalidRequest("libcurl failed to initialize") }
        if let caFile {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: caFile, isDirectory: &isDirectory), !isDirectory.boolValue,
                  FileManager.default.isReadableFile(atPath: caFile) else {
                throw .invalidRequest("CA file \(caFile) does not exist or is not readable")
            }
        }
        guard let share = ccurl_share_create() else { throw .invalidRequest("libcurl could not create a share handle") }
        self.share = share
        self.caFile = caFile
        self.userAgent = userAgent
        self.unixSocketPath = unixSocketPath
    }

    deinit {
        for handle in idleHandles { curl_easy_cleanup(handle) }
        ccurl_share_destroy(share)
    }

    public func send(_ request: HTTPRequest, to destination: HTTPBodyDestination = .memory,
                     cancellation: CancellationFlag? = nil) throws(TransportError) -> HTTPResponse {
        guard request.url.lowercased().hasPrefix("http://") || request.url.lowercased().hasPrefix("https://") else {
            throw .invalidRequest("\(request.url): only http and https URLs are supported")
        }
        if cancellation?.isCancelled == true { throw .cancelled(url: request.url) }
        guard let handle = checkOut() else { throw .invalidRequest("libcurl could not create a handle") }
        defer { checkIn(handle) }
        let sendsBody = request.method == .put || request.method == .post
        guard request.body == nil || sendsBody else {
            throw .invalidRequest("\(request.url): a body is only sent with PUT or POST")
        }
        let body = request.body ?? (sendsBody ? .bytes([]) : nil)
        let source = try body.map { body throws(TransportError) in try CurlUploadSource(body) }
        let transfer = CurlTransfer(handle: handle, url: request.url, destination: destination, cancellation: cancellation)
        transfer.source = source
        transfer.averageRate = request.minimumAverageRate
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        try configure(handle, for: request, transfer: transfer, headerList: &headerList)
        let code = withExtendedLifetime((transfer, source)) { curl_easy_perform(handle) }
        if code != CURLE_OK { throw error(for: code, transfer: transfer) }
        return try response(of: transfer)
    }

    private func configure(_ h: UnsafeMutableRawPointer, for request: HTTPRequest, transfer: CurlTransfer,
                           headerList: inout UnsafeMutablePointer<curl_slist>?) throws(TransportError) {
        var failed: CURLoption?
        func set(_ option: CURLoption, _ code: CURLcode) { if code != CURLE_OK, failed == nil { failed = option } }
        func set(_ option: CURLoption, long value: Int) { set(option, ccurl_setopt_long(h, option, value)) }
        func set(_ option: CURLoption, string value: String) { set(option, ccurl_setopt_string(h, option, value)) }

        set(CURLOPT_URL, string: request.url)
        set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        set(CURLOPT_NOSIGNAL, long: 1)
        set(CURLOPT_SHARE, ccurl_setopt_pointer(h, CURLOPT_SHARE, UnsafeMutableRawPointer(ccurl_share_handle(share))))
        set(CURLOPT_HTTP_VERSION, long: ccurl_http_version_2tls())
        set(CURLOPT_USERAGENT, string: userAgent)
        set(CURLOPT_TCP_KEEPALIVE, long: 1)
        // The shared cache keeps this many idle connections (libcurl's default, 5, closed and
        // reopened one per request when more run at once: LAN peers are asked 8 at a time).
        set(CURLOPT_MAXCONNECTS, long: 32)
        // Bulk downloads: fewer, larger hand-overs to the body stream than the default 16 KiB.
        set(CURLOPT_BUFFERSIZE, long: 256 << 10)
        set(CURLOPT_FOLLOWLOCATION, long: 0)
        set(CURLOPT_ERRORBUFFER, ccurl_setopt_pointer(h, CURLOPT_ERRORBUFFER, transfer.errorBuffer))
        if let caFile { set(CURLOPT_CAINFO, string: caFile) }
        if let unixSocketPath { set(CURLOPT_UNIX_SOCKET_PATH, string: unixSocketPath) }
        set(CURLOPT_CONNECTTIMEOUT_MS, long: request.connectTimeout.curlMilliseconds)
        if let limit = request.lowSpeedLimit {
            set(CURLOPT_LOW_SPEED_LIMIT, long: limit.bytesPerSecond)
            set(CURLOPT_LOW_SPEED_TIME, long: max(1, (limit.duration.curlMilliseconds + 999) / 1000))
        }
        if let timeout = request.timeout { set(CURLOPT_TIMEOUT_MS, long: timeout.curlMilliseconds) }

        let context = Unmanaged.passUnretained(transfer).toOpaque()
        set(CURLOPT_HEADERFUNCTION, ccurl_setopt_data_callback(h, CURLOPT_HEADERFUNCTION, curlHeaderCallback))
        set(CURLOPT_HEADERDATA, ccurl_setopt_pointer(h, CURLOPT_HEADERDATA, context))
        set(CURLOPT_WRITEFUNCTION, ccurl_setopt_data_callback(h, CURLOPT_WRITEFUNCTION, curlWriteCallback))
        set(CURLOPT_WRITEDATA, ccurl_setopt_pointer(h, CURLOPT_WRITEDATA, context))
        set(CURLOPT_NOPROGRESS, long: 0)
        set(CURLOPT_XFERINFOFUNCTION, ccurl_setopt_xferinfo_callback(h, curlProgressCallback))
        set(CURLOPT_XFERINFODATA, ccurl_setopt_pointer(h, CURLOPT_XFERINFODATA, context))

        switch request.method {
        case .get: set(CURLOPT_HTTPGET, long: 1)
        case .head: set(CURLOPT_NOBODY, long: 1)
        case .delete: set(CURLOPT_CUSTOMREQUEST, string: "DELETE")
        case .put, .post:
            guard let source = transfer.source else { throw .invalidRequest("\(request.url): \(request.method.rawValue) without a body source") }
            let sourceContext = Unmanaged.passUnretained(source).toOpaque()
            if request.method == .put {
                set(CURLOPT_UPLOAD, long: 1)
                set(CURLOPT_INFILESIZE_LARGE, ccurl_setopt_off_t(h, CURLOPT_INFILESIZE_LARGE, curl_off_t(source.size)))
            } else {
                // A POST body read through the callback, its length declared up front (no chunked encoding).
                set(CURLOPT_POST, long: 1)
                set(CURLOPT_POSTFIELDSIZE_LARGE, ccurl_setopt_off_t(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(source.size)))
            }
            set(CURLOPT_READFUNCTION, ccurl_setopt_data_callback(h, CURLOPT_READFUNCTION, curlReadCallback))
            set(CURLOPT_READDATA, ccurl_setopt_pointer(h, CURLOPT_READDATA, sourceContext))
            set(CURLOPT_SEEKFUNCTION, ccurl_setopt_seek_callback(h, curlSeekCallback))
            set(CURLOPT_SEEKDATA, ccurl_setopt_pointer(h, CURLOPT_SEEKDATA, sourceContext))
        }
        if let range = request.range {
            guard request.method == .get else { throw .invalidRequest("\(request.url): a Range is only sent with GET") }
            set(CURLOPT_RANGE, string: range.description)
        }

        var headers = request.headers
        if let signing = request.signing {
            set(CURLOPT_AWS_SIGV4, string: signing.curlParameter)
            set(CURLOPT_USERNAME, string: signing.credentials.accessKeyID)
            set(CURLOPT_PASSWORD, string: signing.credentials.secretAccessKey)
            if !headers.contains("x-amz-content-sha256") { headers.append("x-amz-content-sha256", "UNSIGNED-PAYLOAD") }
            if let token = signing.credentials.sessionToken { headers.set("X-Amz-Security-Token", token) }
        }
        for field in headers {
            guard !field.name.contains(where: { $0 == ":" || $0 == "\r" || $0 == "\n" }),
                  !field.value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw .invalidRequest("\(request.url): header \(field.name) is malformed")
            }
            guard let list = curl_slist_append(headerList, "\(field.name): \(field.value)") else {
                throw .invalidRequest("out of memory building headers")
            }
            headerList = list
        }
        if headerList != nil { set(CURLOPT_HTTPHEADER, ccurl_setopt_pointer(h, CURLOPT_HTTPHEADER, headerList)) }
        if let failed { throw .invalidRequest("\(request.url): libcurl \(CurlLibrary.version) rejected option \(failed.rawValue)") }
    }

    private func response(of transfer: CurlTransfer) throws(TransportError) -> HTTPResponse {
        let h = transfer.handle
        var status = 0, version = 0, connects = 0
        _ = ccurl_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
        _ = ccurl_getinfo_long(h, CURLINFO_HTTP_VERSION, &version)
        _ = ccurl_getinfo_long(h, CURLINFO_NUM_CONNECTS, &connects)
        transfer.status = status
        if (200..<300).contains(status), !transfer.deliverHead() {
            throw .aborted(url: transfer.url, underlying: transfer.consumerError ?? BodyTooLarge(limit: 0))
        }
        return HTTPResponse(status: status, headers: transfer.headers, body: transfer.body, bodyByteCount: transfer.bodyByteCount,
                            url: info(h, CURLINFO_EFFECTIVE_URL) ?? transfer.url, redirectURL: info(h, CURLINFO_REDIRECT_URL),
                            httpVersion: Self.versionName(version), newConnectionCount: connects)
    }

    private func info(_ h: UnsafeMutableRawPointer, _ key: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard ccurl_getinfo_string(h, key, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    private static func versionName(_ v: Int) -> String {
        switch v {
        case CURL_HTTP_VERSION_1_0: return "1.0"
        case CURL_HTTP_VERSION_2_0: return "2"
        case CURL_HTTP_VERSION_3: return "3"
        default: return "1.1"
        }
    }

    private func error(for code: CURLcode, transfer: CurlTransfer) -> TransportError {
        if let consumerError = transfer.consumerError { return .aborted(url: transfer.url, underlying: consumerError) }
        if let fileError = transfer.fileError ?? transfer.source?.error { return fileError }
        if code == CURLE_ABORTED_BY_CALLBACK, transfer.isCancelled { return .cancelled(url: transfer.url) }
        if code == CURLE_ABORTED_BY_CALLBACK, let slowness = transfer.slowness { return .timedOut(url: transfer.url, message: slowness) }
        return TransportError(curlCode: code, url: transfer.url, detail: transfer.errorMessage)
    }

    private func checkOut() -> UnsafeMutableRawPointer? {
        lock.withLock { idleHandles.popLast() } ?? curl_easy_init()
    }

    /// Clears the handle (options, callbacks and pointers into the finished transfer) and keeps
    /// it for the next request; its connection stays in the shared cache.
    private func checkIn(_ handle: UnsafeMutableRawPointer) {
        curl_easy_reset(handle)
        let kept = lock.withLock {
            guard idleHandles.count < Self.maxIdleHandles else { return false }
            idleHandles.append(handle)
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }
}
