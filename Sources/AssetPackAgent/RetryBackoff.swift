import Foundation

/// When the agent tries a request again after the network or the server failed: exponential
/// backoff with jitter — before attempt n+1 it waits a time drawn from [cap/2, cap], the cap
/// doubling from `initialDelay` up to `maxDelay` — and indefinitely, since background work has
/// no caller to give up for it.
public struct RetryBackoff: Sendable, Equatable {
    public var initialDelay: Duration
    public var maxDelay: Duration

    public init(initialDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(300)) {
        self.initialDelay = initialDelay
        self.maxDelay = max(initialDelay, maxDelay)
    }

    /// The pause after `failures` consecutive failures (1 for the first).
    func delay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures - 1, 0), 30)
        let initial = initialDelay.seconds, maximum = maxDelay.seconds
        let cap = min(maximum, initial * pow(2, Double(doublings)))
        return .milliseconds(Int64(Double.random(in: cap / 2...cap) * 1000))
    }
}
