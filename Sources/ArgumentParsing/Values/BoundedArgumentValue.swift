import AssetPackFormat

/// A value an option can hold to a range (`@Option(…, range: 1...16)`): a value outside it is a
/// usage error naming the option and the range, and the range is said in the help.
public protocol BoundedArgumentValue: ArgumentValue, Comparable {
    /// How a bound (or the value given) is written in the help and in errors.
    var boundText: String { get }
}

extension BoundedArgumentValue {
    public var boundText: String { "\(self)" }
}

extension Int: BoundedArgumentValue {}
extension Int32: BoundedArgumentValue {}
extension UInt16: BoundedArgumentValue {}
extension UInt32: BoundedArgumentValue {}
extension UInt64: BoundedArgumentValue {}
extension Double: BoundedArgumentValue {}

extension ByteSize: BoundedArgumentValue {
    public static func < (a: ByteSize, b: ByteSize) -> Bool { a.bytes < b.bytes }
    public var boundText: String { ByteCount.formatExactly(bytes) }
}

extension Duration: BoundedArgumentValue {
    /// In the largest unit of the duration grammar that writes it whole: `30d`, `90s`, `250ms`.
    public var boundText: String {
        let ms = self / .milliseconds(1)
        guard ms.rounded() == ms else { return "\(ms)ms" }
        for (unit, size) in [("d", 86_400_000.0), ("h", 3_600_000.0), ("m", 60_000.0), ("s", 1000.0)]
        where ms != 0 && (ms / size).rounded() == ms / size {
            return "\(Int64(ms / size))\(unit)"
        }
        return ms == 0 ? "0s" : "\(Int64(ms))ms"
    }
}

extension DurationWithUnit: BoundedArgumentValue {
    public static func < (a: DurationWithUnit, b: DurationWithUnit) -> Bool { a.duration < b.duration }
    public var boundText: String { duration.boundText }
}

extension DurationInMilliseconds: BoundedArgumentValue {
    public static func < (a: DurationInMilliseconds, b: DurationInMilliseconds) -> Bool { a.duration < b.duration }
    public var boundText: String { duration.boundText }
}
