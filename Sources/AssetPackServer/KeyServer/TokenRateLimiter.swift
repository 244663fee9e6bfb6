import AssetPackFormat
import Foundation
import Synchronization

/// Requests per token: a token bucket per token (keyed by the token's SHA-256, so that no token
/// is kept in memory as is), `perMinute` requests in a burst, refilled at `perMinute` a minute.
/// A request over the limit is refused before any check of the token, so a stolen or guessed
/// token cannot be tried at speed, and a valid one cannot drain the verify command.
public final class TokenRateLimiter: Sendable {
    public let perMinute: Int
    private let clock: @Sendable () -> Double
    private struct Bucket { var tokens: Double; var updated: Double }
    private let buckets = Mutex<[SHA256Digest: Bucket]>([:])

    /// - Parameter clock: seconds on a monotonic clock (tests pass their own).
    public init(perMinute: Int, clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }) {
        self.perMinute = perMinute
        self.clock = clock
    }

    /// nil when the request may go on, else the seconds after which one more would be allowed.
    public func admit(_ token: String) -> Double? {
        let key = SHA256Digest.hash(Array(token.utf8))
        let now = clock()
        let rate = Double(perMinute) / 60
        return buckets.withLock { buckets in
            var b = buckets[key] ?? Bucket(tokens: Double(perMinute), updated: now)
            b.tokens = min(Double(perMinute), b.tokens + (now - b.updated) * rate)
            b.updated = now
            defer {
                buckets[key] = b
                // Full buckets hold nothing worth keeping: forget them when the table grows.
                if buckets.count > 100_000 { buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * rate < Double(perMinute) } }
            }
            if b.tokens >= 1 {
                b.tokens -= 1
                return nil
            }
            return (1 - b.tokens) / rate
        }
    }
}
