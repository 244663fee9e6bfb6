import AssetPackTransport
import Foundation

/// Watches one part's download: the mirror its current request goes to, and when the part last
/// placed a verified chunk. The install's monitor loop calls `check` several times a second; a
/// request that has gone `limit` without a newly verified chunk (a server that stalls or drips),
/// or whose mirror served a frame that did not verify, is stopped through its own flag, and the
/// downloader goes on from where its spool ends with the healthiest mirror.
final class PartWatchdog: @unchecked Sendable {
    /// Why the current request was stopped.
    enum Reason: Equatable { case stalled, corruptMirror }

    let limit: Duration
    private let lock = NSLock()
    private var lastProgress = ContinuousClock.now
    private var request: CancellationFlag?
    private var mirror: Int?
    private var reason: Reason?

    init(limit: Duration) { self.limit = limit }

    /// A chunk of the part was verified and placed.
    func progressed() { lock.withLock { lastProgress = .now } }

    /// A request to `mirror` starts: the flag to hand to the transport. The clock starts over.
    func begin(mirror m: Int) -> CancellationFlag {
        lock.withLock {
            let flag = CancellationFlag()
            request = flag
            mirror = m
            reason = nil
            lastProgress = .now
            return flag
        }
    }

    /// The request ended; why it was stopped, if the watchdog stopped it.
    func end() -> Reason? { lock.withLock { request = nil; return reason } }

    /// The mirror of the current (or last) request.
    var currentMirror: Int? { lock.withLock { mirror } }

    /// A frame from the current request's mirror did not verify: stop the request, so that the
    /// rest comes from a better mirror.
    func mirrorServedCorruptBytes() { lock.withLock { stop(.corruptMirror) } }

    /// Stops the current request when `stopped` (the install is stopping) or when it has gone
    /// `limit` without progress.
    func check(stopped: Bool) {
        lock.withLock {
            if stopped { request?.cancel(); return }
            if ContinuousClock.now - lastProgress >= limit { stop(.stalled) }
        }
    }

    private func stop(_ why: Reason) {
        guard let request, reason == nil else { return }
        reason = why
        request.cancel()
    }
}
