import Foundation

/// Draws fault decisions from a seeded generator, one request at a time (under a lock, so the
/// sequence of decisions depends only on the seed and the order of requests).
final class FaultInjector: @unchecked Sendable {
    let configuration: FaultConfiguration
    private var generator: SplitMix64
    private let lock = NSLock()

    init(_ configuration: FaultConfiguration) {
        self.configuration = configuration
        generator = SplitMix64(seed: configuration.seed ?? UInt64.random(in: 0...UInt64.max))
    }

    /// Whether this request fails with 503.
    func shouldFail() -> Bool {
        guard configuration.failRate > 0 else { return false }
        return lock.withLock { Double.random(in: 0..<1, using: &generator) < configuration.failRate }
    }

    /// The faults for a body of `length` bytes.
    func bodyFault(length: UInt64) -> BodyFault {
        let c = configuration
        var fault = BodyFault(bytesPerSecond: c.bandwidthBytesPerSecond)
        if let drop = c.dropAfterBytes, drop < length { fault.cutAfter = drop }
        guard length > 0, c.corruptRate > 0 || c.truncateRate > 0 else { return fault }
        lock.withLock {
            if c.corruptRate > 0, Double.random(in: 0..<1, using: &generator) < c.corruptRate {
                fault.corruptOffset = UInt64.random(in: 0..<length, using: &generator)
            }
            if c.truncateRate > 0, Double.random(in: 0..<1, using: &generator) < c.truncateRate {
                let cut = UInt64.random(in: 0..<length, using: &generator)
                fault.cutAfter = min(fault.cutAfter ?? cut, cut)
            }
        }
        return fault
    }
}

/// A small, fast, seedable generator (SplitMix64), so that `--seed` reproduces faults.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
