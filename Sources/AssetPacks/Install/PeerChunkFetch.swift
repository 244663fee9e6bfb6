import AssetPackFormat
import AssetPackTransport
import Foundation

/// The peer stage of an install, before any Range request goes to the repository: every chunk
/// the plan would download in full (`.remote`, its first use) and that is not already verified
/// on disk is asked of the LAN peers (`GET PEER/chunks/<sha256-hex>`, docs/FORMAT.md "Peer
/// chunk protocol"), several requests at once over kept-alive connections. A chunk's bytes are
/// placed only once their size and SHA-256 match the signed index; a peer that sends anything
/// else, redirects, stalls, keeps lacking chunks or is too slow is demoted (`PeerHealth`),
/// and a chunk no peer has, or whose peer was demoted, stays with the repository. The caller plans again with the positions placed here
/// as present, so the repository is asked only for the rest.
struct PeerChunkFetch {
    let index: PackIndex
    let plan: InstallPlan
    /// The folder the files are assembled in.
    let files: ConfinedDirectory
    let transport: any HTTPTransport
    let health: PeerHealth
    /// A request that has not brought its whole chunk in this long demotes its peer.
    let timeout: Duration
    let cancellation: CancellationFlag
    /// Requests in flight at once.
    var connections = 8

    /// What the stage did: positions now verified on disk (placed by peers, or found there by a
    /// resumed run) and the bytes peers sent.
    struct Outcome {
        var local: Set<Int> = []
        var peerBytes: UInt64 = 0
        /// What each peer (base URL) sent, and the repository frames its chunks spared.
        var byPeer: [String: (bytes: UInt64, saved: UInt64)] = [:]
    }

    func run() throws -> Outcome {
        var wanted: [Int] = []
        var outcome = Outcome()
        let staged = ContentStreamReader(index: index, directory: files)
        for (s, source) in plan.sources.enumerated() {
            guard case .remote = source else { continue }
            if staged.verifiedChunk(atSequence: s) != nil { outcome.local.insert(s) } else { wanted.append(s) }
        }
        guard !wanted.isEmpty, !health.active().isEmpty else { return outcome }
        let threads = max(1, min(connections, wanted.count))
        let shared = Shared(wanted, segments: threads)
        // One stop flag per peer for this run: set when the peer is demoted (its requests in
        // flight end at once) or when the install stops.
        let stops = health.peers.map { _ in CancellationFlag() }
        let group = DispatchGroup()
        for k in 0..<threads {
            group.enter()
            let t = Thread { [self] in
                defer { group.leave() }
                do { try work(k, shared, stops: stops) } catch { shared.fail(error) }
            }
            t.stackSize = 1 << 20
            t.start()
        }
        // Until the connections are done: judge the peers' rates (one that went quiet between
        // two pieces of a chunk too) and pass demotions and the install's cancellation on.
        while group.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            for p in health.peers.indices {
                health.judgeRate(p)
                if cancellation.isCancelled || health.demotion(p) != nil { stops[p].cancel() }
            }
        }
        if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
        if let error = shared.failure { throw error }
        outcome.local.formUnion(shared.placed)
        outcome.peerBytes = shared.bytes
        outcome.byPeer = shared.byPeer
        return outcome
    }

    /// Connection `k`'s loop: takes the next wanted position of its stretch until none is left,
    /// no peer is active, or the install stops.
    private func work(_ k: Int, _ shared: Shared, stops: [CancellationFlag]) throws {
        var writer = ContentRangeWriter(root: files, index: index, range: 0..<UInt64.max, includesEnd: false, skipping: plan.linkedFiles)
        defer { writer.abandon() }
        while let s = shared.next(k) {
            if cancellation.isCancelled { return }
            let c = Int(index.sequence[s])
            let entry = index.chunks[c]
            var got: [UInt8]?, from = 0
            for p in health.active() {
                got = ask(p, for: entry, stop: stops[p])
                from = p
                if got != nil || cancellation.isCancelled { break }
            }
            if health.active().isEmpty { shared.stop() }
            guard let bytes = got else { continue }
            do {
                try bytes.withUnsafeBytes { try writer.write($0, at: index.sequenceOffsets[s]) }
            } catch {
                throw AssetPackManagerError.storage("cannot write a chunk from a peer into \(files.path): \(error)")
            }
            shared.placed(s, bytes: UInt64(bytes.count), saved: UInt64(entry.compressedSize), peer: health.peers[from])
        }
        do { try writer.close() } catch {
            throw AssetPackManagerError.storage("cannot write a chunk from a peer into \(files.path): \(error)")
        }
    }

    /// Asks peer `p` for one chunk: its verified bytes, or nil (the peer lacked it, was busy, or
    /// was demoted for its answer or its rate). The body streams into a buffer of the chunk's
    /// size, counted by the peer's `ThroughputMeter` as it arrives; a byte past that size, or the
    /// peer's demotion meanwhile, ends the request.
    private func ask(_ p: Int, for entry: ChunkEntry, stop: CancellationFlag) -> [UInt8]? {
        let url = health.peers[p] + "chunks/" + entry.digest.hex
        let size = Int(entry.uncompressedSize)
        var request = HTTPRequest(url: url, connectTimeout: min(timeout, .seconds(5)), lowSpeedLimit: nil, timeout: timeout)
        request.headers.set("Accept", "application/octet-stream")
        let body = ChunkBody(capacity: size)
        let health = self.health
        let stream = HTTPBodyStream(onBytes: { bytes in
            guard body.bytes.count + bytes.count <= size else { throw ChunkBody.TooLong() }
            body.bytes.append(contentsOf: bytes)
            guard health.received(p, bytes.count) else { throw ChunkBody.Demoted() }
        })
        let meter = health.meters[p]
        meter.begin()
        defer { meter.end() }
        let response: HTTPResponse
        do {
            response = try transport.send(request, to: .stream(stream), cancellation: stop)
        } catch {
            if cancellation.isCancelled || health.demotion(p) != nil { return nil }
            switch error {
            case .cancelled: return nil
            case .timedOut: health.demote(p, .stalled)
            case .aborted(_, let underlying) where underlying is ChunkBody.TooLong:
                health.demote(p, .badChunk("more than the \(size) bytes of chunk \(entry.digest.hex.prefix(16))"))
            default: health.demote(p, .unreachable("\(error)"))
            }
            return nil
        }
        switch response.status {
        case 200:
            guard body.bytes.count == size else {
                health.demote(p, .badChunk("\(body.bytes.count) bytes for a chunk of \(size) (\(entry.digest.hex.prefix(16)))"))
                return nil
            }
            guard SHA256Digest.hash(body.bytes) == entry.digest else {
                health.demote(p, .badChunk("the bytes for \(entry.digest.hex.prefix(16)) do not hash to it"))
                return nil
            }
            health.served(p)
            return body.bytes
        case 404: health.lacked(p)
        case 429, 503: break
        case 300..<400: health.demote(p, .redirect(response.redirectURL ?? response.headers["Location"] ?? "HTTP \(response.status)"))
        default: health.demote(p, .unreachable("HTTP \(response.status)"))
        }
        return nil
    }

    /// The body of one chunk request, filled by the transfer's thread.
    private final class ChunkBody: @unchecked Sendable {
        var bytes: [UInt8]
        init(capacity: Int) {
            bytes = []
            bytes.reserveCapacity(capacity)
        }
        /// The body outgrew the chunk.
        struct TooLong: Error {}
        /// The peer was demoted while the body arrived.
        struct Demoted: Error {}
    }

    /// The positions still wanted and what the connections placed, shared between them. Each
    /// connection works through a stretch of consecutive positions of its own, and one that is
    /// done takes the back half of the longest stretch left: connections that took turns along
    /// the stream would all create files in the same folders at once, and the file system's lock
    /// on a folder then cost over a quarter of a client's CPU (measured on the benchmark pack).
    private final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private let wanted: [Int]
        /// Per connection: the next index into `wanted` and the end of its stretch.
        private var stretches: [(next: Int, end: Int)]
        private var stopped = false
        private(set) var placedPositions: Set<Int> = []
        private var total: UInt64 = 0
        private var perPeer: [String: (bytes: UInt64, saved: UInt64)] = [:]
        private var error: (any Error)?

        init(_ wanted: [Int], segments: Int) {
            self.wanted = wanted
            stretches = (0..<segments).map { k in (wanted.count * k / segments, wanted.count * (k + 1) / segments) }
        }

        /// The next position for connection `k`, or nil when none is left.
        func next(_ k: Int) -> Int? {
            lock.withLock {
                guard !stopped, error == nil else { return nil }
                if stretches[k].next >= stretches[k].end {
                    guard let j = stretches.indices.max(by: { stretches[$0].end - stretches[$0].next < stretches[$1].end - stretches[$1].next }),
                          stretches[j].end > stretches[j].next else { return nil }
                    let middle = stretches[j].next + (stretches[j].end - stretches[j].next) / 2
                    stretches[k] = (middle, stretches[j].end)
                    stretches[j].end = middle
                }
                defer { stretches[k].next += 1 }
                return wanted[stretches[k].next]
            }
        }
        func stop() { lock.withLock { stopped = true } }
        func placed(_ s: Int, bytes: UInt64, saved: UInt64, peer: String) {
            lock.withLock {
                placedPositions.insert(s)
                total += bytes
                perPeer[peer, default: (0, 0)].bytes += bytes
                perPeer[peer, default: (0, 0)].saved += saved
            }
        }
        func fail(_ e: any Error) { lock.withLock { if error == nil { error = e } } }
        var placed: Set<Int> { lock.withLock { placedPositions } }
        var bytes: UInt64 { lock.withLock { total } }
        var byPeer: [String: (bytes: UInt64, saved: UInt64)] { lock.withLock { perPeer } }
        var failure: (any Error)? { lock.withLock { error } }
    }
}
