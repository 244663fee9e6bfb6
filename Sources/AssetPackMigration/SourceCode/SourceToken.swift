/// A lexical token of Swift or Objective-C source, enough to tell code from comments and strings.
public struct SourceToken: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A name or keyword (`NSBundleResourceRequest`, `let`, `await`).
        case identifier
        /// A string literal; `text` holds its contents with escapes decoded.
        case string
        /// A comment; `text` holds it whole, delimiters included.
        case comment
        /// A number or character literal (contents not needed).
        case literal
        /// One punctuation character (`(`, `:`, `@`, …).
        case punctuation
    }

    public var kind: Kind
    public var text: String
    public var line: Int
    public var column: Int
    /// The byte range the token covers in the file (for strings: the raw contents between quotes
    /// or interpolations), so that words inside comments and strings can be located exactly.
    public var offset: Int
    public var endOffset: Int

    public init(kind: Kind, text: String, line: Int, column: Int, offset: Int, endOffset: Int) {
        self.kind = kind
        self.text = text
        self.line = line
        self.column = column
        self.offset = offset
        self.endOffset = endOffset
    }
}

/// The languages the scanner reads, told apart by file extension.
public enum SourceLanguage: String, Sendable, Codable {
    case swift, objectiveC

    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "swift": self = .swift
        case "m", "mm", "h", "hh": self = .objectiveC
        default: return nil
        }
    }
}
