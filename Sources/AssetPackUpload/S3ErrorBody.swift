import Foundation

/// The `<Code>` and `<Message>` of an S3 error response
/// (`<Error><Code>NoSuchBucket</Code><Message>…</Message>…</Error>`). S3 error bodies are flat
/// and small, so the two elements are found by name rather than with a full XML parser; the
/// five predefined entities are decoded.
struct S3ErrorBody: Equatable {
    var code: String?
    var message: String?

    init(code: String?, message: String?) {
        self.code = code
        self.message = message
    }

    init(_ body: [UInt8]) {
        let text = String(decoding: body, as: UTF8.self)
        code = Self.element("Code", in: text)
        message = Self.element("Message", in: text)
    }

    private static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"),
              let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex) else { return nil }
        let value = text[open.upperBound..<close.lowerBound]
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
        return value.isEmpty ? nil : value
    }
}
