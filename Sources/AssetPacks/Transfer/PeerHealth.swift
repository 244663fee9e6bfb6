import Foundation

/// What a manager has learnt about its LAN peers (`Configuration.peers`) during its lifetime:
/// which ones are still asked for chunks. A peer is demoted — never asked again until the
/// manager goes — when it sends bytes that are not the chunk asked for (wrong size or SHA-256),
/// answers with a redirect (a peer serves its own chunks or none), stalls past
/// `NetworkLimits.peerTimeout`, cannot be reached, fails with another status, or lacks
/// `missLimit` chunks in a row. A 429 or 503 (the peer's rate limit, its connection limit) only
/// sends that chunk elsewhere.
final class PeerHealth: @unchecked Sendable {
    /// Why a peer was demoted.
    enum Demotion: Equatable, Sendable, CustomStringConvertible {
        case badChunk(String)
        case redirect(String)
        case stalled
        case unreachable(String)
        case missing(Int)

        var description: String {
            switch self {
            case .badChunk(let why): return "sent a bad chunk (\(why))"
            case .redirect(let to): return "redirected to \(to)"
            case .stalled: return "stalled"
            case .unreachable(let why): return "failed (\(why))"
            case .missing(let n): return "lacked \(n) chunks in a row"
            }
        }
    }

    /// Base URLs, each with a trailing slash.
    let peers: [String]
    /// Chunks a peer may lack in a row before it is demoted.
    let missLimit: Int
    private let lock = NSLock()
    private var demotions: [Int: Demotion] = [:]
    private var misses: [Int]

    init(peers: [String], missLimit: Int = 16) {
        self.peers = peers.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.missLimit = missLimit
        misses = Array(repeating: 0, count: peers.count)
    }

    /// The peers still asked, in the configured order.
    func active() -> [Int] { lock.withLock { peers.indices.filter { demotions[$0] == nil } } }

    /// Why peer `p` was demoted, if it was.
    func demotion(_ p: Int) -> Demotion? { lock.withLock { demotions[p] } }

    /// Peer `p` sent a verified chunk.
    func served(_ p: Int) { lock.withLock { misses[p] = 0 } }

    /// Peer `p` did not have a chunk (404).
    func lacked(_ p: Int) {
        lock.withLock {
            misses[p] += 1
            if misses[p] >= missLimit, demotions[p] == nil { demotions[p] = .missing(misses[p]) }
        }
    }

    /// Peer `p` is not asked again.
    func demote(_ p: Int, _ why: Demotion) { lock.withLock { if demotions[p] == nil { demotions[p] = why } } }
}
