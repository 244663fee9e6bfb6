import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Paces bytes to a rate shared by every transfer that uses it: each `consume(n)` reserves the
/// next n bytes of a virtual timeline running at `bytesPerSecond` and sleeps until their slot
/// (the timeline never lags more than a tenth of a second behind now, so an idle spell does not
/// turn into a burst).
final class BandwidthLimiter: @unchecked Sendable {
    let bytesPerSecond: UInt64
    private let lock = NSLock()
    /// Monotonic nanoseconds at which the next byte may go.
    private var next: UInt64 = 0

    init(bytesPerSecond: UInt64) {
        self.bytesPerSecond = max(1, bytesPerSecond)
    }

    func consume(_ count: Int) {
        guard count > 0 else { return }
        let now = Self.now()
        let due: UInt64 = lock.withLock {
            let start = max(next, now &- min(now, 100_000_000))
            next = start + UInt64(count) * 1_000_000_000 / bytesPerSecond
            return next
        }
        guard due > now else { return }
        var request = timespec(tv_sec: Int((due - now) / 1_000_000_000), tv_nsec: Int((due - now) % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    private static func now() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }
}
