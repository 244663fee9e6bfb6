/// HTTP header fields in the order they were given or received. Lookup ignores case, as HTTP
/// field names do; values are kept as sent.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init(_ fields: [(String, String)] = []) {
        for (name, value) in fields { append(name, value) }
    }

    public mutating func append(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every field named `name` (any case) with one field, or removes them when `value` is nil.
    public mutating func set(_ name: String, _ value: String?) {
        fields.removeAll { $0.name.lowercased() == name.lowercased() }
        if let value { append(name, value) }
    }

    /// The first value of the field named `name`, compared without regard to case.
    public subscript(name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (a: HTTPHeaders, b: HTTPHeaders) -> Bool {
        a.fields.count == b.fields.count && zip(a.fields, b.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
