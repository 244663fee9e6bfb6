import AssetPackFormat

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
