import AssetPackFormat

/// A size option's value: bytes in the one grammar of `ByteCount` (decimal units, binary only
/// when spelt KiB/MiB/GiB/TiB).
public struct ByteSize: ArgumentValue, Equatable, Sendable {
    public var bytes: UInt64
    public init(bytes: UInt64) { self.bytes = bytes }
    public init?(argument: String) {
        guard let bytes = ByteCount.parse(argument) else { return nil }
        self.bytes = bytes
    }
    public static var expectation: String { "a size in \(ByteCount.grammar)" }
    public static var helpNote: String? { "Sizes: \(ByteCount.grammar)." }
}

/// A duration option whose bare numbers are seconds (`--lock-timeout 0.5`); units as in
/// `DurationText`.
extension Duration: ArgumentValue {
    public init?(argument: String) {
        guard let d = DurationText.parse(argument, bareNumber: .seconds) else { return nil }
        self = d
    }
    public static var expectation: String { "\(DurationText.grammar), or seconds" }
    public static var helpNote: String? { "Durations: 90s, 15m, 12h, 30d, 250ms; a bare number is seconds." }
}

/// A duration option that needs its unit (`--expires 30d`; a bare `30` is refused).
public struct DurationWithUnit: ArgumentValue, Equatable, Sendable {
    public var duration: Duration
    public init(_ duration: Duration) { self.duration = duration }
    public init?(argument: String) {
        guard let d = DurationText.parse(argument, bareNumber: .refused) else { return nil }
        duration = d
    }
    public static var expectation: String { DurationText.grammar }
    public static var helpNote: String? { "Durations: 90s, 15m, 12h, 30d, 250ms." }
}

/// A duration option whose bare numbers are milliseconds (`--latency 200`).
public struct DurationInMilliseconds: ArgumentValue, Equatable, Sendable {
    public var duration: Duration
    public init(_ duration: Duration) { self.duration = duration }
    public init?(argument: String) {
        guard let d = DurationText.parse(argument, bareNumber: .milliseconds) else { return nil }
        duration = d
    }
    public static var expectation: String { "\(DurationText.grammar), or milliseconds" }
    public static var helpNote: String? { "Durations: 250ms, 2s, 1m; a bare number is milliseconds." }
}

/// A probability from 0 to 1.
public struct Probability: ArgumentValue, Equatable, Sendable {
    public var value: Double
    public init?(argument: String) {
        guard let p = Double(argument), p >= 0, p <= 1 else { return nil }
        value = p
    }
    public static var expectation: String { "a probability from 0 to 1" }
}
