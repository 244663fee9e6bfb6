/// Splits Swift or Objective-C source into tokens. It knows the places where a word is not
/// code: `//` and `/* */` comments (nested in Swift), string literals (`"…"`, `@"…"`, Swift's
/// `"""…"""` and raw `#"…"#`), and character literals; Swift interpolations `\(…)` are lexed as
/// code. It does not run the preprocessor.
public struct SourceLexer {
    private let bytes: [UInt8]
    private let language: SourceLanguage
    private var i = 0
    private var line = 1
    private var lineStart = 0
    private var tokens: [SourceToken] = []

    public static func tokens(of bytes: [UInt8], language: SourceLanguage) -> [SourceToken] {
        var lexer = SourceLexer(bytes: bytes, language: language)
        lexer.lexCode(stopAtUnbalancedParen: false)
        return lexer.tokens
    }

    private init(bytes: [UInt8], language: SourceLanguage) {
        self.bytes = bytes
        self.language = language
    }

    private var column: Int { i - lineStart + 1 }

    private func peek(_ k: Int = 0) -> UInt8? { i + k < bytes.count ? bytes[i + k] : nil }

    private mutating func step() {
        if bytes[i] == UInt8(ascii: "\n") { line += 1; lineStart = i + 1 }
        i += 1
    }

    private static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "_") || b == UInt8(ascii: "$") || b >= 0x80
    }

    private static func isIdentifierByte(_ b: UInt8) -> Bool { isIdentifierStart(b) || (b >= 0x30 && b <= 0x39) }

    /// Lexes code until the end, or (inside an interpolation) until the `)` that closes it.
    private mutating func lexCode(stopAtUnbalancedParen: Bool) {
        var parens = 0
        while let b = peek() {
            let l = line, c = column, start = i
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D:
                step()
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
                while let x = peek(), x != UInt8(ascii: "\n") { step() }
                tokens.append(SourceToken(kind: .comment, text: text(start, i), line: l, column: c, offset: start, endOffset: i))
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
                blockComment()
                tokens.append(SourceToken(kind: .comment, text: text(start, i), line: l, column: c, offset: start, endOffset: i))
            case UInt8(ascii: "\""):
                stringLiteral(hashes: 0)
            case UInt8(ascii: "#") where language == .swift && (peek(1) == UInt8(ascii: "\"") || peek(1) == UInt8(ascii: "#")):
                var hashes = 0
                while peek(hashes) == UInt8(ascii: "#") { hashes += 1 }
                if peek(hashes) == UInt8(ascii: "\"") {
                    for _ in 0..<hashes { step() }
                    stringLiteral(hashes: hashes)
                } else {
                    step()
                    tokens.append(SourceToken(kind: .punctuation, text: "#", line: l, column: c, offset: start, endOffset: i))
                }
            case UInt8(ascii: "'") where language == .objectiveC:
                step()
                while let x = peek(), x != UInt8(ascii: "'"), x != UInt8(ascii: "\n") {
                    if x == UInt8(ascii: "\\") { step() }
                    if peek() != nil { step() }
                }
                if peek() == UInt8(ascii: "'") { step() }
                tokens.append(SourceToken(kind: .literal, text: text(start, i), line: l, column: c, offset: start, endOffset: i))
            case UInt8(ascii: "`") where language == .swift:
                step()
                let s = i
                while let x = peek(), x != UInt8(ascii: "`"), x != UInt8(ascii: "\n") { step() }
                let name = text(s, i)
                if peek() == UInt8(ascii: "`") { step() }
                tokens.append(SourceToken(kind: .identifier, text: name, line: l, column: c, offset: start, endOffset: i))
            case let x where Self.isIdentifierStart(x):
                while let y = peek(), Self.isIdentifierByte(y) { step() }
                tokens.append(SourceToken(kind: .identifier, text: text(start, i), line: l, column: c, offset: start, endOffset: i))
            case let x where x >= 0x30 && x <= 0x39:
                while let y = peek(), Self.isIdentifierByte(y) || y == UInt8(ascii: ".") && (peek(1).map { $0 >= 0x30 && $0 <= 0x39 } ?? false) { step() }
                tokens.append(SourceToken(kind: .literal, text: text(start, i), line: l, column: c, offset: start, endOffset: i))
            default:
                if stopAtUnbalancedParen {
                    if b == UInt8(ascii: "(") { parens += 1 }
                    if b == UInt8(ascii: ")") {
                        if parens == 0 { step(); return }
                        parens -= 1
                    }
                }
                step()
                tokens.append(SourceToken(kind: .punctuation, text: String(UnicodeScalar(b)), line: l, column: c, offset: start, endOffset: i))
            }
        }
    }

    private mutating func blockComment() {
        step(); step()
        var depth = 1
        while let b = peek() {
            if b == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
                step(); step(); depth -= 1
                if depth == 0 { return }
            } else if language == .swift, b == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "*") {
                step(); step(); depth += 1
            } else {
                step()
            }
        }
    }

    /// A string literal starting at the opening quote (after any `#`s of a raw string). Content
    /// pieces between interpolations become one string token; interpolations are lexed as code.
    private mutating func stringLiteral(hashes: Int) {
        let multiline = language == .swift && peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"")
        let l = line, c = column, start = i
        for _ in 0..<(multiline ? 3 : 1) { step() }
        var content: [UInt8] = []
        var contentStart = i
        var contentEnd = i
        func closes(_ lexer: SourceLexer) -> Bool {
            let quotes = multiline ? 3 : 1
            for k in 0..<quotes where lexer.peek(k) != UInt8(ascii: "\"") { return false }
            for k in 0..<hashes where lexer.peek(quotes + k) != UInt8(ascii: "#") { return false }
            return true
        }
        while let b = peek() {
            if closes(self) {
                contentEnd = i
                for _ in 0..<((multiline ? 3 : 1) + hashes) { step() }
                break
            }
            if !multiline && b == UInt8(ascii: "\n") { contentEnd = i; break } // unterminated: stop at the line end
            if b == UInt8(ascii: "\\") && hashesFollow(hashes, from: 1) {
                let after = peek(1 + hashes)
                if language == .swift, after == UInt8(ascii: "(") {
                    contentEnd = i
                    tokens.append(SourceToken(kind: .string, text: String(decoding: content, as: UTF8.self), line: l, column: c, offset: contentStart, endOffset: contentEnd))
                    for _ in 0..<(2 + hashes) { step() }
                    lexCode(stopAtUnbalancedParen: true)
                    content = []
                    contentStart = i
                    continue
                }
                for _ in 0..<(1 + hashes) { step() }
                guard let e = peek() else { break }
                switch e {
                case UInt8(ascii: "n"): content.append(0x0A)
                case UInt8(ascii: "t"): content.append(0x09)
                case UInt8(ascii: "r"): content.append(0x0D)
                case UInt8(ascii: "0"): content.append(0x00)
                default: content.append(e)
                }
                step()
                continue
            }
            content.append(b)
            step()
        }
        _ = start
        if peek() == nil { contentEnd = i }
        tokens.append(SourceToken(kind: .string, text: String(decoding: content, as: UTF8.self), line: l, column: c, offset: contentStart, endOffset: contentEnd))
    }

    private func hashesFollow(_ hashes: Int, from k: Int) -> Bool {
        for h in 0..<hashes where peek(k + h) != UInt8(ascii: "#") { return false }
        return true
    }

    private func text(_ from: Int, _ to: Int) -> String { String(decoding: bytes[from..<to], as: UTF8.self) }
}
