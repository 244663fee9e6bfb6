/// A syntax error in JSON text, with the line and column where it was found.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var reason: String
    public var description: String { "line \(location.line), column \(location.column): \(reason)" }
}

/// A strict JSON parser (RFC 8259) that also accepts `//` line and `/* */` block comments, as
/// Apple's manifest template contains them. Foundation's parsers report neither positions of
/// values nor duplicate keys, which validation needs; hence this small reader.
public struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    /// Nesting limit, so hostile input cannot exhaust the stack.
    public static let maximumDepth = 256

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONNode {
        var parser = JSONParser(bytes: bytes)
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3; parser.lineStart = 3 }
        try parser.skipTrivia()
        let root = try parser.parseValue(depth: 0)
        try parser.skipTrivia()
        if parser.index < parser.bytes.count { throw parser.error("unexpected text after the top-level value") }
        return root
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var location: SourceLocation { SourceLocation(line: line, column: index - lineStart + 1) }

    private func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(location: location, reason: reason) }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        return b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
    }

    private mutating func skipTrivia() throws(JSONSyntaxError) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A: index += 1; line += 1; lineStart = index
            case 0x2F where index + 1 < bytes.count && bytes[index + 1] == 0x2F:
                while index < bytes.count && bytes[index] != 0x0A { index += 1 }
            case 0x2F where index + 1 < bytes.count && bytes[index + 1] == 0x2A:
                let start = location
                index += 2
                while true {
                    guard index + 1 < bytes.count else {
                        throw JSONSyntaxError(location: start, reason: "block comment is never closed")
                    }
                    if bytes[index] == 0x2A && bytes[index + 1] == 0x2F { index += 2; break }
                    if bytes[index] == 0x0A { line += 1; lineStart = index + 1 }
                    index += 1
                }
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        let at = location
        guard index < bytes.count else { throw error("expected a value, found end of file") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONNode(try parseObject(depth: depth), at: at)
        case UInt8(ascii: "["): return JSONNode(try parseArray(depth: depth), at: at)
        case UInt8(ascii: "\""): return JSONNode(.string(try parseString()), at: at)
        case UInt8(ascii: "t"): try expectWord("true"); return JSONNode(.bool(true), at: at)
        case UInt8(ascii: "f"): try expectWord("false"); return JSONNode(.bool(false), at: at)
        case UInt8(ascii: "n"): try expectWord("null"); return JSONNode(.null, at: at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(.number(try parseNumber()), at: at)
        default: throw error("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func expectWord(_ word: String) throws(JSONSyntaxError) {
        let w = Array(word.utf8)
        guard bytes.count - index >= w.count, Array(bytes[index..<index + w.count]) == w else {
            throw error("expected a value, found \(describeCurrent())")
        }
        index += w.count
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var members: [(key: String, value: JSONNode)] = []
        var seen = Set<String>()
        try skipTrivia()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            try skipTrivia()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a quoted key, found \(describeCurrent())")
            }
            let keyAt = location
            let key = try parseString()
            guard seen.insert(key).inserted else {
                throw JSONSyntaxError(location: keyAt, reason: "duplicate key \"\(key)\"")
            }
            try skipTrivia()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after key \"\(key)\", found \(describeCurrent())")
            }
            index += 1
            try skipTrivia()
            members.append((key, try parseValue(depth: depth + 1)))
            try skipTrivia()
            guard index < bytes.count else { throw error("object is never closed") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw error("expected ',' or '}' in object, found \(describeCurrent())")
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var items: [JSONNode] = []
        try skipTrivia()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            try skipTrivia()
            items.append(try parseValue(depth: depth + 1))
            try skipTrivia()
            guard index < bytes.count else { throw error("array is never closed") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw error("expected ',' or ']' in array, found \(describeCurrent())")
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("string is never closed") }
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw error("string is not valid UTF-8") }
                return s
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("string is never closed") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard bytes.count - index >= 6, bytes[index] == 0x5C, bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    index -= 1
                    throw error("invalid escape \\\(Character(Unicode.Scalar(e)))")
                }
            case 0x00..<0x20:
                throw error("control character in string (escape it)")
            default:
                out.append(b)
                index += 1
            }
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("\\u escape needs four hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - 55)
            default: throw error("\\u escape needs four hex digits")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        func digits() -> Int {
            let s = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - s
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let intStart = index
        guard digits() > 0 else { throw error("invalid number") }
        if bytes[intStart] == 0x30 && index - intStart > 1 { throw JSONSyntaxError(location: location, reason: "leading zeros are not allowed in numbers") }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("invalid number: digits expected after '.'") }
        }
        if index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw error("invalid number: digits expected in exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let d = Double(text) else { throw error("invalid number") }
        return d
    }
}
