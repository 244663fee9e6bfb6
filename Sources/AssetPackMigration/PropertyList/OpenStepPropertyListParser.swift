import Foundation
import AssetPackFormat

/// Reads the OpenStep (ASCII) property-list format that Xcode writes to `project.pbxproj`:
/// `{ key = value; }` dictionaries, `( a, b, )` arrays, quoted strings with escapes, unquoted
/// tokens, `<0fbd 7a>` data, and `/* */` and `//` comments. Columns count UTF-8 bytes from 1.
public struct OpenStepPropertyListParser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0

    public static let maximumDepth = 512

    /// Parses a whole document: one value (normally a dictionary), then only comments and space.
    public static func parse(_ bytes: [UInt8]) throws(PropertyListSyntaxError) -> PropertyListNode {
        var p = OpenStepPropertyListParser(bytes: bytes)
        // A UTF-8 byte-order mark is allowed before the first value.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.index = 3; p.lineStart = 3 }
        try p.skipSpaceAndComments()
        guard p.index < bytes.count else { throw p.error("the file holds no property list") }
        let root = try p.value()
        try p.skipSpaceAndComments()
        if p.index < bytes.count { throw p.error("unexpected \(p.describeCurrent()) after the end of the property list") }
        return root
    }

    public static func parse(_ text: String) throws(PropertyListSyntaxError) -> PropertyListNode {
        try parse(Array(text.utf8))
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var location: SourceLocation { SourceLocation(line: line, column: index - lineStart + 1) }

    private func error(_ reason: String, at location: SourceLocation? = nil) -> PropertyListSyntaxError {
        PropertyListSyntaxError(at: location ?? self.location, reason)
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        return (0x21...0x7E).contains(b) ? "'\(Character(UnicodeScalar(b)))'" : String(format: "byte 0x%02X", b)
    }

    private mutating func advance() {
        if bytes[index] == UInt8(ascii: "\n") { line += 1; lineStart = index + 1 }
        index += 1
    }

    private mutating func skipSpaceAndComments() throws(PropertyListSyntaxError) {
        while index < bytes.count {
            let b = bytes[index]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C || b == 0x0B {
                advance()
            } else if b == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { advance() }
            } else if b == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                let start = location
                advance(); advance()
                var closed = false
                while index < bytes.count {
                    if bytes[index] == UInt8(ascii: "*"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                        advance(); advance(); closed = true; break
                    }
                    advance()
                }
                if !closed { throw error("comment is not closed (opened here with /*)", at: start) }
            } else {
                return
            }
        }
    }

    private mutating func value() throws(PropertyListSyntaxError) -> PropertyListNode {
        let start = location
        guard index < bytes.count else { throw error("expected a value, found end of file") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try nested(start) { (p: inout Self) throws(PropertyListSyntaxError) in try p.dictionary(start) }
        case UInt8(ascii: "("): return try nested(start) { (p: inout Self) throws(PropertyListSyntaxError) in try p.array(start) }
        case UInt8(ascii: "<"): return PropertyListNode(.data(try data(start)), at: start)
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return PropertyListNode(.string(try quotedString()), at: start)
        default:
            guard let token = unquotedToken() else { throw error("expected a value, found \(describeCurrent())") }
            return PropertyListNode(.string(token), at: start)
        }
    }

    private mutating func nested(_ start: SourceLocation, _ body: (inout Self) throws(PropertyListSyntaxError) -> PropertyListValue) throws(PropertyListSyntaxError) -> PropertyListNode {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        return PropertyListNode(try body(&self), at: start)
    }

    private mutating func dictionary(_ start: SourceLocation) throws(PropertyListSyntaxError) -> PropertyListValue {
        advance() // {
        var entries: [PropertyListDictionary.Entry] = []
        while true {
            try skipSpaceAndComments()
            guard index < bytes.count else { throw error("dictionary opened at line \(start.line), column \(start.column) is not closed") }
            if bytes[index] == UInt8(ascii: "}") { advance(); return .dictionary(PropertyListDictionary(entries: entries)) }
            let keyLocation = location
            let key: String
            if bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                key = try quotedString()
            } else if let token = unquotedToken() {
                key = token
            } else {
                throw error("expected a key or '}', found \(describeCurrent())")
            }
            try skipSpaceAndComments()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                throw error("expected '=' after key \"\(key)\", found \(describeCurrent())")
            }
            advance()
            try skipSpaceAndComments()
            let v = try value()
            try skipSpaceAndComments()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ";") else {
                throw error("expected ';' after the value of \"\(key)\", found \(describeCurrent())")
            }
            advance()
            entries.append(.init(key: key, keyLocation: keyLocation, value: v))
        }
    }

    private mutating func array(_ start: SourceLocation) throws(PropertyListSyntaxError) -> PropertyListValue {
        advance() // (
        var elements: [PropertyListNode] = []
        while true {
            try skipSpaceAndComments()
            guard index < bytes.count else { throw error("array opened at line \(start.line), column \(start.column) is not closed") }
            if bytes[index] == UInt8(ascii: ")") { advance(); return .array(elements) }
            elements.append(try value())
            try skipSpaceAndComments()
            guard index < bytes.count else { continue }
            if bytes[index] == UInt8(ascii: ",") { advance(); continue }
            guard bytes[index] == UInt8(ascii: ")") else { throw error("expected ',' or ')' in array, found \(describeCurrent())") }
        }
    }

    private mutating func data(_ start: SourceLocation) throws(PropertyListSyntaxError) -> [UInt8] {
        advance() // <
        var out: [UInt8] = []
        var high: UInt8?
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: ">") {
                guard high == nil else { throw error("data has an odd number of hex digits") }
                advance()
                return out
            }
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { advance(); continue }
            guard let nibble = hexValue(b) else { throw error("expected a hex digit or '>' in data, found \(describeCurrent())") }
            if let h = high { out.append(h << 4 | nibble); high = nil } else { high = nibble }
            advance()
        }
        throw error("data opened at line \(start.line), column \(start.column) is not closed with '>'")
    }

    /// Letters, digits and `_$+/:.-` make an unquoted string (Xcode writes IDs and paths this way).
    private mutating func unquotedToken() -> String? {
        let start = index
        while index < bytes.count, Self.isUnquotedByte(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    static func isUnquotedByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"),
             UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    private mutating func quotedString() throws(PropertyListSyntaxError) -> String {
        let start = location
        let quote = bytes[index]
        advance()
        var out: [UInt8] = []
        while index < bytes.count {
            let b = bytes[index]
            if b == quote { advance(); return String(decoding: out, as: UTF8.self) }
            if b != UInt8(ascii: "\\") { out.append(b); advance(); continue }
            let escapeLocation = location
            advance()
            guard index < bytes.count else { break }
            let e = bytes[index]
            advance()
            switch e {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "a"): out.append(0x07)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "v"): out.append(0x0B)
            case UInt8(ascii: "U"), UInt8(ascii: "u"):
                var scalar: UInt32 = 0
                for _ in 0..<4 {
                    guard index < bytes.count, let n = hexValue(bytes[index]) else {
                        throw error("\\U needs four hex digits", at: escapeLocation)
                    }
                    scalar = scalar << 4 | UInt32(n)
                    advance()
                }
                guard let u = UnicodeScalar(scalar) else { throw error("\\U\(String(scalar, radix: 16)) is not a Unicode scalar", at: escapeLocation) }
                out += Array(String(Character(u)).utf8)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var v = UInt32(e - UInt8(ascii: "0"))
                var n = 1
                while n < 3, index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[index]) {
                    v = v * 8 + UInt32(bytes[index] - UInt8(ascii: "0"))
                    advance(); n += 1
                }
                guard v <= 0xFF else { throw error("octal escape \\\(String(v, radix: 8)) is above \\377", at: escapeLocation) }
                out.append(UInt8(v))
            default:
                // \\, \", \' and any other character stand for themselves.
                out.append(e)
            }
        }
        throw error("string opened at line \(start.line), column \(start.column) is not closed", at: start)
    }

    private func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
