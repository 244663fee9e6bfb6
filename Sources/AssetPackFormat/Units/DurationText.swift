/// Durations as people write them on a command line: the one grammar every command uses.
///
/// A number (`90`, `1.5`) and a unit: `ms`, `s`, `m` (minutes), `h`, `d`; `90s`, `15m`, `12h`,
/// `30d`, `1.5h`. A bare number is read in the unit the option has always taken (seconds for
/// `--lock-timeout`, milliseconds for `--latency`), or refused where a unit is required
/// (`--expires`, so that `30` is not mistaken for thirty days).
public enum DurationText {
    /// What a number without a unit means.
    public enum BareNumber: Sendable {
        case seconds
        case milliseconds
        /// A unit is required.
        case refused
    }

    /// The sentence help texts that take a duration end with.
    public static let grammar = "a duration: 90s, 15m, 12h, 30d (also ms)"

    /// `text` as a duration; nil when malformed, negative or longer than 100 years.
    public static func parse(_ text: String, bareNumber: BareNumber) -> Duration? {
        let numberEnd = text.firstIndex { !($0.isASCII && ($0.isNumber || $0 == ".")) } ?? text.endIndex
        let number = text[..<numberEnd], unit = text[numberEnd...]
        guard let first = number.first, first.isNumber, number.last!.isNumber,
              number.filter({ $0 == "." }).count <= 1, let value = Double(number) else { return nil }
        let milliseconds: Double
        switch unit {
        case "ms": milliseconds = 1
        case "s": milliseconds = 1000
        case "m": milliseconds = 60_000
        case "h": milliseconds = 3_600_000
        case "d": milliseconds = 86_400_000
        case "":
            switch bareNumber {
            case .seconds: milliseconds = 1000
            case .milliseconds: milliseconds = 1
            case .refused: return nil
            }
        default: return nil
        }
        let total = (value * milliseconds).rounded()
        guard total <= 100 * 365 * 86_400_000 else { return nil }
        return .milliseconds(Int64(total))
    }
}

extension Duration {
    /// The duration in seconds, with fractions (for APIs that take a TimeInterval).
    public var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
