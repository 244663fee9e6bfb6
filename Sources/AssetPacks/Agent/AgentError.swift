import AssetPackFormat

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

/// The body of every error the agent answers (4xx and 5xx): `{"error": "...", "kind": "..."}`,
/// and for the manager's errors the error's own values (the pack, the path, the figures of a
/// limit, the transport or catalog failure) so that a manager working through the agent throws
/// the same `AssetPackManagerError` an in-process one would (`managerError`).
public struct AgentErrorBody: Codable, Sendable, Equatable {
    /// The message, for a person.
    public var error: String
    /// The machine-readable kind (`assetPackNotFound`, `transport`, …; docs/AGENT.md).
    public var kind: String
    /// The pack the error is about.
    public var assetPackID: String?
    /// `fileNotFound`: the path searched.
    public var path: String?
    /// `allowanceExceeded`: which allowance.
    public var what: String?
    /// `allowanceExceeded`, `storageBudgetExceeded`: the bytes needed.
    public var needed: UInt64?
    /// `allowanceExceeded`: the limit.
    public var limit: UInt64?
    /// `storageBudgetExceeded`: the budget.
    public var budget: UInt64?
    /// `storageBudgetExceeded`: what evicting every unused on-demand pack could free.
    public var evictable: UInt64?
    /// `invalidPreservationPriority`: the priority refused (absent when it is not a number).
    public var priority: Double?
    /// `domainNotAllowed`: the host refused.
    public var host: String?
    /// `domainNotAllowed`: the URL refused; `insecureRedirect`: the https URL that redirected.
    public var url: String?
    /// `insecureRedirect`: the http URL it redirected to.
    public var location: String?
    /// `verification`, `storage`, `invalidConfiguration`: the reason without the kind's prefix.
    public var reason: String?
    /// `transport`: the failure, case by case.
    public var transport: AgentTransportFailure?
    /// `catalog`: why the catalog was refused.
    public var catalog: CatalogError?
    /// `trust`: why the root chain or the timestamp was refused (root mode).
    public var trust: TrustError?

    /// A body with the message and kind only.
    public init(error: String, kind: String) {
        self.error = error
        self.kind = kind
    }
}
