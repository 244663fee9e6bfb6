/// Faults a server injects so that clients' unhappy paths can be tested. All default to off.
///
/// Probabilities are per response: each eligible response draws once for each fault, so
/// `corruptRate: 1` corrupts every response and `0.1` about one in ten. Faults apply to pack
/// files (see `ContentPolicy.isImmutable`) and, with `includeCatalog`, to every other file too.
public struct FaultConfiguration: Sendable, Equatable {
    /// Delay before each response (headers included), in milliseconds.
    public var latencyMilliseconds: UInt64 = 0
    /// Throttles each response body to this many bytes per second (per connection).
    public var bandwidthBytesPerSecond: UInt64 = 0
    /// Closes the connection after this many body bytes of a response that promised more.
    public var dropAfterBytes: UInt64?
    /// Probability that a response body has one byte flipped (XOR 0xFF) at a random offset.
    public var corruptRate: Double = 0
    /// Probability that a response body ends early, at a random offset, by closing the
    /// connection although Content-Length promised more.
    public var truncateRate: Double = 0
    /// Probability that a request gets 503 Service Unavailable (with `Retry-After: 1`).
    public var failRate: Double = 0
    /// Seed for the fault decisions; the same seed and the same sequence of requests give the
    /// same faults. Nil picks a random seed.
    public var seed: UInt64?
    /// Whether faults also apply to files other than packs (the catalog).
    public var includeCatalog = false

    public init() {}

    /// Whether any fault is configured.
    public var isActive: Bool {
        latencyMilliseconds > 0 || bandwidthBytesPerSecond > 0 || dropAfterBytes != nil
            || corruptRate > 0 || truncateRate > 0 || failRate > 0
    }
}
