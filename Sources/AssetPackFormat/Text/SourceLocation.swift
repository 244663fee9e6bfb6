/// A position in a text file: 1-based line and 1-based column, columns counted in UTF-8 bytes.
/// `ByteScanner` defines what ends a line (LF, CRLF, lone CR) and where line 1 starts (after a BOM).
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) { self.line = line; self.column = column }
    public var description: String { "\(line):\(column)" }
}
