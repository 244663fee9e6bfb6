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
