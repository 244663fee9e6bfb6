import AssetPackFormat

/// Reads Valve's KeyValues text format (Steam's `.vdf` build scripts): `"key" "value"` pairs and
/// `"key" { … }` blocks, quoted or unquoted tokens, `\n \t \\ \"` escapes in quotes, `//`
/// comments, and `[$WIN32]`-style conditions (skipped). `#include`/`#base` are recorded, not followed.
/// Positions, line breaks and a leading BOM follow `ByteScanner`; errors are `SyntaxError`s.
public struct KeyValuesParser {
    private var scanner: ByteScanner
    private var directives: [(String, String, SourceLocation)] = []

    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> KeyValuesDocument {
        var p = KeyValuesParser(scanner: ByteScanner(bytes))
        let entries = try p.entries(closing: nil)
        return KeyValuesDocument(entries: entries, directives: p.directives.map { ($0.0, $0.1, $0.2) })
    }

    private init(scanner: ByteScanner) { self.scanner = scanner }

    private var location: SourceLocation { scanner.location }

    private enum Token { case string(String, SourceLocation, quoted: Bool), open(SourceLocation), close(SourceLocation), end }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    private mutating func skipSpace() {
        while let b = scanner.peek() {
            if Self.isSpace(b) || ByteScanner.isLineBreak(b) { scanner.advance(); continue }
            if scanner.next(are: "//".utf8) { scanner.advanceToLineBreak(); continue }
            return
        }
    }

    private mutating func next() throws(SyntaxError) -> Token {
        skipSpace()
        guard let first = scanner.peek() else { return .end }
        let at = location
        switch first {
        case UInt8(ascii: "{"): scanner.advance(); return .open(at)
        case UInt8(ascii: "}"): scanner.advance(); return .close(at)
        case UInt8(ascii: "\""):
            scanner.advance()
            var out: [UInt8] = []
            while let b = scanner.peek() {
                if b == UInt8(ascii: "\"") { scanner.advance(); return .string(String(decoding: out, as: UTF8.self), at, quoted: true) }
                if ByteScanner.isLineBreak(b) { break }
                if b == UInt8(ascii: "\\"), let e = scanner.peek(1) {
                    switch e {
                    case UInt8(ascii: "n"): out.append(0x0A); scanner.advance(by: 2); continue
                    case UInt8(ascii: "t"): out.append(0x09); scanner.advance(by: 2); continue
                    case UInt8(ascii: "\\"): out.append(e); scanner.advance(by: 2); continue
                    case UInt8(ascii: "\"") where !quoteEndsToken(at: 1):
                        out.append(e); scanner.advance(by: 2); continue
                    default: break // a lone backslash (Windows paths) stays as written
                    }
                }
                out.append(b)
                scanner.advance()
            }
            throw scanner.error("string is not closed before the end of the line", at: at)
        default:
            let start = scanner.offset
            scanner.advance { b in
                !(Self.isSpace(b) || ByteScanner.isLineBreak(b) || b == UInt8(ascii: "{") || b == UInt8(ascii: "}") || b == UInt8(ascii: "\""))
            }
            return .string(scanner.text(from: start), at, quoted: false)
        }
    }

    /// Whether the quote `q` bytes ahead closes the string: Steam scripts end folder paths with a
    /// backslash (`"..\content\"`), so a `\"` after which the line ends or the next token starts
    /// (`"`, `{`, `}`, `//`) is a backslash and the closing quote; anywhere else it is an escaped quote.
    private func quoteEndsToken(at q: Int) -> Bool {
        var n = q + 1
        if scanner.peek(n) == UInt8(ascii: "\"") { return false } // `\""`: escaped quote, then the close
        while let b = scanner.peek(n), Self.isSpace(b) { n += 1 }
        guard let b = scanner.peek(n) else { return true }
        return ByteScanner.isLineBreak(b) || b == UInt8(ascii: "\"") || b == UInt8(ascii: "{") || b == UInt8(ascii: "}") || b == UInt8(ascii: "/")
    }

    /// Skips a `[$CONDITION]` token after a value or key, if one follows on the same line.
    private mutating func skipCondition() {
        var j = 0
        while let b = scanner.peek(j), Self.isSpace(b) { j += 1 }
        guard scanner.peek(j) == UInt8(ascii: "[") else { return }
        scanner.advance(by: j)
        scanner.advance { $0 != UInt8(ascii: "]") && !ByteScanner.isLineBreak($0) }
        _ = scanner.match(UInt8(ascii: "]"))
    }

    private mutating func entries(closing open: SourceLocation?) throws(SyntaxError) -> [KeyValuesNode] {
        var out: [KeyValuesNode] = []
        while true {
            let t = try next()
            switch t {
            case .end:
                if let open { throw scanner.error("block opened at line \(open.line), column \(open.column) is not closed") }
                return out
            case .close(let at):
                guard open != nil else { throw scanner.error("'}' without a matching '{'", at: at) }
                return out
            case .open(let at):
                throw scanner.error("'{' where a key was expected", at: at)
            case .string(let key, let at, let quoted):
                if !quoted, key.hasPrefix("#") {
                    guard case .string(let argument, _, _) = try next() else {
                        throw scanner.error("\(key) needs a file name", at: at)
                    }
                    directives.append((key, argument, at))
                    continue
                }
                skipCondition()
                switch try next() {
                case .string(let value, _, _):
                    skipCondition()
                    out.append(KeyValuesNode(key: key, location: at, value: .string(value)))
                case .open(let blockAt):
                    out.append(KeyValuesNode(key: key, location: at, value: .children(try entries(closing: blockAt))))
                case .close(let c):
                    throw scanner.error("key \"\(key)\" has no value before '}'", at: c)
                case .end:
                    throw scanner.error("key \"\(key)\" has no value before the end of the file")
                }
            }
        }
    }
}
