/// Why the agent could not start, with what a user needs to fix it.
public enum AgentServiceError: Error, CustomStringConvertible, Sendable {
    /// The root has no repository or key yet (nothing to download from).
    case rootNotInitialized(root: String)
    /// A live agent already answers on the socket path.
    case socketInUse(path: String, holderPID: Int32?)
    /// The socket path exists and is not a socket, is too long, or cannot be bound.
    case socket(path: String, reason: String)
    /// The socket inherited from systemd (LISTEN_FDS) cannot be used.
    case inheritedSocket(String)
    /// libmicrohttpd refused to start on the socket.
    case server(String)
    /// The agent's queue database failed.
    case queue(String)
    /// The `--share` server cannot listen on its address.
    case share(address: String, reason: String)

    public var description: String {
        switch self {
        case .rootNotInitialized(let root):
            return "\(root) is not an initialised storage root: it remembers no repository or key (run 'assetpack install --root \(root) --repo URL --root-key KEY' (or --public-key KEY) once)"
        case let .socketInUse(path, pid):
            return "\(path) is in use by a running agent\(pid.map { " (process \($0))" } ?? ""): stop it first, or pass another --socket"
        case let .socket(path, reason): return "cannot listen on \(path): \(reason)"
        case .inheritedSocket(let why): return "the socket passed by systemd (LISTEN_FDS) cannot be used: \(why)"
        case .server(let why): return "the agent's HTTP server failed: \(why)"
        case .queue(let why): return "the agent's queue failed: \(why)"
        case let .share(address, reason): return "cannot share chunks on \(address): \(reason) (pass another --share-port or --share-bind)"
        }
    }
}
