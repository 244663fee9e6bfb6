import Foundation

/// A configuration the docs show, read from the docs themselves, so that a test runs exactly
/// what a reader copies.
public enum DocumentedBlock {
    /// The package's root folder (above Tests/).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The body of the first fenced block of `language` (```` ```vcl ````) in `document`, a path
    /// relative to the package root (`docs/HOSTING.md`).
    public static func first(_ language: String, in document: String) throws -> String {
        try first(language, in: document, after: nil)
    }

    /// The body of the first fenced block of `language` after the line `heading` (`## Apple
    /// devices`) in `document`: for a document that shows more than one block of a language.
    public static func first(_ language: String, in document: String, after heading: String?) throws -> String {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
        var from = text.startIndex
        if let heading {
            guard let found = text.range(of: "\n" + heading + "\n") else { throw TestSupportError("\(document) has no line \"\(heading)\"") }
            from = found.upperBound
        }
        guard let start = text.range(of: "```\(language)\n", range: from..<text.endIndex),
              let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex) else {
            throw TestSupportError("\(document) has no ```\(language) block\(heading.map { " after \"\($0)\"" } ?? "")")
        }
        return String(text[start.upperBound..<end.lowerBound])
    }
}
