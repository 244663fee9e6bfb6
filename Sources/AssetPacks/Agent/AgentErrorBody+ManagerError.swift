import AssetPackFormat
import AssetPackTransport
import Foundation

/// `TransportError` as the agent's error replies carry it: the case and its values.
public struct AgentTransportFailure: Codable, Sendable, Equatable {
    /// The case's name: `invalidRequest`, `nameResolution`, `connection`, `tls`, `timedOut`,
    /// `cancelled`, `aborted`, `httpStatus`, `file` or `transfer`.
    public var failure: String
    /// The URL (the path for `file`).
    public var url: String?
    /// The failure's message (for `aborted`, its cause).
    public var message: String?
    /// `httpStatus`: the status.
    public var status: Int?
    /// `transfer`: libcurl's code.
    public var code: Int?

    init(_ error: TransportError) {
        switch error {
        case .invalidRequest(let m): failure = "invalidRequest"; message = m
        case let .nameResolution(url, m): failure = "nameResolution"; self.url = url; message = m
        case let .connection(url, m): failure = "connection"; self.url = url; message = m
        case let .tls(url, m): failure = "tls"; self.url = url; message = m
        case let .timedOut(url, m): failure = "timedOut"; self.url = url; message = m
        case .cancelled(let url): failure = "cancelled"; self.url = url
        case let .aborted(url, underlying): failure = "aborted"; self.url = url; message = "\(underlying)"
        case let .httpStatus(url, status, _): failure = "httpStatus"; self.url = url; self.status = status
        case let .file(path, m): failure = "file"; url = path; message = m
        case let .transfer(url, code, m): failure = "transfer"; self.url = url; self.code = code; message = m
        }
    }

    /// The error it stands for (an aborted transfer's cause comes back as its message; an HTTP
    /// status without the body).
    var transportError: TransportError {
        let url = self.url ?? "", message = self.message ?? ""
        switch failure {
        case "invalidRequest": return .invalidRequest(message)
        case "nameResolution": return .nameResolution(url: url, message: message)
        case "connection": return .connection(url: url, message: message)
        case "tls": return .tls(url: url, message: message)
        case "timedOut": return .timedOut(url: url, message: message)
        case "cancelled": return .cancelled(url: url)
        case "aborted": return .aborted(url: url, underlying: AgentError.remote(status: 0, kind: "aborted", message: message))
        case "httpStatus": return .httpStatus(url: url, status: status ?? 0, body: [])
        case "file": return .file(path: url, message: message)
        default: return .transfer(url: url, code: code ?? 0, message: message)
        }
    }
}

extension AgentErrorBody {
    /// The status and body the agent answers a manager's error with (docs/AGENT.md, "The API").
    public static func reply(for error: AssetPackManagerError) -> (status: Int, body: AgentErrorBody) {
        var body = AgentErrorBody(error: "\(error)", kind: "internal")
        let status: Int
        switch error {
        case .assetPackNotFound(let id): status = 404; body.kind = "assetPackNotFound"; body.assetPackID = id
        case .fileNotFound(let path): status = 404; body.kind = "fileNotFound"; body.path = path.string
        case .transport(let e): status = 502; body.kind = "transport"; body.transport = AgentTransportFailure(e)
        case .catalog(let e): status = 502; body.kind = "catalog"; body.catalog = e
        case .trust(let e): status = 502; body.kind = "trust"; body.trust = e
        case .verification(let why): status = 502; body.kind = "verification"; body.reason = why
        case let .allowanceExceeded(what, needed, limit):
            status = 409; body.kind = "allowanceExceeded"; body.what = what; body.needed = needed; body.limit = limit
        case let .storageBudgetExceeded(id, needed, budget, evictable):
            status = 409; body.kind = "storageBudgetExceeded"; body.assetPackID = id
            body.needed = needed; body.budget = budget; body.evictable = evictable
        case let .invalidPreservationPriority(priority, id):
            status = 400; body.kind = "invalidPreservationPriority"; body.assetPackID = id
            body.priority = priority.isFinite ? priority : nil
        case let .domainNotAllowed(host, url): status = 403; body.kind = "domainNotAllowed"; body.host = host; body.url = url
        case let .insecureRedirect(from, to): status = 502; body.kind = "insecureRedirect"; body.url = from; body.location = to
        case .downloadDeclined(let id): status = 409; body.kind = "downloadDeclined"; body.assetPackID = id
        case .cancelled: status = 409; body.kind = "cancelled"
        case .storage(let why): status = 507; body.kind = "storage"; body.reason = why
        case .invalidConfiguration(let why): status = 500; body.kind = "invalidConfiguration"; body.reason = why
        case let .channelNotFound(channel, url): status = 404; body.kind = "channelNotFound"; body.reason = channel; body.url = url
        case .entitlementRequired(let pack): status = 403; body.kind = "entitlementRequired"; body.assetPackID = pack.id
        case let .entitlementRejected(pack, reason): status = 403; body.kind = "entitlementRejected"; body.assetPackID = pack.id; body.reason = reason
        case let .keyServer(pack, why): status = 502; body.kind = "keyServer"; body.assetPackID = pack.id; body.reason = why
        case .storageRootInUse: status = 500
        }
        return (status, body)
    }

    /// The manager's error this reply stands for, for a manager working through the agent; nil
    /// for the agent's own kinds (`malformedRequest`, `stopping`, `forbidden`, …). `paused` (the
    /// download was cancelled through the agent while the call waited) is `cancelled`, as a
    /// download stopped for every caller is in process.
    public var managerError: AssetPackManagerError? {
        let reason = self.reason ?? error
        switch kind {
        case "assetPackNotFound": return .assetPackNotFound(withID: assetPackID ?? "")
        case "fileNotFound": return .fileNotFound(at: FilePath(path ?? ""))
        case "transport": return .transport(transport?.transportError ?? .transfer(url: "", code: 0, message: error))
        case "catalog": return .catalog(catalog ?? .malformed(error))
        case "trust": return .trust(trust ?? .malformed(file: "", error))
        case "verification": return .verification(reason)
        case "allowanceExceeded": return .allowanceExceeded(what ?? error, needed: needed ?? 0, limit: limit ?? 0)
        case "storageBudgetExceeded":
            return .storageBudgetExceeded(assetPackID: assetPackID ?? "", needed: needed ?? 0, budget: budget ?? 0, evictable: evictable ?? 0)
        case "invalidPreservationPriority": return .invalidPreservationPriority(priority ?? .nan, assetPackID: assetPackID ?? "")
        case "domainNotAllowed": return .domainNotAllowed(host: host ?? "", url: url ?? "")
        case "insecureRedirect": return .insecureRedirect(from: url ?? "", to: location ?? "")
        case "downloadDeclined": return .downloadDeclined(assetPackID: assetPackID ?? "")
        case "cancelled", "paused": return .cancelled
        case "storage": return .storage(reason)
        case "invalidConfiguration": return .invalidConfiguration(reason)
        case "channelNotFound": return .channelNotFound(channel: self.reason ?? "", url: url ?? "")
        default: return nil
        }
    }
}
