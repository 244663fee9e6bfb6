import AssetPackTransport
import TestSupport
import Testing

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(10), maxDelay: .milliseconds(40))
    let transient = TransportError.httpStatus(url: "http://x/", status: 503, body: [])
    let permanent = TransportError.httpStatus(url: "http://x/", status: 403, body: [])

    @Test func delaysGrowExponentiallyWithinJitterBoundsAndCap() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            let first = policy.delay(beforeRetry: 1, using: &generator)
            #expect(first >= .milliseconds(5) && first <= .milliseconds(10))
            let second = policy.delay(beforeRetry: 2, using: &generator)
            #expect(second >= .milliseconds(10) && second <= .milliseconds(20))
            let capped = policy.delay(beforeRetry: 9, using: &generator)
            #expect(capped >= .milliseconds(20) && capped <= .milliseconds(40))
        }
    }

    @Test func retriesTransientErrorsUntilSuccess() throws {
        var attempts: [Int] = []
        let value = try policy.run { attempt throws(TransportError) in
            attempts.append(attempt)
            if attempt < 3 { throw transient }
            return "ok"
        }
        #expect(value == "ok")
        #expect(attempts == [1, 2, 3])
    }

    @Test func stopsAtMaxAttemptsWithTheLastError() {
        var count = 0
        #expect(throws: TransportError.self) {
            try policy.run { _ throws(TransportError) -> Int in count += 1; throw transient }
        }
        #expect(count == 4)
    }

    @Test func doesNotRetryPermanentErrors() {
        var count = 0
        #expect(throws: TransportError.self) {
            try policy.run { _ throws(TransportError) -> Int in count += 1; throw permanent }
        }
        #expect(count == 1)
    }

    @Test func cancellationStopsTheWait() {
        let slow = RetryPolicy(maxAttempts: 3, initialDelay: .seconds(30), maxDelay: .seconds(30))
        let flag = CancellationFlag()
        flag.cancel()
        #expect {
            try slow.run(cancellation: flag) { _ throws(TransportError) -> Int in throw transient }
        } throws: { error in
            if case TransportError.cancelled = error { return true }
            return false
        }
    }
}
