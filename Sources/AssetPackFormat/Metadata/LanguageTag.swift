/// The BCP 47 subset that manifests accept: a language (2–3 letters), an optional script
/// (4 letters) and an optional region (2 letters or 3 digits). Variants, extensions and private
/// use subtags are refused.
public struct LanguageTag: Sendable, Hashable, CustomStringConvertible {
    public var language: String
    public var script: String?
    public var region: String?

    /// Parses `text`, case-insensitively; nil when it is not in the accepted subset.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy(\.isASCIILetterChar) else { return nil }
        language = first.lowercased()
        var rest = parts.dropFirst()
        if let s = rest.first, s.count == 4, s.allSatisfy(\.isASCIILetterChar) {
            script = s.prefix(1).uppercased() + s.dropFirst().lowercased()
            rest = rest.dropFirst()
        }
        if let r = rest.first,
           (r.count == 2 && r.allSatisfy(\.isASCIILetterChar)) || (r.count == 3 && r.allSatisfy(\.isASCIIDigitChar)) {
            region = r.uppercased()
            rest = rest.dropFirst()
        }
        guard rest.isEmpty else { return nil }
    }

    /// The tag in canonical case: `en`, `zh-Hant-TW`, `es-419`.
    public var description: String {
        [language, script, region].compactMap { $0 }.joined(separator: "-")
    }
}

extension Character {
    var isASCIILetterChar: Bool { isASCII && isLetter }
    var isASCIIDigitChar: Bool { isASCII && isNumber }
}
