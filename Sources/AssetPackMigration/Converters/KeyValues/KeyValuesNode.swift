import AssetPackFormat
import Foundation

/// One entry of a Valve KeyValues (VDF) document: a key and either a string or child entries.
public struct KeyValuesNode: Sendable {
    public enum Value: Sendable {
        case string(String)
        case children([KeyValuesNode])
    }

    public var key: String
    public var location: SourceLocation
    public var value: Value

    public var string: String? {
        if case .string(let s) = value { return s }
        return nil
    }

    public var children: [KeyValuesNode] {
        if case .children(let c) = value { return c }
        return []
    }

    /// The first child named `key`, compared case-insensitively as Steam does.
    public func child(_ key: String) -> KeyValuesNode? {
        children.first { $0.key.caseInsensitiveCompare(key) == .orderedSame }
    }

    /// Every child named `key` (keys may repeat, as `FileMapping` does).
    public func all(_ key: String) -> [KeyValuesNode] {
        children.filter { $0.key.caseInsensitiveCompare(key) == .orderedSame }
    }
}

/// A KeyValues document: its top-level entries and the directives it could not honour.
public struct KeyValuesDocument: Sendable {
    public var entries: [KeyValuesNode]
    /// `#include` and `#base` lines: reported, not followed.
    public var directives: [(name: String, argument: String, location: SourceLocation)]
}
