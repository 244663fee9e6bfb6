import AssetPackFormat
import CMicroHTTPD
import Foundation
import Synchronization

/// `assetpack key-server`: hands a sealed pack's content key to a client that presents an
/// entitlement token (docs/FORMAT.md, "Key server protocol"; docs/SECURITY.md).
///
/// `GET /v1/keys/<pack ID>/<key ID>` with `Authorization: Bearer <token>` answers 200 and
/// `{"packID", "keyID", "key"}` (the key in base64) when the token is entitled to the pack and
/// the key store holds that key; 401 without a token, 403 `{"error": reason}` when the token is
/// refused, 429 when the token has made too many requests (`Retry-After`), 404 for a pack or key
/// the store does not hold, 400 for anything else. Every decision is logged, with the token's
/// fingerprint (the first 12 hex digits of its SHA-256), never the token. Keys travel only over
/// TLS, or on a loopback address.
public final class KeyServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        public var port: UInt16 = 0
        /// TLS (`--https`); without it the host must be a loopback address.
        public var tls: TLSIdentity?
        /// Requests per minute per token (a burst of as many).
        public var requestsPerMinute = 60
        /// Where decisions are logged, one line each.
        public var log: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        public var now: @Sendable () -> Date = { Date() }
        /// Seconds on a monotonic clock, for the rate limit (tests freeze it).
        public var monotonicSeconds: @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

        public init() {}
    }

    public let port: UInt16
    public let configuration: Configuration
    private let context: KeyServerContext
    private var daemon: OpaquePointer?
    private var tlsText: DaemonPEMText?

    /// Starts serving the keys of the store at `keyStorePath` (read now, and again whenever the
    /// file changes, so a `publish --rotate-key` needs no restart).
    public init(keyStorePath: String, check: EntitlementCheck, configuration: Configuration) throws(KeyServerError) {
        self.configuration = configuration
        guard configuration.tls != nil || Self.isLoopback(configuration.host) else {
            throw .configuration("--host \(configuration.host) is not a loopback address: content keys travel only over TLS (--https) off loopback")
        }
        guard (1...1_000_000).contains(configuration.requestsPerMinute) else {
            throw .configuration("--rate-limit takes 1 to 1000000 requests per minute, got \(configuration.requestsPerMinute)")
        }
        let store = try KeyStoreFile(path: keyStorePath)
        context = KeyServerContext(store: store, check: check, limiter: TokenRateLimiter(perMinute: configuration.requestsPerMinute, clock: configuration.monotonicSeconds),
                                   log: configuration.log, now: configuration.now)
        let listen: (fd: Int32, port: UInt16)
        do { listen = try makeListeningSocket(host: configuration.host, port: configuration.port) } catch { throw .server(.listen(error.address, error.reason)) }
        port = listen.port
        signal(SIGPIPE, SIG_IGN)
        tlsText = configuration.tls.map(DaemonPEMText.init)
        var c = cmhd_config.threadPerConnection(listenSocket: listen.fd, pem: tlsText)
        c.connection_limit = 1024
        c.connection_timeout_seconds = 30
        c.handler = keyServerHandler
        c.handler_cls = Unmanaged.passUnretained(context).toOpaque()
        guard let d = cmhd_start(&c) else {
            close(listen.fd)
            throw .server(.daemon("libmicrohttpd refused to start" + (configuration.tls == nil ? "" : " (check the TLS certificate and key)")))
        }
        daemon = d
    }

    deinit { stop() }

    /// The base URL, e.g. `http://127.0.0.1:8443/`.
    public var url: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(configuration.tls == nil ? "http" : "https")://\(host):\(port)/"
    }

    /// Stops serving and releases the port. Idempotent.
    public func stop() {
        if let d = daemon {
            daemon = nil
            MHD_stop_daemon(d)
        }
        tlsText = nil
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// The key store file, read again when it changes (size, modification time or inode).
final class KeyStoreFile: Sendable {
    let path: String
    private struct Loaded { var store: ContentKeyStore; var stamp: [Int] }
    private let loaded: Mutex<Loaded>

    init(path: String) throws(KeyServerError) {
        self.path = path
        let stamp = Self.stamp(path)
        do { loaded = Mutex(Loaded(store: try ContentKeyStore.load(path), stamp: stamp)) } catch {
            throw .configuration("\(error)")
        }
    }

    private static func stamp(_ path: String) -> [Int] {
        var st = stat()
        guard lstat(path, &st) == 0 else { return [] }
        return [Int(st.st_size), Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec), Int(st.st_ino), Int(st.st_mode)]
    }

    /// The current store; a store that changed into something unreadable (or with loose
    /// permissions) is an error, and no key is handed out from it.
    func current() throws(ContentKeyStore.Problem) -> ContentKeyStore {
        let stamp = Self.stamp(path)
        return try loaded.withLock { (l: inout Loaded) throws(ContentKeyStore.Problem) -> ContentKeyStore in
            if stamp != l.stamp {
                l.store = try ContentKeyStore.load(path)
                l.stamp = stamp
            }
            return l.store
        }
    }
}

/// What a request is answered with.
struct KeyServerAnswer: Equatable {
    var status: Int
    var body: [String: String]
    var retryAfter: Int?
}

/// The decisions of the key server, apart from HTTP.
final class KeyServerContext: Sendable {
    let store: KeyStoreFile
    let check: EntitlementCheck
    let limiter: TokenRateLimiter
    let log: @Sendable (String) -> Void
    let now: @Sendable () -> Date

    init(store: KeyStoreFile, check: EntitlementCheck, limiter: TokenRateLimiter, log: @escaping @Sendable (String) -> Void,
         now: @escaping @Sendable () -> Date) {
        self.store = store
        self.check = check
        self.limiter = limiter
        self.log = log
        self.now = now
    }

    func answer(method: String, path: String, authorization: String?, from address: String) -> KeyServerAnswer {
        let token: String? = authorization.flatMap { value in
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            let t = parts[1].trimmingCharacters(in: .whitespaces)
            return t.isEmpty ? nil : t
        }
        let fingerprint = token.map { "token " + SHA256Digest.hash(Array($0.utf8)).hex.prefix(12) } ?? "no token"
        func decide(_ status: Int, _ decision: String, _ body: [String: String], retryAfter: Int? = nil) -> KeyServerAnswer {
            log("\(RFC3339.string(now())) key-server \(address) \(fingerprint) \(method) \(path.prefix(200)) \(status) \(decision)")
            return KeyServerAnswer(status: status, body: body, retryAfter: retryAfter)
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard method == "GET", parts.count == 5, parts[0].isEmpty, parts[1] == "v1", parts[2] == "keys" else {
            return decide(400, "refused: not GET /v1/keys/<pack ID>/<key ID>", ["error": "not a key request: GET /v1/keys/<pack ID>/<key ID>"])
        }
        let pack = String(parts[3])
        guard AssetPackID.problem(with: pack) == nil, let keyID = SHA256Digest(hex: String(parts[4])) else {
            return decide(400, "refused: malformed pack ID or key ID", ["error": "malformed pack ID or key ID"])
        }
        guard let token else {
            return decide(401, "refused: no token", ["error": "an entitlement token is required (Authorization: Bearer <token>)"])
        }
        if let wait = limiter.admit(token) {
            let seconds = max(1, Int(wait.rounded(.up)))
            return decide(429, "refused: rate limited", ["error": "rate limited: more than \(limiter.perMinute) requests a minute for this token; retry after \(seconds) s"],
                          retryAfter: seconds)
        }
        if let refusal = check.refusal(token: token, pack: pack, now: now()) {
            return decide(403, "refused: \(refusal) (pack \(pack))", ["error": refusal])
        }
        let keys: ContentKeyStore
        do { keys = try store.current() } catch {
            return decide(500, "error: \(error)", ["error": "the key server cannot read its key store"])
        }
        guard let key = keys.key(of: pack, keyID: keyID) else {
            return decide(404, "granted, but no key \(keyID.hex.prefix(16))… for pack \(pack)", ["error": "no key \(keyID.hex) for pack \(pack)"])
        }
        return decide(200, "granted: key \(keyID.hex.prefix(16))… of pack \(pack)", ["packID": pack, "keyID": keyID.hex, "key": key.base64])
    }
}

/// MHD's access handler: the first call (headers in) is acknowledged, a body is ignored, and the
/// last call answers.
private let keyServerHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, uploadSize, requestState in
    guard let cls, let connection, let url, let method, let requestState else { return cmhd_no }
    if requestState.pointee == nil {
        requestState.pointee = UnsafeMutableRawPointer(bitPattern: 1)
        return cmhd_yes
    }
    if let uploadSize, uploadSize.pointee != 0 {
        uploadSize.pointee = 0
        return cmhd_yes
    }
    let context = Unmanaged<KeyServerContext>.fromOpaque(cls).takeUnretainedValue()
    let authorization = MHD_lookup_connection_value(connection, cmhd_header_kind, "Authorization").map { String(cString: $0) }
    let answer = context.answer(method: String(cString: method), path: String(cString: url), authorization: authorization,
                                from: numericHost(cmhd_client_address(connection)))
    let body = (try? JSONSerialization.data(withJSONObject: answer.body, options: [.sortedKeys])).map { [UInt8]($0) } ?? []
    let response = body.withUnsafeBytes { b in
        MHD_create_response_from_buffer(b.count, UnsafeMutableRawPointer(mutating: b.baseAddress), cmhd_respmem_must_copy)
    }
    guard let response else { return cmhd_no }
    MHD_add_response_header(response, "Content-Type", "application/json")
    MHD_add_response_header(response, "Cache-Control", "no-store")
    if let retry = answer.retryAfter { MHD_add_response_header(response, "Retry-After", "\(retry)") }
    let result = MHD_queue_response(connection, UInt32(answer.status), response)
    MHD_destroy_response(response)
    return result
}
