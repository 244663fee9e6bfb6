/// A cursor over the UTF-8 bytes of a text file: the one reader under every parser of text
/// formats (`JSONParser`, the OpenStep property-list parser, the KeyValues parser and the
/// Swift/Objective-C source lexer), so that all of them count positions and treat a BOM alike.
///
/// - Position: `offset` indexes `bytes`; `location` is its 1-based line and column, the column
///   counted in UTF-8 bytes.
/// - Line breaks: LF, CRLF and a lone CR each end one line. A CRLF pair counts once, at its LF,
///   so the CR stands at the end of the line it ends, as an LF alone would.
/// - Byte-order mark: a UTF-8 BOM (`EF BB BF`) at the very start is skipped, and line 1's
///   columns count from the byte after it. Anywhere else those bytes are ordinary content.
public struct ByteScanner: Sendable {
    /// The UTF-8 byte-order mark.
    public static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    public let bytes: [UInt8]
    /// The index in `bytes` of the next byte to read.
    public private(set) var offset: Int
    /// The 1-based line of `offset`.
    public private(set) var line = 1
    private var lineStart: Int

    /// A scanner at the start of `bytes`, past a leading byte-order mark if there is one.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        let start = bytes.starts(with: Self.byteOrderMark) ? Self.byteOrderMark.count : 0
        offset = start
        lineStart = start
    }

    public var isAtEnd: Bool { offset >= bytes.count }

    /// The 1-based column of `offset`, in bytes.
    public var column: Int { offset - lineStart + 1 }

    public var location: SourceLocation { SourceLocation(line: line, column: column) }

    /// The byte `distance` places ahead (0: the next one to read), or nil past the end.
    public func peek(_ distance: Int = 0) -> UInt8? {
        let i = offset + distance
        return i < bytes.count ? bytes[i] : nil
    }

    /// Whether the next byte is `byte`.
    public func next(is byte: UInt8) -> Bool { peek() == byte }

    /// Whether the bytes ahead spell `word`.
    public func next(are word: some Collection<UInt8>) -> Bool {
        bytes.count - offset >= word.count && bytes[offset..<offset + word.count].elementsEqual(word)
    }

    /// Steps over one byte, counting line breaks. Does nothing at the end.
    public mutating func advance() {
        guard offset < bytes.count else { return }
        let b = bytes[offset]
        offset += 1
        if b == 0x0A || (b == 0x0D && peek() != 0x0A) {
            line += 1
            lineStart = offset
        }
    }

    /// Steps over `count` bytes (fewer at the end).
    public mutating func advance(by count: Int) {
        for _ in 0..<count { advance() }
    }

    /// Steps over bytes while `accept` holds.
    public mutating func advance(while accept: (UInt8) -> Bool) {
        while let b = peek(), accept(b) { advance() }
    }

    /// Steps over `byte` if it is next; says whether it did.
    public mutating func match(_ byte: UInt8) -> Bool {
        guard next(is: byte) else { return false }
        advance()
        return true
    }

    /// Steps over `word` if it is next; says whether it did.
    public mutating func match(_ word: some Collection<UInt8>) -> Bool {
        guard next(are: word) else { return false }
        advance(by: word.count)
        return true
    }

    /// Steps to the next line break (not over it), or to the end.
    public mutating func advanceToLineBreak() {
        advance { !Self.isLineBreak($0) }
    }

    /// LF or CR: the bytes that end a line (alone or as CRLF).
    public static func isLineBreak(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }

    /// The value of a hex digit (`0-9`, `a-f`, `A-F`), or nil for any other byte.
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The bytes from `start` to `end` (default: the current offset) as text.
    public func text(from start: Int, to end: Int? = nil) -> String {
        String(decoding: bytes[start..<(end ?? offset)], as: UTF8.self)
    }

    /// The next byte for an error message: `'x'` when printable ASCII, `byte 0x0D` otherwise,
    /// `end of file` past the end.
    public var describeNext: String {
        guard let b = peek() else { return "end of file" }
        if (0x21...0x7E).contains(b) { return "'\(Character(Unicode.Scalar(b)))'" }
        let hex = String(b, radix: 16, uppercase: true)
        return "byte 0x\(hex.count < 2 ? "0" + hex : hex)"
    }

    /// A syntax error at `location` (default: here).
    public func error(_ message: String, at location: SourceLocation? = nil) -> SyntaxError {
        SyntaxError(at: location ?? self.location, message)
    }
}
