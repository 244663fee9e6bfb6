/// How a `RepositoryServer` listens, logs and misbehaves. The repository folder is the only
/// other input.
public struct ServerConfiguration: Sendable {
    /// Address to bind; loopback unless told otherwise.
    public var host = "127.0.0.1"
    /// Port to bind; 0 picks a free one (read it back from `RepositoryServer.port`).
    public var port: UInt16 = 0
    /// Certificate and key for HTTPS; nil serves plain HTTP.
    public var tls: TLSIdentity?
    public var faults = FaultConfiguration()
    public var accessLog: AccessLogDestination = .standardError
    public var contentPolicy = ContentPolicy()
    /// Connections served at once (one thread each). When fewer than a sixteenth of them are
    /// free, each new connection makes room by closing the connection that has waited longest
    /// for a complete request (a slow or idle client), so a flood of slow connections cannot
    /// lock newcomers out; past the limit itself, with every connection busy answering, the
    /// newcomer is closed. Connections being closed may briefly add up to as many again.
    public var connectionLimit = 4096
    /// Connections one client address may hold. A newcomer past it closes that address's
    /// connection that has waited longest for a complete request, or is itself closed if every
    /// one of them is busy answering. Eviction rather than refusal keeps a well-behaved client
    /// served behind the same address as a misbehaving one (every loopback client is 127.0.0.1).
    public var perAddressConnectionLimit = 1024
    /// Seconds a connection has to deliver a complete request — headers and any body — counted
    /// from when it opened or its previous response ended. Trickling bytes does not extend it;
    /// it also bounds how long an idle keep-alive connection is kept.
    public var requestTimeoutSeconds = 10
    /// Seconds without any traffic after which libmicrohttpd closes a connection (a client that
    /// stopped reading a response, for one).
    public var idleTimeoutSeconds = 30

    public init() {}

    /// Refuses limits that would stop the server from serving anyone, or that no machine could
    /// honour (more than a million connections, timeouts past a day).
    func validate() throws(ServerError) {
        func check(_ name: String, _ value: Int, _ range: ClosedRange<Int>) throws(ServerError) {
            guard range.contains(value) else { throw .configuration("\(name) must be from \(range.lowerBound) to \(range.upperBound), got \(value)") }
        }
        try check("connectionLimit", connectionLimit, 1...1_000_000)
        try check("perAddressConnectionLimit", perAddressConnectionLimit, 1...1_000_000)
        try check("requestTimeoutSeconds", requestTimeoutSeconds, 1...86_400)
        try check("idleTimeoutSeconds", idleTimeoutSeconds, 1...86_400)
    }
}

/// A PEM certificate chain and private key for HTTPS.
public struct TLSIdentity: Sendable {
    public var certificatePEM: String
    public var privateKeyPEM: String

    public init(certificatePEM: String, privateKeyPEM: String) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }
}

/// Where access log lines go.
public enum AccessLogDestination: Sendable {
    case none
    case standardError
    case file(String)
}

/// Why a server could not start.
public enum ServerError: Error, CustomStringConvertible, Equatable {
    case directory(String, String)
    case listen(String, String)
    case accessLog(String, String)
    case daemon(String)
    case configuration(String)

    public var description: String {
        switch self {
        case .directory(let path, let why): return "cannot serve \(path): \(why)"
        case .listen(let address, let why): return "cannot listen on \(address): \(why)"
        case .accessLog(let path, let why): return "cannot open access log \(path): \(why)"
        case .daemon(let why): return "cannot start the HTTP server: \(why)"
        case .configuration(let why): return "bad server configuration: \(why)"
        }
    }
}
