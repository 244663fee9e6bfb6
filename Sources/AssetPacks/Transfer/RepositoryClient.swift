import AssetPackFormat
import AssetPackTransport
import Foundation

/// Fetches files of a repository over HTTP: tries each mirror in turn, follows redirects itself
/// so that every hop is checked against the domain allow-list, and retries transient failures
/// with exponential backoff and jitter.
final class RepositoryClient: Sendable {
    let mirrors: [String]
    let transport: any HTTPTransport
    let allowList: DomainAllowList
    let retry: RetryPolicy
    static let maximumRedirects = 5

    /// `mirrors` are base URLs of the same repository; each gets a trailing slash.
    init(mirrors: [String], transport: any HTTPTransport, allowList: DomainAllowList, retry: RetryPolicy = .standard) {
        self.mirrors = mirrors.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.transport = transport
        self.allowList = allowList
        self.retry = retry
    }

    /// GETs `path` (relative to the repository root) into `destination`. Each attempt tries the
    /// mirrors in order; a mirror that fails (no answer, 404, 5xx) passes the request to the
    /// next. A streaming destination sees every attempt from its start: pass `attempts: .never`
    /// and one `onlyMirror`, and retry yourself, when the stream cannot start over.
    func get(_ path: String, range: ByteRange? = nil, to destination: HTTPBodyDestination = .memory,
             cancellation: CancellationFlag? = nil, attempts: RetryPolicy? = nil, onlyMirror: Int? = nil) throws(AssetPackManagerError) -> HTTPResponse {
        let candidates = onlyMirror.map { [mirrors[$0 % mirrors.count]] } ?? mirrors
        do {
            return try (attempts ?? retry).run(cancellation: cancellation, shouldRetry: { $0.isTransient }) { _ throws(TransportError) in
                var last: TransportError?
                for mirror in candidates {
                    do throws(TransportError) {
                        return try fetch(mirror + path, range: range, destination: destination, cancellation: cancellation)
                    } catch {
                        // The caller's stream stopped it, or it was cancelled: no other mirror.
                        if case .aborted = error { throw error }
                        if case .cancelled = error { throw error }
                        last = error
                    }
                }
                throw last ?? .invalidRequest("no repository URL is configured")
            }
        } catch {
            if case .aborted(_, let underlying) = error, let e = underlying as? AssetPackManagerError { throw e }
            if case .cancelled = error { throw .cancelled }
            throw .transport(error)
        }
    }

    /// The bytes of `range` of `path`. A server that ignores Range and answers 200 with the
    /// whole file is handled too: only the wanted bytes are kept, and the transfer stops once
    /// they are in (so a whole large pack never lands in memory).
    func bytes(of path: String, range: ByteRange, cancellation: CancellationFlag? = nil) throws(AssetPackManagerError) -> [UInt8] {
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
            _ = try get(path, range: range, to: .stream(stream), cancellation: cancellation)
        } catch {
            guard RangeResponse.isEnough(error) else { throw error }
        }
        return state.bytes
    }

    /// One request, following up to five redirects; every URL is checked against the allow-list.
    private func fetch(_ url: String, range: ByteRange?, destination: HTTPBodyDestination,
                       cancellation: CancellationFlag?) throws(TransportError) -> HTTPResponse {
        var current = url
        for _ in 0...Self.maximumRedirects {
            do throws(AssetPackManagerError) { try allowList.check(current) } catch { throw .aborted(url: current, underlying: error) }
            let response = try transport.send(HTTPRequest(.get, url: current, range: range), to: destination, cancellation: cancellation)
            if response.isRedirect, let next = response.redirectURL { current = next; continue }
            return try response.requireSuccess()
        }
        throw .invalidRequest("\(url): more than \(Self.maximumRedirects) redirects")
    }
}

/// What `bytes(of:range:)` has collected in the current attempt (shared with the stream's callbacks).
private final class RangeCollector: @unchecked Sendable {
    var bytes: [UInt8]
    var skip: UInt64 = 0
    init(capacity: Int) { bytes = []; bytes.reserveCapacity(capacity) }
}
