import AssetPackFormat
import Foundation

/// What a manager has learnt about its LAN peers (`Configuration.peers`) during its lifetime:
/// which ones are still asked for chunks. A peer is demoted — never asked again until the
/// manager goes — when it sends bytes that are not the chunk asked for (wrong size or SHA-256),
/// answers with a redirect (a peer serves its own chunks or none), stalls past
/// `NetworkLimits.peerTimeout`, cannot be reached, fails with another status, lacks
/// `missLimit` chunks in a row, or is slow: once it has been busy for `NetworkLimits.peerRateWindow`
/// since its first byte, its rate over the latest such window (its requests in flight together,
/// `ThroughputMeter`) is below `peerMinimumRate`, or below `peerMinimumShare` of the rate the
/// repository's mirrors averaged in this manager's earlier downloads (when they moved a MiB or
/// more). A 429 or 503 (the peer's rate limit, its connection limit) only sends that chunk
/// elsewhere.
final class PeerHealth: @unchecked Sendable {
    /// Why a peer was demoted.
    enum Demotion: Equatable, Sendable, CustomStringConvertible {
        case badChunk(String)
        case redirect(String)
        case stalled
        case unreachable(String)
        case missing(Int)
        /// Bytes per second measured, and the least it had to reach.
        case slow(rate: Double, minimum: Double)

        var description: String {
            switch self {
            case .badChunk(let why): return "sent a bad chunk (\(why))"
            case .redirect(let to): return "redirected to \(to)"
            case .stalled: return "stalled"
            case .unreachable(let why): return "failed (\(why))"
            case .missing(let n): return "lacked \(n) chunks in a row"
            case .slow(let rate, let minimum):
                return "too slow (\(ByteCount.format(UInt64(rate)))/s, below \(ByteCount.format(UInt64(minimum)))/s)"
            }
        }
    }

    /// Base URLs, each with a trailing slash.
    let peers: [String]
    /// Chunks a peer may lack in a row before it is demoted.
    let missLimit: Int
    /// The slow-peer rule's figures (`NetworkLimits`).
    let minimumRate: Double
    let minimumShare: Double
    let rateWindow: Duration
    /// What the repository's mirrors delivered to this manager's downloads (`RepositoryClient`).
    let origin: ThroughputMeter
    /// Each peer's bytes over its busy time.
    let meters: [ThroughputMeter]
    private let lock = NSLock()
    private var demotions: [Int: Demotion] = [:]
    private var misses: [Int]

    init(peers: [String], missLimit: Int = 16, limits: AssetPackManager.NetworkLimits = .standard, origin: ThroughputMeter = ThroughputMeter()) {
        self.peers = peers.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.missLimit = missLimit
        minimumRate = Double(limits.peerMinimumRate)
        minimumShare = limits.peerMinimumShare
        rateWindow = limits.peerRateWindow
        self.origin = origin
        meters = peers.map { _ in ThroughputMeter() }
        misses = Array(repeating: 0, count: peers.count)
    }

    /// The least rate a peer must keep: the floor, or the share of the repository's measured
    /// rate when that is higher.
    func minimumPeerRate(now: ContinuousClock.Instant = .now) -> Double {
        max(minimumRate, minimumShare * (origin.averageRate(minimumBytes: 1 << 20, now: now) ?? 0))
    }

    /// Peer `p` sent `count` more bytes of a chunk; false once it is demoted (the request stops).
    func received(_ p: Int, _ count: Int) -> Bool {
        meters[p].add(count)
        judgeRate(p)
        return demotion(p) == nil
    }

    /// Demotes peer `p` if it has been busy long enough and its latest rate is below the least.
    func judgeRate(_ p: Int, now: ContinuousClock.Instant = .now) {
        guard demotion(p) == nil, let rate = meters[p].rate(over: rateWindow, now: now) else { return }
        let minimum = minimumPeerRate(now: now)
        if rate < minimum { demote(p, .slow(rate: rate, minimum: minimum)) }
    }

    /// Every demotion so far, by peer base URL.
    var demotionsByPeer: [String: Demotion] {
        lock.withLock { Dictionary(uniqueKeysWithValues: demotions.map { (peers[$0.key], $0.value) }) }
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
