/// A parsed JSON value that remembers where it stood, so that errors can name line and column.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONNode])
    /// Members in document order; duplicates are rejected by the parser.
    case object([(key: String, value: JSONNode)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The JSON type name used in error messages ("a string", "an object", …).
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON value with its location in the source text.
public struct JSONNode: Sendable, Equatable {
    public var value: JSONValue
    public var location: SourceLocation
    public init(_ value: JSONValue, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
    public static func == (a: JSONNode, b: JSONNode) -> Bool { a.value == b.value }
}
