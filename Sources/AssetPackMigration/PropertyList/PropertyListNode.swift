import AssetPackFormat

/// A value of an OpenStep (ASCII) property list, as in `project.pbxproj`, with its position.
public struct PropertyListNode: Sendable {
    public var value: PropertyListValue
    public var location: SourceLocation

    public init(_ value: PropertyListValue, at location: SourceLocation) {
        self.value = value
        self.location = location
    }

    /// The string, when this node is one.
    public var string: String? {
        if case .string(let s) = value { return s }
        return nil
    }

    /// The elements, when this node is an array.
    public var array: [PropertyListNode]? {
        if case .array(let a) = value { return a }
        return nil
    }

    /// The entries, when this node is a dictionary.
    public var dictionary: PropertyListDictionary? {
        if case .dictionary(let d) = value { return d }
        return nil
    }

    /// The strings of an array node (non-strings skipped), or the single string of a string node.
    public var strings: [String] {
        switch value {
        case .string(let s): return [s]
        case .array(let a): return a.compactMap(\.string)
        default: return []
        }
    }
}

/// The four kinds of value an OpenStep property list holds.
public indirect enum PropertyListValue: Sendable {
    case string(String)
    case data([UInt8])
    case array([PropertyListNode])
    case dictionary(PropertyListDictionary)
}

/// A dictionary's entries in document order, each with the position of its key.
public struct PropertyListDictionary: Sendable {
    public struct Entry: Sendable {
        public var key: String
        public var keyLocation: SourceLocation
        public var value: PropertyListNode
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// The value of the last entry named `key` (later entries win, as in Xcode).
    public subscript(key: String) -> PropertyListNode? {
        entries.last { $0.key == key }?.value
    }

    /// The entry named `key`, with its key's position.
    public func entry(_ key: String) -> Entry? { entries.last { $0.key == key } }

    public func string(_ key: String) -> String? { self[key]?.string }
}
