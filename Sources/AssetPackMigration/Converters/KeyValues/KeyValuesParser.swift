import AssetPackFormat

/// Why a KeyValues file could not be read, and where.
public struct KeyValuesSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var location: SourceLocation
    public var reason: String
    public var description: String { "line \(location.line), column \(location.column): \(reason)" }
}

/// Reads Valve's KeyValues text format (Steam's `.vdf` build scripts): `"key" "value"` pairs and
/// `"key" { … }` blocks, quoted or unquoted tokens, `\n \t \\ \"` escapes in quotes, `//`
/// comments, and `[$WIN32]`-style conditions (skipped). `#include`/`#base` are recorded, not followed.
public struct KeyValuesParser {
    private let bytes: [UInt8]
    private var i = 0
    private var line = 1
    private var lineStart = 0
    private var directives: [(String, String, SourceLocation)] = []

    public static func parse(_ bytes: [UInt8]) throws(KeyValuesSyntaxError) -> KeyValuesDocument {
        var p = KeyValuesParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.i = 3; p.lineStart = 3 }
        let entries = try p.entries(closing: nil)
        return KeyValuesDocument(entries: entries, directives: p.directives.map { ($0.0, $0.1, $0.2) })
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var location: SourceLocation { SourceLocation(line: line, column: i - lineStart + 1) }

    private mutating func step() {
        if bytes[i] == UInt8(ascii: "\n") { line += 1; lineStart = i + 1 }
        i += 1
    }

    private enum Token { case string(String, SourceLocation, quoted: Bool), open(SourceLocation), close(SourceLocation), end }

    private mutating func skipSpace() {
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { step(); continue }
            if b == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") {
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { step() }
                continue
            }
            return
        }
    }

    private mutating func next() throws(KeyValuesSyntaxError) -> Token {
        skipSpace()
        guard i < bytes.count else { return .end }
        let at = location
        switch bytes[i] {
        case UInt8(ascii: "{"): step(); return .open(at)
        case UInt8(ascii: "}"): step(); return .close(at)
        case UInt8(ascii: "\""):
            step()
            var out: [UInt8] = []
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") { step(); return .string(String(decoding: out, as: UTF8.self), at, quoted: true) }
                if b == UInt8(ascii: "\n") { break }
                if b == UInt8(ascii: "\\"), i + 1 < bytes.count {
                    let e = bytes[i + 1]
                    switch e {
                    case UInt8(ascii: "n"): out.append(0x0A); step(); step(); continue
                    case UInt8(ascii: "t"): out.append(0x09); step(); step(); continue
                    case UInt8(ascii: "\\"): out.append(e); step(); step(); continue
                    case UInt8(ascii: "\"") where !quoteEndsToken(at: i + 1):
                        out.append(e); step(); step(); continue
                    default: break // a lone backslash (Windows paths) stays as written
                    }
                }
                out.append(b)
                step()
            }
            throw KeyValuesSyntaxError(location: at, reason: "string is not closed before the end of the line")
        default:
            let start = i
            while i < bytes.count {
                let b = bytes[i]
                if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == UInt8(ascii: "{") || b == UInt8(ascii: "}") || b == UInt8(ascii: "\"") { break }
                step()
            }
            return .string(String(decoding: bytes[start..<i], as: UTF8.self), at, quoted: false)
        }
    }

    /// Whether the quote at `q` closes the string: Steam scripts end folder paths with a backslash
    /// (`"..\content\"`), so a `\"` after which the line ends or the next token starts (`"`, `{`,
    /// `}`, `//`) is a backslash and the closing quote; anywhere else it is an escaped quote.
    private func quoteEndsToken(at q: Int) -> Bool {
        var n = q + 1
        if n < bytes.count, bytes[n] == UInt8(ascii: "\"") { return false } // `\""`: escaped quote, then the close
        while n < bytes.count, bytes[n] == 0x20 || bytes[n] == 0x09 { n += 1 }
        guard n < bytes.count else { return true }
        let b = bytes[n]
        return b == 0x0A || b == 0x0D || b == UInt8(ascii: "\"") || b == UInt8(ascii: "{") || b == UInt8(ascii: "}") || b == UInt8(ascii: "/")
    }

    /// Skips a `[$CONDITION]` token after a value or key, if one follows on the same line.
    private mutating func skipCondition() {
        var j = i
        while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
        guard j < bytes.count, bytes[j] == UInt8(ascii: "[") else { return }
        while i < j { step() }
        while i < bytes.count, bytes[i] != UInt8(ascii: "]"), bytes[i] != UInt8(ascii: "\n") { step() }
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { step() }
    }

    private mutating func entries(closing open: SourceLocation?) throws(KeyValuesSyntaxError) -> [KeyValuesNode] {
        var out: [KeyValuesNode] = []
        while true {
            let t = try next()
            switch t {
            case .end:
                if let open { throw KeyValuesSyntaxError(location: location, reason: "block opened at line \(open.line), column \(open.column) is not closed") }
                return out
            case .close(let at):
                guard open != nil else { throw KeyValuesSyntaxError(location: at, reason: "'}' without a matching '{'") }
                return out
            case .open(let at):
                throw KeyValuesSyntaxError(location: at, reason: "'{' where a key was expected")
            case .string(let key, let at, let quoted):
                if !quoted, key.hasPrefix("#") {
                    guard case .string(let argument, _, _) = try next() else {
                        throw KeyValuesSyntaxError(location: at, reason: "\(key) needs a file name")
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
                    throw KeyValuesSyntaxError(location: c, reason: "key \"\(key)\" has no value before '}'")
                case .end:
                    throw KeyValuesSyntaxError(location: location, reason: "key \"\(key)\" has no value before the end of the file")
                }
            }
        }
    }
}
