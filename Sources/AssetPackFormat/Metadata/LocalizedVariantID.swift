/// How pack IDs name localized variants of one logical pack: `Voices.en` and `Voices.de`,
/// `Intro-en-US` and `Intro-fr` share the base ID once the language suffix (after `.`, `-` or
/// `_`) is removed. Publishing lints variant groups with it; the client picks one variant per
/// group by the user's languages.
public enum LocalizedVariantID {
    /// The ID without its language suffix, or nil when the ID does not end in one.
    public static func baseID(_ id: String, language: String) -> String? {
        let lower = id.lowercased()
        var candidates = [language.lowercased(), language.lowercased().replacingOccurrences(of: "-", with: "_")]
        if let tag = LanguageTag(language) { candidates.append(tag.language) }
        for suffix in candidates {
            for separator in [".", "-", "_"] where lower.hasSuffix(separator + suffix) {
                let base = String(id.dropLast(suffix.count + 1))
                if !base.isEmpty { return base }
            }
        }
        return nil
    }
}
