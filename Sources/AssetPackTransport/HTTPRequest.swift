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

    /// Aborts a transfer whose body arrives slower than `bytesPerSecond` on average, counted
    /// from the start of the request, once `after` (and at least one second) has passed (checked in libcurl's progress
    /// callback): a server that drips a small file byte by byte fails in `after`, where the
    /// low-speed limit, which looks at the current rate, lets any trickle through. For small
    /// files whose whole transfer should be quick (catalogs, indexes).
    public struct AverageRate: Sendable, Equatable {
        public var bytesPerSecond: Int
        public var after: Duration
        public init(bytesPerSecond: Int, after: Duration) {
            self.bytesPerSecond = bytesPerSecond
            self.after = after
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
    /// A minimum average rate for the body; nil for none.
    public var minimumAverageRate: AverageRate?
    public var signing: AWSSigning?

    public init(_ method: Method = .get, url: String, headers: HTTPHeaders = HTTPHeaders(), range: ByteRange? = nil,
                body: Body? = nil, connectTimeout: Duration = .seconds(15),
                lowSpeedLimit: LowSpeedLimit? = LowSpeedLimit(bytesPerSecond: 1, duration: .seconds(30)),
                timeout: Duration? = nil, minimumAverageRate: AverageRate? = nil, signing: AWSSigning? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.range = range
        self.body = body
        self.connectTimeout = connectTimeout
        self.lowSpeedLimit = lowSpeedLimit
        self.timeout = timeout
        self.minimumAverageRate = minimumAverageRate
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
