import Foundation

/// Retries with exponential backoff and jitter: the pause before retry n (1-based) is
/// drawn uniformly from [cap/2, cap] where cap = min(maxDelay, initialDelay × 2^(n−1)) — half
/// fixed so that the backoff always grows, half random so that many clients failing together do
/// not come back together.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (1 = no retry).
    public var maxAttempts: Int
    public var initialDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int, initialDelay: Duration, maxDelay: Duration) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
    }

    /// 5 attempts, 0.25 s doubling up to 8 s.
    public static let standard = RetryPolicy(maxAttempts: 5, initialDelay: .milliseconds(250), maxDelay: .seconds(8))
    public static let never = RetryPolicy(maxAttempts: 1, initialDelay: .zero, maxDelay: .zero)

    /// The pause before retry `retry` (1 for the first retry).
    public func delay(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let exponent = min(max(retry - 1, 0), 30)
        let grown = initialDelay * (1 << exponent)
        let cap = grown > maxDelay ? maxDelay : grown
        let capSeconds = Double(cap.components.seconds) + Double(cap.components.attoseconds) / 1e18
        return .seconds(capSeconds / 2 + Double.random(in: 0...(capSeconds / 2), using: &generator))
    }

    /// Runs `body` (given the attempt number, from 1) until it succeeds, fails with an error
    /// `shouldRetry` rejects, or `maxAttempts` is reached; then throws the last error. Pauses
    /// between attempts, waking early and throwing `.cancelled` when `cancellation` is set.
    public func run<T>(cancellation: CancellationFlag? = nil,
                       shouldRetry: (TransportError) -> Bool = { $0.isTransient },
                       onRetry: (_ attempt: Int, _ error: TransportError, _ delay: Duration) -> Void = { _, _, _ in },
                       _ body: (_ attempt: Int) throws(TransportError) -> T) throws(TransportError) -> T {
        var generator = SystemRandomNumberGenerator()
        var attempt = 1
        while true {
            do { return try body(attempt) } catch {
                guard attempt < maxAttempts, shouldRetry(error) else { throw error }
                let pause = delay(beforeRetry: attempt, using: &generator)
                onRetry(attempt, error, pause)
                try Self.sleep(pause, cancellation: cancellation, url: Self.url(of: error))
                attempt += 1
            }
        }
    }

    private static func sleep(_ duration: Duration, cancellation: CancellationFlag?, url: String) throws(TransportError) {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            if cancellation?.isCancelled == true { throw .cancelled(url: url) }
            let left = end - ContinuousClock.now
            Thread.sleep(forTimeInterval: min(0.05, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18))
        }
        if cancellation?.isCancelled == true { throw .cancelled(url: url) }
    }

    private static func url(of error: TransportError) -> String {
        switch error {
        case .nameResolution(let url, _), .connection(let url, _), .tls(let url, _), .timedOut(let url, _),
             .cancelled(let url), .aborted(let url, _), .httpStatus(let url, _, _), .transfer(let url, _, _):
            return url
        case .invalidRequest, .file: return ""
        }
    }
}
