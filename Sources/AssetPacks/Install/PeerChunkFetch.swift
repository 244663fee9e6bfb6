import AssetPackFormat
import AssetPackTransport
import Foundation

/// The peer stage of an install, before any Range request goes to the repository: every chunk
/// the plan would download in full (`.remote`, its first use) and that is not already verified
/// on disk is asked of the LAN peers (`GET PEER/chunks/<sha256-hex>`, docs/FORMAT.md "Peer
/// chunk protocol"), several requests at once over kept-alive connections. A chunk's bytes are
/// placed only once their size and SHA-256 match the signed index; a peer that sends anything
/// else, redirects, stalls or keeps lacking chunks is demoted (`PeerHealth`), and a chunk no
/// peer has stays with the repository. The caller plans again with the positions placed here
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
        let shared = Shared(wanted)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(connections, wanted.count)) {
            group.enter()
            let t = Thread { [self] in
                defer { group.leave() }
                do { try work(shared) } catch { shared.fail(error) }
            }
            t.stackSize = 1 << 20
            t.start()
        }
        group.wait()
        if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
        if let error = shared.failure { throw error }
        outcome.local.formUnion(shared.placed)
        outcome.peerBytes = shared.bytes
        outcome.byPeer = shared.byPeer
        return outcome
    }

    /// One connection's loop: takes the next wanted position until none is left, no peer is
    /// active, or the install stops.
    private func work(_ shared: Shared) throws {
        var writer = ContentRangeWriter(root: files, index: index, range: 0..<UInt64.max, includesEnd: false, skipping: plan.linkedFiles)
        defer { writer.abandon() }
        while let s = shared.next() {
            if cancellation.isCancelled { return }
            let c = Int(index.sequence[s])
            let entry = index.chunks[c]
            var got: [UInt8]?, from = 0
            for p in health.active() {
                got = ask(p, for: entry)
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
    /// was demoted for its answer).
    private func ask(_ p: Int, for entry: ChunkEntry) -> [UInt8]? {
        let url = health.peers[p] + "chunks/" + entry.digest.hex
        let size = Int(entry.uncompressedSize)
        var request = HTTPRequest(url: url, connectTimeout: min(timeout, .seconds(5)), lowSpeedLimit: nil, timeout: timeout)
        request.headers.set("Accept", "application/octet-stream")
        let response: HTTPResponse
        do {
            // One byte more than the chunk: a longer body is refused without being kept.
            response = try transport.send(request, to: .memory(limit: size + 1), cancellation: cancellation)
        } catch {
            switch error {
            case .cancelled: return nil
            case .timedOut: health.demote(p, .stalled)
            default: health.demote(p, .unreachable("\(error)"))
            }
            return nil
        }
        switch response.status {
        case 200:
            guard response.body.count == size else {
                health.demote(p, .badChunk("\(response.body.count) bytes for a chunk of \(size) (\(entry.digest.hex.prefix(16)))"))
                return nil
            }
            guard SHA256Digest.hash(response.body) == entry.digest else {
                health.demote(p, .badChunk("the bytes for \(entry.digest.hex.prefix(16)) do not hash to it"))
                return nil
            }
            health.served(p)
            return response.body
        case 404: health.lacked(p)
        case 429, 503: break
        case 300..<400: health.demote(p, .redirect(response.redirectURL ?? response.headers["Location"] ?? "HTTP \(response.status)"))
        default: health.demote(p, .unreachable("HTTP \(response.status)"))
        }
        return nil
    }

    /// The positions still wanted and what the connections placed, shared between them.
    private final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var wanted: [Int]
        private var cursor = 0
        private var stopped = false
        private(set) var placedPositions: Set<Int> = []
        private var total: UInt64 = 0
        private var perPeer: [String: (bytes: UInt64, saved: UInt64)] = [:]
        private var error: (any Error)?

        init(_ wanted: [Int]) { self.wanted = wanted }

        func next() -> Int? {
            lock.withLock {
                guard !stopped, error == nil, cursor < wanted.count else { return nil }
                defer { cursor += 1 }
                return wanted[cursor]
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
