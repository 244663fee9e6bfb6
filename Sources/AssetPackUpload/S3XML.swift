import Foundation

/// The little XML that S3's answers and requests need. S3's response bodies are flat and
/// predictable (`<Error><Code>…</Code>…</Error>`, `<InitiateMultipartUploadResult>…<UploadId>…`),
/// so elements are found by name rather than with a full XML parser; the five predefined
/// entities are decoded, and escaped in what is sent.
enum S3XML {
    /// The text of the first `<name>…</name>` in `text`, decoded; nil when absent or empty.
    static func element(_ name: String, in text: Substring) -> String? {
        elements(name, in: text).first.map(decoded).flatMap { $0.isEmpty ? nil : $0 }
    }

    static func element(_ name: String, in body: [UInt8]) -> String? {
        element(name, in: Substring(String(decoding: body, as: UTF8.self)))
    }

    /// The raw contents of every `<name>…</name>` in `text`, in order.
    static func elements(_ name: String, in text: Substring) -> [Substring] {
        var found: [Substring] = []
        var rest = text
        while let open = rest.range(of: "<\(name)>"),
              let close = rest.range(of: "</\(name)>", range: open.upperBound..<rest.endIndex) {
            found.append(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return found
    }

    static func decoded(_ text: Substring) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// Whether `body` is an S3 error document (`<Error>` at the top), which S3 may send with a
    /// 200 status for a request that failed after the headers went out (CompleteMultipartUpload).
    static func isErrorDocument(_ body: [UInt8]) -> Bool {
        var text = Substring(String(decoding: body, as: UTF8.self)).drop { $0.isWhitespace }
        if text.hasPrefix("<?xml"), let end = text.range(of: "?>") { text = text[end.upperBound...].drop { $0.isWhitespace } }
        return text.hasPrefix("<Error>")
    }
}
