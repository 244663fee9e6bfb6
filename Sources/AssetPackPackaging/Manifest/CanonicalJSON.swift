import AssetPackFormat
import Foundation

/// A JSON value written back as canonical text: object keys sorted (by their UTF-8 bytes), no
/// white space, integers without a fraction. How a manifest's `userInfo` is stored, so that the
/// same manifest always makes the same pack bytes.
enum CanonicalJSON {
    /// The largest `userInfo` a manifest may carry, in bytes of canonical JSON.
    static let userInfoLimit = 16 * 1024

    static func text(of value: JSONValue) -> String {
        var out = ""
        write(value, to: &out)
        return out
    }

    private static func write(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let d):
            if d == d.rounded(), abs(d) < 9.007_199_254_740_992e15 { out += String(Int64(d)) } else { out += "\(d)" }
        case .string(let s): string(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item.value, to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, member) in members.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }).enumerated() {
                if i > 0 { out += "," }
                string(member.key, to: &out)
                out += ":"
                write(member.value.value, to: &out)
            }
            out += "}"
        }
    }

    private static func string(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
