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
    /// Connections served at once (one thread each); more wait in the listen backlog.
    public var connectionLimit = 1024
    /// Idle keep-alive connections are closed after this many seconds.
    public var idleTimeoutSeconds = 30

    public init() {}
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

    public var description: String {
        switch self {
        case .directory(let path, let why): return "cannot serve \(path): \(why)"
        case .listen(let address, let why): return "cannot listen on \(address): \(why)"
        case .accessLog(let path, let why): return "cannot open access log \(path): \(why)"
        case .daemon(let why): return "cannot start the HTTP server: \(why)"
        }
    }
}
