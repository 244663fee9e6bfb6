/// A type a single command-line value converts to: `String`, the integers, `Double`, and the
/// units (`ByteSize`, the durations). Conform a type of your own to use it in `@Option` and
/// `@Argument`.
public protocol ArgumentValue: ArgumentStorage where Item == Self {
    /// The value that `argument` spells; nil when it is malformed.
    init?(argument: String)
    /// What a valid value looks like, for errors: "--jobs takes a whole number, got 'x'".
    static var expectation: String { get }
    /// A sentence appended to the help of every option of this type (the grammar of sizes),
    /// or nil.
    static var helpNote: String? { get }
}

extension ArgumentValue {
    public static var helpNote: String? { nil }
    public static var isRepeatable: Bool { false }
    public static func assemble(_ values: [Self]) -> Self? { values.last }
}

/// How many values a declaration holds, decided by the declared type: `T` exactly one
/// (required unless it has a default), `T?` at most one, `[T]` any number (a repeatable option,
/// or a variadic argument).
public protocol ArgumentStorage {
    /// The type of each value.
    associatedtype Item: ArgumentValue
    static var isRepeatable: Bool { get }
    /// The stored value for the values given, in order; nil when none were given and the
    /// declaration needs one.
    static func assemble(_ values: [Item]) -> Self?
}

extension Optional: ArgumentStorage where Wrapped: ArgumentValue {
    public typealias Item = Wrapped
    public static var isRepeatable: Bool { false }
    public static func assemble(_ values: [Wrapped]) -> Wrapped?? { .some(values.last) }
}

extension Array: ArgumentStorage where Element: ArgumentValue {
    public typealias Item = Element
    public static var isRepeatable: Bool { true }
    public static func assemble(_ values: [Element]) -> [Element]? { values }
}

extension String: ArgumentValue {
    public init?(argument: String) { self = argument }
    public static var expectation: String { "a value" }
}

extension Int: ArgumentValue {
    public init?(argument: String) { self.init(argument) }
    public static var expectation: String { "a whole number" }
}

extension Int32: ArgumentValue {
    public init?(argument: String) { self.init(argument) }
    public static var expectation: String { "a whole number" }
}

extension UInt16: ArgumentValue {
    public init?(argument: String) { self.init(argument) }
    public static var expectation: String { "a whole number from 0 to \(UInt16.max)" }
}

extension UInt32: ArgumentValue {
    public init?(argument: String) { self.init(argument) }
    public static var expectation: String { "a whole number from 0 to \(UInt32.max)" }
}

extension UInt64: ArgumentValue {
    public init?(argument: String) { self.init(argument) }
    public static var expectation: String { "a whole number from 0 to \(UInt64.max)" }
}

extension Double: ArgumentValue {
    public init?(argument: String) {
        guard let v = Double(argument), v.isFinite else { return nil }
        self = v
    }
    public static var expectation: String { "a number" }
}
