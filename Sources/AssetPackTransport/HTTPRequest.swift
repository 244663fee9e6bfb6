/// One HTTP request as the transport sends it. Redirects are never followed by the transport:
/// a 3xx comes back as the response, with `HTTPResponse.redirectURL`, so that the caller can
/// check each hop (for example against a domain allow-list) and send the next request itself.
public struct HTTPRequest: Sendable {
    public enum Method: String, Sendable { case get = "GET", head = "HEAD", put = "PUT", post = "POST", delete = "DELETE" }

    /// What a PUT or POST sends.
    public enum Body: Sendable {
        case bytes([UInt8])
        /// The file at this path, streamed; its size is taken when the request starts.
        case file(path: String)
        /// `length` bytes of the file at this path from `offset`, streamed (a part of a multipart
        /// upload); the request fails when the file is shorter than `offset + length`.
        case fileSection(path: String, offset: UInt64, length: UInt64)
    }

    /// Aborts a transfer slower than `bytesPerSecond` for `duration` (CURLOPT_LOW_SPEED_*):
    /// this is how a server that stops sending, or never answers, is detected.
    public struct LowSpeedLimit: Sendable, Equatable {
        public var bytesPerSecond: Int
        public var duration: Duration
        public init(bytesPerSecond: Int, duration: Duration) {
            self.bytesPerSecond = bytesPerSecond
            self.duration = duration
        }
    }

    public var method: Method
    /// An absolute http or https URL, already percent-encoded.
    public var url: String
    public var headers: HTTPHeaders
    /// Sent as `Range: bytes=…` (GET only).
    public var range: ByteRange?
    public var body: Body?
    /// Time allowed to resolve, connect and finish the TLS handshake.
    public var connectTimeout: Duration
    public var lowSpeedLimit: LowSpeedLimit?
    /// Limit on the whole transfer; nil for none (large downloads rely on `lowSpeedLimit`).
    public var timeout: Duration?
    public var signing: AWSSigning?

    public init(_ method: Method = .get, url: String, headers: HTTPHeaders = HTTPHeaders(), range: ByteRange? = nil,
                body: Body? = nil, connectTimeout: Duration = .seconds(15),
                lowSpeedLimit: LowSpeedLimit? = LowSpeedLimit(bytesPerSecond: 1, duration: .seconds(30)),
                timeout: Duration? = nil, signing: AWSSigning? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.range = range
        self.body = body
        self.connectTimeout = connectTimeout
        self.lowSpeedLimit = lowSpeedLimit
        self.timeout = timeout
        self.signing = signing
    }
}

extension Duration {
    /// Whole milliseconds, at least 1 for any positive duration (libcurl treats 0 as "no limit").
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return ms == 0 && attoseconds > 0 ? 1 : Int(ms)
    }
}
