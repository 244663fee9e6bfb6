import AssetPackFormat

/// Splits Swift or Objective-C source into tokens. It knows the places where a word is not
/// code: `//` and `/* */` comments (nested in Swift), string literals (`"…"`, `@"…"`, Swift's
/// `"""…"""` and raw `#"…"#`), and character literals; Swift interpolations `\(…)` are lexed as
/// code. It does not run the preprocessor. Positions, line breaks and a leading BOM follow
/// `ByteScanner`; token offsets index the file's bytes, BOM included.
public struct SourceLexer {
    private var scanner: ByteScanner
    private let language: SourceLanguage
    private var tokens: [SourceToken] = []

    public static func tokens(of bytes: [UInt8], language: SourceLanguage) -> [SourceToken] {
        var lexer = SourceLexer(bytes: bytes, language: language)
        lexer.lexCode(stopAtUnbalancedParen: false)
        return lexer.tokens
    }

    private init(bytes: [UInt8], language: SourceLanguage) {
        scanner = ByteScanner(bytes)
        self.language = language
    }

    private static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "_") || b == UInt8(ascii: "$") || b >= 0x80
    }

    private static func isIdentifierByte(_ b: UInt8) -> Bool { isIdentifierStart(b) || (b >= 0x30 && b <= 0x39) }

    /// Lexes code until the end, or (inside an interpolation) until the `)` that closes it.
    private mutating func lexCode(stopAtUnbalancedParen: Bool) {
        var parens = 0
        while let b = scanner.peek() {
            let l = scanner.line, c = scanner.column, start = scanner.offset
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D:
                scanner.advance()
            case UInt8(ascii: "/") where scanner.peek(1) == UInt8(ascii: "/"):
                scanner.advanceToLineBreak()
                tokens.append(SourceToken(kind: .comment, text: scanner.text(from: start), line: l, column: c, offset: start, endOffset: scanner.offset))
            case UInt8(ascii: "/") where scanner.peek(1) == UInt8(ascii: "*"):
                blockComment()
                tokens.append(SourceToken(kind: .comment, text: scanner.text(from: start), line: l, column: c, offset: start, endOffset: scanner.offset))
            case UInt8(ascii: "\""):
                stringLiteral(hashes: 0)
            case UInt8(ascii: "#") where language == .swift && (scanner.peek(1) == UInt8(ascii: "\"") || scanner.peek(1) == UInt8(ascii: "#")):
                var hashes = 0
                while scanner.peek(hashes) == UInt8(ascii: "#") { hashes += 1 }
                if scanner.peek(hashes) == UInt8(ascii: "\"") {
                    scanner.advance(by: hashes)
                    stringLiteral(hashes: hashes)
                } else {
                    scanner.advance()
                    tokens.append(SourceToken(kind: .punctuation, text: "#", line: l, column: c, offset: start, endOffset: scanner.offset))
                }
            case UInt8(ascii: "'") where language == .objectiveC:
                scanner.advance()
                while let x = scanner.peek(), x != UInt8(ascii: "'"), !ByteScanner.isLineBreak(x) {
                    if x == UInt8(ascii: "\\") { scanner.advance() }
                    if scanner.peek() != nil { scanner.advance() }
                }
                if scanner.peek() == UInt8(ascii: "'") { scanner.advance() }
                tokens.append(SourceToken(kind: .literal, text: scanner.text(from: start), line: l, column: c, offset: start, endOffset: scanner.offset))
            case UInt8(ascii: "`") where language == .swift:
                scanner.advance()
                let s = scanner.offset
                scanner.advance { $0 != UInt8(ascii: "`") && !ByteScanner.isLineBreak($0) }
                let name = scanner.text(from: s)
                if scanner.peek() == UInt8(ascii: "`") { scanner.advance() }
                tokens.append(SourceToken(kind: .identifier, text: name, line: l, column: c, offset: start, endOffset: scanner.offset))
            case let x where Self.isIdentifierStart(x):
                while let y = scanner.peek(), Self.isIdentifierByte(y) { scanner.advance() }
                tokens.append(SourceToken(kind: .identifier, text: scanner.text(from: start), line: l, column: c, offset: start, endOffset: scanner.offset))
            case let x where x >= 0x30 && x <= 0x39:
                while let y = scanner.peek(), Self.isIdentifierByte(y) || y == UInt8(ascii: ".") && (scanner.peek(1).map { $0 >= 0x30 && $0 <= 0x39 } ?? false) { scanner.advance() }
                tokens.append(SourceToken(kind: .literal, text: scanner.text(from: start), line: l, column: c, offset: start, endOffset: scanner.offset))
            default:
                if stopAtUnbalancedParen {
                    if b == UInt8(ascii: "(") { parens += 1 }
                    if b == UInt8(ascii: ")") {
                        if parens == 0 { scanner.advance(); return }
                        parens -= 1
                    }
                }
                scanner.advance()
                tokens.append(SourceToken(kind: .punctuation, text: String(UnicodeScalar(b)), line: l, column: c, offset: start, endOffset: scanner.offset))
            }
        }
    }

    private mutating func blockComment() {
        scanner.advance(); scanner.advance()
        var depth = 1
        while let b = scanner.peek() {
            if b == UInt8(ascii: "*"), scanner.peek(1) == UInt8(ascii: "/") {
                scanner.advance(); scanner.advance(); depth -= 1
                if depth == 0 { return }
            } else if language == .swift, b == UInt8(ascii: "/"), scanner.peek(1) == UInt8(ascii: "*") {
                scanner.advance(); scanner.advance(); depth += 1
            } else {
                scanner.advance()
            }
        }
    }

    /// A string literal starting at the opening quote (after any `#`s of a raw string). Content
    /// pieces between interpolations become one string token; interpolations are lexed as code.
    private mutating func stringLiteral(hashes: Int) {
        let multiline = language == .swift && scanner.peek(1) == UInt8(ascii: "\"") && scanner.peek(2) == UInt8(ascii: "\"")
        let l = scanner.line, c = scanner.column, start = scanner.offset
        scanner.advance(by: multiline ? 3 : 1)
        var content: [UInt8] = []
        var contentStart = scanner.offset
        var contentEnd = scanner.offset
        func closes(_ lexer: SourceLexer) -> Bool {
            let quotes = multiline ? 3 : 1
            for k in 0..<quotes where lexer.scanner.peek(k) != UInt8(ascii: "\"") { return false }
            for k in 0..<hashes where lexer.scanner.peek(quotes + k) != UInt8(ascii: "#") { return false }
            return true
        }
        while let b = scanner.peek() {
            if closes(self) {
                contentEnd = scanner.offset
                scanner.advance(by: (multiline ? 3 : 1) + hashes)
                break
            }
            if !multiline && ByteScanner.isLineBreak(b) { contentEnd = scanner.offset; break } // unterminated: stop at the line end
            if b == UInt8(ascii: "\\") && hashesFollow(hashes, from: 1) {
                let after = scanner.peek(1 + hashes)
                if language == .swift, after == UInt8(ascii: "(") {
                    contentEnd = scanner.offset
                    tokens.append(SourceToken(kind: .string, text: String(decoding: content, as: UTF8.self), line: l, column: c, offset: contentStart, endOffset: contentEnd))
                    scanner.advance(by: 2 + hashes)
                    lexCode(stopAtUnbalancedParen: true)
                    content = []
                    contentStart = scanner.offset
                    continue
                }
                scanner.advance(by: 1 + hashes)
                guard let e = scanner.peek() else { break }
                switch e {
                case UInt8(ascii: "n"): content.append(0x0A)
                case UInt8(ascii: "t"): content.append(0x09)
                case UInt8(ascii: "r"): content.append(0x0D)
                case UInt8(ascii: "0"): content.append(0x00)
                default: content.append(e)
                }
                scanner.advance()
                continue
            }
            content.append(b)
            scanner.advance()
        }
        _ = start
        if scanner.peek() == nil { contentEnd = scanner.offset }
        tokens.append(SourceToken(kind: .string, text: String(decoding: content, as: UTF8.self), line: l, column: c, offset: contentStart, endOffset: contentEnd))
    }

    private func hashesFollow(_ hashes: Int, from k: Int) -> Bool {
        for h in 0..<hashes where scanner.peek(k + h) != UInt8(ascii: "#") { return false }
        return true
    }
}
