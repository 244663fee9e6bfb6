/// A strict JSON parser (RFC 8259) that also accepts `//` line and `/* */` block comments, as
/// Apple's manifest template contains them. Foundation's parsers report neither positions of
/// values nor duplicate keys, which validation needs; hence this small reader. Positions, line
/// breaks and a leading BOM follow `ByteScanner`; errors are `SyntaxError`s.
///
/// Numbers are doubles. An integer written without fraction or exponent must lie within ±2^53,
/// where every integer is exact in a double; a larger one is an error rather than a silently
/// rounded value.
public struct JSONParser {
    private var scanner: ByteScanner
    /// Nesting limit, so hostile input cannot exhaust the stack.
    public static let maximumDepth = 256
    /// The largest magnitude of an integer read exactly: 2^53.
    public static let largestExactInteger: UInt64 = 1 << 53

    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONNode {
        var parser = JSONParser(scanner: ByteScanner(bytes))
        try parser.skipTrivia()
        let root = try parser.parseValue(depth: 0)
        try parser.skipTrivia()
        if !parser.scanner.isAtEnd { throw parser.scanner.error("unexpected text after the top-level value") }
        return root
    }

    private init(scanner: ByteScanner) { self.scanner = scanner }

    private func error(_ message: String) -> SyntaxError { scanner.error(message) }

    private mutating func skipTrivia() throws(SyntaxError) {
        while let b = scanner.peek() {
            switch b {
            case 0x20, 0x09, 0x0D, 0x0A: scanner.advance()
            case UInt8(ascii: "/") where scanner.peek(1) == UInt8(ascii: "/"):
                scanner.advanceToLineBreak()
            case UInt8(ascii: "/") where scanner.peek(1) == UInt8(ascii: "*"):
                let start = scanner.location
                scanner.advance(by: 2)
                while !scanner.match("*/".utf8) {
                    guard scanner.peek(1) != nil else { throw scanner.error("block comment is never closed", at: start) }
                    scanner.advance()
                }
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(SyntaxError) -> JSONNode {
        guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        let at = scanner.location
        guard let b = scanner.peek() else { throw error("expected a value, found end of file") }
        switch b {
        case UInt8(ascii: "{"): return JSONNode(try parseObject(depth: depth), at: at)
        case UInt8(ascii: "["): return JSONNode(try parseArray(depth: depth), at: at)
        case UInt8(ascii: "\""): return JSONNode(.string(try parseString()), at: at)
        case UInt8(ascii: "t"): try expectWord("true"); return JSONNode(.bool(true), at: at)
        case UInt8(ascii: "f"): try expectWord("false"); return JSONNode(.bool(false), at: at)
        case UInt8(ascii: "n"): try expectWord("null"); return JSONNode(.null, at: at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(.number(try parseNumber()), at: at)
        default: throw error("expected a value, found \(scanner.describeNext)")
        }
    }

    private mutating func expectWord(_ word: String) throws(SyntaxError) {
        guard scanner.match(word.utf8) else { throw error("expected a value, found \(scanner.describeNext)") }
    }

    private mutating func parseObject(depth: Int) throws(SyntaxError) -> JSONValue {
        scanner.advance()
        var members: [(key: String, value: JSONNode)] = []
        var seen = Set<String>()
        try skipTrivia()
        if scanner.match(UInt8(ascii: "}")) { return .object(members) }
        while true {
            try skipTrivia()
            guard scanner.next(is: UInt8(ascii: "\"")) else {
                throw error("expected a quoted key, found \(scanner.describeNext)")
            }
            let keyAt = scanner.location
            let key = try parseString()
            guard seen.insert(key).inserted else { throw scanner.error("duplicate key \"\(key)\"", at: keyAt) }
            try skipTrivia()
            guard scanner.match(UInt8(ascii: ":")) else {
                throw error("expected ':' after key \"\(key)\", found \(scanner.describeNext)")
            }
            try skipTrivia()
            members.append((key, try parseValue(depth: depth + 1)))
            try skipTrivia()
            guard !scanner.isAtEnd else { throw error("object is never closed") }
            if scanner.match(UInt8(ascii: ",")) { continue }
            if scanner.match(UInt8(ascii: "}")) { return .object(members) }
            throw error("expected ',' or '}' in object, found \(scanner.describeNext)")
        }
    }

    private mutating func parseArray(depth: Int) throws(SyntaxError) -> JSONValue {
        scanner.advance()
        var items: [JSONNode] = []
        try skipTrivia()
        if scanner.match(UInt8(ascii: "]")) { return .array(items) }
        while true {
            try skipTrivia()
            items.append(try parseValue(depth: depth + 1))
            try skipTrivia()
            guard !scanner.isAtEnd else { throw error("array is never closed") }
            if scanner.match(UInt8(ascii: ",")) { continue }
            if scanner.match(UInt8(ascii: "]")) { return .array(items) }
            throw error("expected ',' or ']' in array, found \(scanner.describeNext)")
        }
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        scanner.advance()
        var out: [UInt8] = []
        while true {
            guard let b = scanner.peek() else { throw error("string is never closed") }
            switch b {
            case UInt8(ascii: "\""):
                scanner.advance()
                guard let s = String(validating: out, as: UTF8.self) else { throw error("string is not valid UTF-8") }
                return s
            case UInt8(ascii: "\\"):
                scanner.advance()
                let escapeAt = scanner.location
                guard let e = scanner.peek() else { throw error("string is never closed") }
                scanner.advance()
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
                        guard scanner.peek(5) != nil, scanner.match("\\u".utf8) else {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    throw scanner.error("invalid escape \\\(Character(Unicode.Scalar(e)))", at: escapeAt)
                }
            case 0x00..<0x20:
                throw error("control character in string (escape it)")
            default:
                out.append(b)
                scanner.advance()
            }
        }
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        guard scanner.peek(3) != nil else { throw error("\\u escape needs four hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let b = scanner.peek(), let d = ByteScanner.hexValue(b) else { throw error("\\u escape needs four hex digits") }
            v = v << 4 | UInt32(d)
            scanner.advance()
        }
        return v
    }

    private mutating func parseNumber() throws(SyntaxError) -> Double {
        let start = scanner.offset
        let startLocation = scanner.location
        func isDigit(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) }
        _ = scanner.match(UInt8(ascii: "-"))
        let intStart = scanner.offset
        scanner.advance(while: isDigit)
        let intDigits = scanner.offset - intStart
        guard intDigits > 0 else { throw error("invalid number") }
        if scanner.bytes[intStart] == 0x30 && intDigits > 1 { throw error("leading zeros are not allowed in numbers") }
        var integral = true
        if scanner.match(UInt8(ascii: ".")) {
            integral = false
            guard let b = scanner.peek(), isDigit(b) else { throw error("invalid number: digits expected after '.'") }
            scanner.advance(while: isDigit)
        }
        if let b = scanner.peek(), b | 0x20 == UInt8(ascii: "e") {
            integral = false
            scanner.advance()
            if !scanner.match(UInt8(ascii: "+")) { _ = scanner.match(UInt8(ascii: "-")) }
            guard let d = scanner.peek(), isDigit(d) else { throw error("invalid number: digits expected in exponent") }
            scanner.advance(while: isDigit)
        }
        let text = scanner.text(from: start)
        if integral {
            let digits = scanner.text(from: intStart)
            let limit = String(Self.largestExactInteger)
            if digits.count > limit.count || (digits.count == limit.count && digits > limit) {
                throw scanner.error("integer \(text) is outside ±2^53 (±\(limit)) and cannot be read exactly", at: startLocation)
            }
        }
        guard let d = Double(text) else { throw error("invalid number") }
        return d
    }
}
