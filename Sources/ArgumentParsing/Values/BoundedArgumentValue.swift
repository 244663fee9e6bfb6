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

extension DurationWithUnit: BoundedArgumentValue {
    public static func < (a: DurationWithUnit, b: DurationWithUnit) -> Bool { a.duration < b.duration }
    public var boundText: String { "\(duration)" }
}

extension DurationInMilliseconds: BoundedArgumentValue {
    public static func < (a: DurationInMilliseconds, b: DurationInMilliseconds) -> Bool { a.duration < b.duration }
    public var boundText: String { "\(duration)" }
}
