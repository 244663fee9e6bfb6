import AssetPackTransport
import Foundation

/// `--max-rate`: the agent's transport. Bodies of pack files whose download is background work
/// (prefetch, detached requests, updates — `isBackground` says, from the pack ID in the
/// repository's `packs/<id>/…` path) share one `BandwidthLimiter`; everything else — a pack a
/// caller waits for, catalogs, indexes — goes at full speed, so foreground work keeps the link.
struct BackgroundRateTransport: HTTPTransport {
    let inner: any HTTPTransport
    let limiter: BandwidthLimiter
    let isBackground: @Sendable (_ packID: String) -> Bool
    /// Pacing is done in slices this big, so that a transfer is never asleep for long.
    static let slice = 16 * 1024

    func send(_ request: HTTPRequest, to destination: HTTPBodyDestination,
              cancellation: CancellationFlag?) throws(TransportError) -> HTTPResponse {
        guard case .stream(let stream) = destination, let id = Self.packID(in: request.url), isBackground(id) else {
            return try inner.send(request, to: destination, cancellation: cancellation)
        }
        let limiter = self.limiter
        let paced = HTTPBodyStream(onResponse: stream.onResponse) { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = min(Self.slice, bytes.count - offset)
                limiter.consume(n)
                if cancellation?.isCancelled == true { throw CancellationError() }
                try stream.onBytes(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n]))
                offset += n
            }
        }
        return try inner.send(request, to: .stream(paced), cancellation: cancellation)
    }

    /// The pack ID of a pack file's URL (`…/packs/<id>/<digest>.pack`), or nil.
    static func packID(in url: String) -> String? {
        let path = url.split(separator: "?", maxSplits: 1).first ?? ""
        let segments = path.split(separator: "/")
        guard segments.count >= 3, segments[segments.count - 1].hasSuffix(".pack"), segments[segments.count - 3] == "packs" else { return nil }
        return String(segments[segments.count - 2]).removingPercentEncoding
    }
}

/// The scheduler, for the transport that is built before it (the manager needs the transport,
/// the scheduler the manager).
final class SchedulerReference: @unchecked Sendable {
    private let lock = NSLock()
    private weak var scheduler: DownloadScheduler?

    func set(_ scheduler: DownloadScheduler) { lock.withLock { self.scheduler = scheduler } }

    func isBackgroundDownload(_ id: String) -> Bool {
        lock.withLock { scheduler }?.isBackgroundDownload(id) ?? false
    }
}
