import AssetPackFormat
import AssetPackTransport
import Foundation

/// Fetches files of a repository over HTTP: tries each mirror in turn (in the order
/// `MirrorHealth` gives: mirrors that failed or served a refused catalog go last), follows
/// redirects itself so that every hop is checked against the domain allow-list and never leaves
/// https for http, and retries transient failures with exponential backoff and jitter. Small
/// files get a deadline and a minimum average rate (`NetworkLimits`).
final class RepositoryClient: Sendable {
    let mirrors: [String]
    let transport: any HTTPTransport
    let allowList: DomainAllowList
    let retry: RetryPolicy
    let limits: AssetPackManager.NetworkLimits
    let health: MirrorHealth
    /// LAN peers asked for chunks before the mirrors (`PeerChunkFetch`); nil when none is configured.
    let peers: PeerHealth?
    /// What the mirrors delivered to pack downloads (`PartDownloader`), together: the rate a
    /// LAN peer is measured against (`PeerHealth`).
    let originThroughput: ThroughputMeter
    static let maximumRedirects = 5

    /// `mirrors` are base URLs of the same repository; each gets a trailing slash.
    init(mirrors: [String], transport: any HTTPTransport, allowList: DomainAllowList, retry: RetryPolicy = .standard,
         limits: AssetPackManager.NetworkLimits = .standard, peers: [String] = []) {
        self.mirrors = mirrors.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.transport = transport
        self.allowList = allowList
        self.retry = retry
        self.limits = limits
        health = MirrorHealth(count: mirrors.count)
        let origin = ThroughputMeter()
        originThroughput = origin
        self.peers = peers.isEmpty ? nil : PeerHealth(peers: peers, limits: limits, origin: origin)
    }

    /// GETs `path` (relative to the repository root) into `destination`. Each attempt tries the
    /// mirrors in `health`'s order (the healthiest first); a mirror that fails (no
    /// answer, 404, 5xx, too slow) passes the request to the next. A streaming destination sees
    /// every attempt from its start: pass `attempts: .never` and one `onlyMirror` (an index
    /// into `mirrors`), and retry yourself, when the stream cannot start over. A `smallFile`
    /// must arrive within `limits.smallFileDeadline`, at `limits.minimumAverageRate`.
    func get(_ path: String, range: ByteRange? = nil, to destination: HTTPBodyDestination = .memory,
             cancellation: CancellationFlag? = nil, attempts: RetryPolicy? = nil, onlyMirror: Int? = nil,
             smallFile: Bool = false, starting: (_ mirror: Int) -> Void = { _ in }) throws(AssetPackManagerError) -> (response: HTTPResponse, mirror: Int) {
        try fetchAccepted(path, range: range, to: destination, cancellation: cancellation, attempts: attempts, onlyMirror: onlyMirror,
                          smallFile: smallFile, starting: starting) { response, mirror throws(AssetPackManagerError) in (response, mirror) }
    }

    /// As `get`, and `accept` judges each answer: when it throws, the mirror that sent it is
    /// refused for the session (`health`) and the next one asked; the refusal is thrown when no
    /// mirror gives an answer `accept` takes. `starting` hears of each mirror as it is asked. For the catalog: a mirror that serves a forged,
    /// expired or rolled-back one does not stand in the way of the others.
    /// With `ifNoneMatch` (an entity tag a mirror gave for the copy the caller holds), the request
    /// is conditional and `accept` also sees a `304 Not Modified`, whose body is empty: the
    /// caller then judges the copy it holds, exactly as if the mirror had sent it again.
    func fetchAccepted<T>(_ path: String, range: ByteRange? = nil, to destination: HTTPBodyDestination = .memory,
                          cancellation: CancellationFlag? = nil, attempts: RetryPolicy? = nil, onlyMirror: Int? = nil,
                          smallFile: Bool = false, ifNoneMatch: String? = nil, starting: (_ mirror: Int) -> Void = { _ in },
                          accept: (HTTPResponse, _ mirror: Int) throws(AssetPackManagerError) -> T) throws(AssetPackManagerError) -> T {
        let deadline = smallFile ? ContinuousClock.now + limits.smallFileDeadline : nil
        var refusal: AssetPackManagerError?
        do {
            // Past a small file's deadline nothing is retried.
            let withinDeadline = { deadline.map { ContinuousClock.now < $0 } ?? true }
            return try (attempts ?? retry).run(cancellation: cancellation, shouldRetry: { $0.isTransient && withinDeadline() }) { _ throws(TransportError) in
                let candidates = onlyMirror.map { [$0 % mirrors.count] } ?? health.order()
                var last: TransportError?
                for m in candidates {
                    let response: HTTPResponse
                    starting(m)
                    do throws(TransportError) {
                        response = try fetch(mirrors[m] + path, range: range, destination: destination, cancellation: cancellation, deadline: deadline,
                                             ifNoneMatch: ifNoneMatch)
                    } catch {
                        // The caller's stream stopped it, or it was cancelled: no other mirror.
                        if case .aborted = error { throw error }
                        if case .cancelled = error { throw error }
                        last = error
                        health.failed(m)
                        guard withinDeadline() else { break }
                        continue
                    }
                    do throws(AssetPackManagerError) { return try accept(response, m) } catch {
                        health.refuse(m, why: "\(error)")
                        refusal = error
                    }
                }
                if let last { throw last }
                if let refusal { throw .aborted(url: path, underlying: refusal) }
                throw .invalidRequest("no repository URL is configured")
            }
        } catch {
            if case .aborted(_, let underlying) = error, let e = underlying as? AssetPackManagerError { throw e }
            if case .cancelled = error { throw .cancelled }
            // A mirror refused is a clearer answer than another one's network failure.
            if let refusal { throw refusal }
            throw .transport(error)
        }
    }

    /// The bytes of `range` of `path`. A server that ignores Range and answers 200 with the
    /// whole file is handled too: only the wanted bytes are kept, and the transfer stops once
    /// they are in (so a whole large pack never lands in memory).
    /// Which mirror sent them is returned too, so that bytes that do not verify count against it.
    func bytes(of path: String, range: ByteRange, cancellation: CancellationFlag? = nil,
               smallFile: Bool = false) throws(AssetPackManagerError) -> (bytes: [UInt8], mirror: Int) {
        let wanted = Int(range.count ?? 0)
        let state = RangeCollector(capacity: wanted)
        let stream = HTTPBodyStream(onResponse: { status, headers in
            // Each attempt starts over.
            state.bytes.removeAll(keepingCapacity: true)
            state.skip = try RangeResponse.bytesToSkip(status: status, headers: headers, range: range, path: path)
        }, onBytes: { buffer in
            let b = RangeResponse.dropSkipped(buffer, skip: &state.skip)
            let take = min(b.count, wanted - state.bytes.count)
            state.bytes.append(contentsOf: b[..<take])
            if state.bytes.count == wanted && b.count > take { throw RangeResponse.Enough() }
        })
        do {
            let mirror = try get(path, range: range, to: .stream(stream), cancellation: cancellation, smallFile: smallFile,
                                 starting: { state.mirror = $0 }).mirror
            return (state.bytes, mirror)
        } catch {
            guard RangeResponse.isEnough(error), let mirror = state.mirror else { throw error }
            return (state.bytes, mirror)
        }
    }

    /// One request, following up to five redirects; every URL is checked against the
    /// allow-list, and a hop from https to http is refused when `url` is https. Before
    /// `deadline` (small files), at the minimum average rate. With `ifNoneMatch`, a conditional
    /// request whose `304 Not Modified` is returned as an answer.
    private func fetch(_ url: String, range: ByteRange?, destination: HTTPBodyDestination,
                       cancellation: CancellationFlag?, deadline: ContinuousClock.Instant?, ifNoneMatch: String? = nil) throws(TransportError) -> HTTPResponse {
        var current = url
        let secure = Self.isHTTPS(url)
        for _ in 0...Self.maximumRedirects {
            do throws(AssetPackManagerError) { try allowList.check(current) } catch { throw .aborted(url: current, underlying: error) }
            var request = HTTPRequest(.get, url: current, range: range)
            if let ifNoneMatch { request.headers.set("If-None-Match", ifNoneMatch) }
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left > .zero else {
                    throw .timedOut(url: current, message: "the deadline of \(limits.smallFileDeadline) for this file has passed")
                }
                request.timeout = left
                request.minimumAverageRate = .init(bytesPerSecond: limits.minimumAverageRate, after: limits.rateGracePeriod)
            }
            let response = try transport.send(request, to: destination, cancellation: cancellation)
            if response.isRedirect, let next = response.redirectURL {
                // Only to the network: a server must not point a client at its own files.
                if !Self.isNetwork(next) {
                    throw .aborted(url: current, underlying: AssetPackManagerError.insecureRedirect(from: current, to: next))
                }
                if secure, !Self.isHTTPS(next) {
                    throw .aborted(url: current, underlying: AssetPackManagerError.insecureRedirect(from: current, to: next))
                }
                current = next
                continue
            }
            if ifNoneMatch != nil, response.status == 304 { return response }
            return try response.requireSuccess()
        }
        throw .invalidRequest("\(url): more than \(Self.maximumRedirects) redirects")
    }

    private static func isHTTPS(_ url: String) -> Bool { url.lowercased().hasPrefix("https://") }
    private static func isNetwork(_ url: String) -> Bool { isHTTPS(url) || url.lowercased().hasPrefix("http://") }
}

/// What `bytes(of:range:)` has collected in the current attempt (shared with the stream's callbacks).
private final class RangeCollector: @unchecked Sendable {
    var bytes: [UInt8]
    var skip: UInt64 = 0
    var mirror: Int?
    init(capacity: Int) { bytes = []; bytes.reserveCapacity(capacity) }
}
