import AssetPackFormat

/// Reads the OpenStep (ASCII) property-list format that Xcode writes to `project.pbxproj`:
/// `{ key = value; }` dictionaries, `( a, b, )` arrays, quoted strings with escapes, unquoted
/// tokens, `<0fbd 7a>` data, and `/* */` and `//` comments. Positions, line breaks and a
/// leading BOM follow `ByteScanner`; errors are `SyntaxError`s.
public struct OpenStepPropertyListParser {
    private var scanner: ByteScanner
    private var depth = 0

    public static let maximumDepth = 512

    /// Parses a whole document: one value (normally a dictionary), then only comments and space.
    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> PropertyListNode {
        var p = OpenStepPropertyListParser(scanner: ByteScanner(bytes))
        try p.skipSpaceAndComments()
        guard !p.scanner.isAtEnd else { throw p.error("the file holds no property list") }
        let root = try p.value()
        try p.skipSpaceAndComments()
        if !p.scanner.isAtEnd { throw p.error("unexpected \(p.scanner.describeNext) after the end of the property list") }
        return root
    }

    public static func parse(_ text: String) throws(SyntaxError) -> PropertyListNode {
        try parse(Array(text.utf8))
    }

    private init(scanner: ByteScanner) { self.scanner = scanner }

    private var location: SourceLocation { scanner.location }

    private func error(_ message: String, at location: SourceLocation? = nil) -> SyntaxError {
        scanner.error(message, at: location)
    }

    private mutating func skipSpaceAndComments() throws(SyntaxError) {
        while let b = scanner.peek() {
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C || b == 0x0B {
                scanner.advance()
            } else if scanner.next(are: "//".utf8) {
                scanner.advanceToLineBreak()
            } else if scanner.next(are: "/*".utf8) {
                let start = location
                scanner.advance(by: 2)
                while !scanner.match("*/".utf8) {
                    guard !scanner.isAtEnd else { throw error("comment is not closed (opened here with /*)", at: start) }
                    scanner.advance()
                }
            } else {
                return
            }
        }
    }

    private mutating func value() throws(SyntaxError) -> PropertyListNode {
        let start = location
        guard let first = scanner.peek() else { throw error("expected a value, found end of file") }
        switch first {
        case UInt8(ascii: "{"): return try nested(start) { (p: inout Self) throws(SyntaxError) in try p.dictionary(start) }
        case UInt8(ascii: "("): return try nested(start) { (p: inout Self) throws(SyntaxError) in try p.array(start) }
        case UInt8(ascii: "<"): return PropertyListNode(.data(try data(start)), at: start)
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return PropertyListNode(.string(try quotedString()), at: start)
        default:
            guard let token = unquotedToken() else { throw error("expected a value, found \(scanner.describeNext)") }
            return PropertyListNode(.string(token), at: start)
        }
    }

    private mutating func nested(_ start: SourceLocation, _ body: (inout Self) throws(SyntaxError) -> PropertyListValue) throws(SyntaxError) -> PropertyListNode {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        return PropertyListNode(try body(&self), at: start)
    }

    private mutating func dictionary(_ start: SourceLocation) throws(SyntaxError) -> PropertyListValue {
        scanner.advance() // {
        var entries: [PropertyListDictionary.Entry] = []
        while true {
            try skipSpaceAndComments()
            guard let b = scanner.peek() else { throw error("dictionary opened at line \(start.line), column \(start.column) is not closed") }
            if b == UInt8(ascii: "}") { scanner.advance(); return .dictionary(PropertyListDictionary(entries: entries)) }
            let keyLocation = location
            let key: String
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                key = try quotedString()
            } else if let token = unquotedToken() {
                key = token
            } else {
                throw error("expected a key or '}', found \(scanner.describeNext)")
            }
            try skipSpaceAndComments()
            guard scanner.match(UInt8(ascii: "=")) else {
                throw error("expected '=' after key \"\(key)\", found \(scanner.describeNext)")
            }
            try skipSpaceAndComments()
            let v = try value()
            try skipSpaceAndComments()
            guard scanner.match(UInt8(ascii: ";")) else {
                throw error("expected ';' after the value of \"\(key)\", found \(scanner.describeNext)")
            }
            entries.append(.init(key: key, keyLocation: keyLocation, value: v))
        }
    }

    private mutating func array(_ start: SourceLocation) throws(SyntaxError) -> PropertyListValue {
        scanner.advance() // (
        var elements: [PropertyListNode] = []
        while true {
            try skipSpaceAndComments()
            guard !scanner.isAtEnd else { throw error("array opened at line \(start.line), column \(start.column) is not closed") }
            if scanner.match(UInt8(ascii: ")")) { return .array(elements) }
            elements.append(try value())
            try skipSpaceAndComments()
            guard !scanner.isAtEnd else { continue }
            if scanner.match(UInt8(ascii: ",")) { continue }
            guard scanner.next(is: UInt8(ascii: ")")) else { throw error("expected ',' or ')' in array, found \(scanner.describeNext)") }
        }
    }

    private mutating func data(_ start: SourceLocation) throws(SyntaxError) -> [UInt8] {
        scanner.advance() // <
        var out: [UInt8] = []
        var high: UInt8?
        while let b = scanner.peek() {
            if b == UInt8(ascii: ">") {
                guard high == nil else { throw error("data has an odd number of hex digits") }
                scanner.advance()
                return out
            }
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { scanner.advance(); continue }
            guard let nibble = ByteScanner.hexValue(b) else { throw error("expected a hex digit or '>' in data, found \(scanner.describeNext)") }
            if let h = high { out.append(h << 4 | nibble); high = nil } else { high = nibble }
            scanner.advance()
        }
        throw error("data opened at line \(start.line), column \(start.column) is not closed with '>'")
    }

    /// Letters, digits and `_$+/:.-` make an unquoted string (Xcode writes IDs and paths this way).
    private mutating func unquotedToken() -> String? {
        let start = scanner.offset
        scanner.advance(while: Self.isUnquotedByte)
        guard scanner.offset > start else { return nil }
        return scanner.text(from: start)
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

    private mutating func quotedString() throws(SyntaxError) -> String {
        let start = location
        guard let quote = scanner.peek() else { throw error("expected a string, found end of file") }
        scanner.advance()
        var out: [UInt8] = []
        while let b = scanner.peek() {
            if b == quote { scanner.advance(); return String(decoding: out, as: UTF8.self) }
            if b != UInt8(ascii: "\\") { out.append(b); scanner.advance(); continue }
            let escapeLocation = location
            scanner.advance()
            guard let e = scanner.peek() else { break }
            scanner.advance()
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
                    guard let next = scanner.peek(), let n = ByteScanner.hexValue(next) else {
                        throw error("\\U needs four hex digits", at: escapeLocation)
                    }
                    scalar = scalar << 4 | UInt32(n)
                    scanner.advance()
                }
                guard let u = UnicodeScalar(scalar) else { throw error("\\U\(String(scalar, radix: 16)) is not a Unicode scalar", at: escapeLocation) }
                out += Array(String(Character(u)).utf8)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var v = UInt32(e - UInt8(ascii: "0"))
                var n = 1
                while n < 3, let d = scanner.peek(), (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(d) {
                    v = v * 8 + UInt32(d - UInt8(ascii: "0"))
                    scanner.advance(); n += 1
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
}
