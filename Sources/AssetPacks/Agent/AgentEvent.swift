/// One status update as the agent's stream carries it (`GET /v1/events`): Apple's five events,
/// each with the pack it is about. The JSON form is the `data:` line of a server-sent event.
public struct AgentEvent: Sendable, Codable, Equatable {
    /// `began`, `paused`, `downloading`, `finished` or `failed`.
    public var event: String
    public var pack: AgentPackDescription
    /// `downloading`: bytes done and in all.
    public var completed: Int64?
    public var total: Int64?
    /// `failed`: why.
    public var error: String?
    /// `failed` with one of the manager's errors: the error as the agent's error replies carry
    /// it, so that the update brings back the same `AssetPackManagerError`.
    public var failure: AgentErrorBody?

    public init(_ update: AssetPackManager.DownloadStatusUpdate) {
        pack = AgentPackDescription(update.assetPack, status: [])
        switch update {
        case .began: event = "began"
        case .paused: event = "paused"
        case .downloading(_, let progress):
            event = "downloading"
            completed = progress.completedUnitCount
            total = progress.totalUnitCount
        case .finished: event = "finished"
        case .failed(_, let error):
            event = "failed"
            self.error = "\(error)"
            failure = (error as? AssetPackManagerError).map { AgentErrorBody.reply(for: $0).body }
        }
    }

    /// The update the in-process manager would have sent; nil for an event this client does not know.
    var update: DownloadEvent? {
        let p = pack.assetPack
        switch event {
        case "began": return .began(p)
        case "paused": return .paused(p)
        case "downloading": return .downloading(p, completed: completed ?? 0, total: total ?? 0)
        case "finished": return .finished(p)
        case "failed": return .failed(p, failure?.managerError ?? AgentError.remote(status: 0, kind: "failed", message: error ?? "failed"))
        default: return nil
        }
    }
}
