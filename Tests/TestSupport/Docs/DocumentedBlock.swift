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
        let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
        guard let start = text.range(of: "```\(language)\n"), let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex) else {
            throw TestSupportError("\(document) has no ```\(language) block")
        }
        return String(text[start.upperBound..<end.lowerBound])
    }
}
