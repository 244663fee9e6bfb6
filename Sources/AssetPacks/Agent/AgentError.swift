/// Why a call through `AgentConnection` failed.
public enum AgentError: Error, CustomStringConvertible, Sendable {
    /// Nothing answers on the socket (no agent runs for the root, or it is another user's).
    case unreachable(socketPath: String, reason: String)
    /// The agent answered with an error: the HTTP status, the kind of failure
    /// (`assetPackNotFound`, `transport`, …) and its message.
    case remote(status: Int, kind: String, message: String)
    /// The agent's answer could not be read.
    case malformedResponse(String)

    public var description: String {
        switch self {
        case let .unreachable(path, reason): return "no agent answers on \(path): \(reason)"
        case let .remote(status, kind, message): return status == 0 ? message : "the agent refused (\(status) \(kind)): \(message)"
        case .malformedResponse(let why): return "the agent's answer is malformed: \(why)"
        }
    }
}

/// The body of every error the agent answers (4xx and 5xx): `{"error": "...", "kind": "..."}`.
public struct AgentErrorBody: Codable, Sendable {
    public var error: String
    public var kind: String
    public init(error: String, kind: String) {
        self.error = error
        self.kind = kind
    }
}
