import AssetPackFormat

/// Picks among localized variants by the user's preferred languages, as Apple resolves localized
/// packs: the exact tag first, then the same language in another region or script, for each
/// preferred language in order; then the app's primary language; then content in no language.
struct LanguageResolver: Sendable {
    var preferred: [String]
    var primary: String

    /// Rank of a candidate's language: lower is better; nil never matches.
    func rank(_ language: String?) -> Int {
        guard let language, let tag = LanguageTag(language) else { return 10_000 }
        for (i, p) in preferred.enumerated() {
            guard let want = LanguageTag(p) else { continue }
            if want == tag { return i * 2 }
            if want.language == tag.language { return i * 2 + 1 }
        }
        if let main = LanguageTag(primary) {
            if main == tag { return 5_000 }
            if main.language == tag.language { return 5_001 }
        }
        return 9_000
    }

    /// The best of `candidates` (by their languages); ties go to the first.
    func best<T>(_ candidates: [T], language: (T) -> String?) -> T? {
        candidates.min { rank(language($0)) < rank(language($1)) }
    }
}
