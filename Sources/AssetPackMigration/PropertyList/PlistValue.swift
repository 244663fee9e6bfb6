import Foundation

/// A property-list value in a form that encodes to JSON: what an Info.plist key holds.
public indirect enum PlistValue: Sendable, Equatable, Codable {
    case string(String)
    case integer(Int)
    case real(Double)
    case bool(Bool)
    case array([PlistValue])
    case dictionary([String: PlistValue])

    /// Converts what `PropertyListSerialization` returned; dates and data become strings.
    public init(_ any: Any) {
        switch any {
        case let s as String: self = .string(s)
        case let b as Bool where Self.isBoolean(any): self = .bool(b)
        case let i as Int: self = .integer(i)
        case let d as Double: self = .real(d)
        case let a as [Any]: self = .array(a.map(PlistValue.init))
        case let d as [String: Any]: self = .dictionary(d.mapValues(PlistValue.init))
        case let date as Date: self = .string(ISO8601DateFormatter().string(from: date))
        case let data as Data: self = .string(data.base64EncodedString())
        default: self = .string(String(describing: any))
        }
    }

    private static func isBoolean(_ any: Any) -> Bool {
        if any is Bool && !(any is NSNumber) { return true }
        if let n = any as? NSNumber { return String(cString: n.objCType) == "c" || type(of: any) == Bool.self }
        return false
    }

    /// YES for `<true/>` and for strings Xcode treats as true.
    public var isTrue: Bool {
        switch self {
        case .bool(let b): return b
        case .string(let s): return ["yes", "true", "1"].contains(s.lowercased())
        case .integer(let i): return i != 0
        default: return false
        }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .real(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([PlistValue].self) { self = .array(a) }
        else { self = .dictionary(try c.decode([String: PlistValue].self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .integer(let i): try c.encode(i)
        case .real(let d): try c.encode(d)
        case .bool(let b): try c.encode(b)
        case .array(let a): try c.encode(a)
        case .dictionary(let d): try c.encode(d)
        }
    }
}
