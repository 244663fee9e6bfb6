/// A whole percentage, written `10` or `10%` (`--rollout 10%`, `--percent 25`). Held to a range
/// with `range:` (`Percentage(0)...Percentage(100)`).
public struct Percentage: BoundedArgumentValue, Equatable, Sendable {
    public var value: Int
    public init(_ value: Int) { self.value = value }
    public init?(argument: String) {
        let digits = argument.hasSuffix("%") ? String(argument.dropLast()) : argument
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits.utf8.count <= 9, let v = Int(digits) else { return nil }
        value = v
    }
    public static var expectation: String { "a whole percentage such as 10 or 10%" }
    public static func < (a: Percentage, b: Percentage) -> Bool { a.value < b.value }
    public var boundText: String { "\(value)%" }
    /// Every percentage: 0 % to 100 %.
    public static let whole = Percentage(0)...Percentage(100)
}
