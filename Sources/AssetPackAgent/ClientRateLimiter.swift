import Foundation

/// A token bucket per client address: `rate` requests a second, bursts of `2 × rate`. The table
/// holds at most `maxClients` addresses (the longest idle goes first), so a flood from many
/// addresses cannot grow it without bound.
final class ClientRateLimiter: @unchecked Sendable {
    let rate: Double
    let burst: Double
    let maxClients: Int
    private let lock = NSLock()
    private var buckets: [String: (tokens: Double, at: ContinuousClock.Instant)] = [:]

    init(requestsPerSecond: Int, maxClients: Int = 4096) {
        rate = Double(max(1, requestsPerSecond))
        burst = 2 * rate
        self.maxClients = maxClients
    }

    /// Whether `client` may make a request now (and if so, it is counted).
    func admit(_ client: String) -> Bool {
        lock.withLock {
            let now = ContinuousClock.now
            var bucket = buckets[client] ?? (burst, now)
            let elapsed = now - bucket.at
            bucket.tokens = min(burst, bucket.tokens + rate * (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            bucket.at = now
            let admitted = bucket.tokens >= 1
            if admitted { bucket.tokens -= 1 }
            if buckets[client] == nil, buckets.count >= maxClients, let idle = buckets.min(by: { $0.value.at < $1.value.at })?.key {
                buckets[idle] = nil
            }
            buckets[client] = bucket
            return admitted
        }
    }
}
