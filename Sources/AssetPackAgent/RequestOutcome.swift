import Foundation

/// How an accepted request ended, for whoever waits for it: a waiting HTTP request blocks its
/// connection's thread on it.
final class RequestOutcome: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<Void, any Error>?

    func complete(_ outcome: Result<Void, any Error>) {
        condition.withLock {
            if result == nil { result = outcome }
            condition.broadcast()
        }
    }

    /// Blocks until the request ends.
    func wait() -> Result<Void, any Error> {
        condition.withLock {
            while result == nil { condition.wait() }
            return result!
        }
    }

    var isComplete: Bool { condition.withLock { result != nil } }
}

/// Why a request ended without the pack being installed, besides the manager's own errors.
enum AgentRequestError: Error, CustomStringConvertible {
    /// `cancel` stopped it (the download is paused).
    case paused(assetPackID: String)
    /// The agent is stopping; the request stays queued and resumes at the next start.
    case stopping
    /// The should-download hook said no to a download the agent started on its own.
    case declined(assetPackID: String, reason: String)

    var description: String {
        switch self {
        case .paused(let id): return "the download of \(id) was cancelled; it is paused and resumes when asked for again"
        case .stopping: return "the agent is stopping; the request stays queued and resumes at its next start"
        case let .declined(id, reason): return "\(id) was skipped: \(reason)"
        }
    }
}
