import AssetPackFormat

/// Picks among localized variants by the user's preferred languages, as Apple resolves localized
/// packs: for each preferred language in order, the exact tag first, then a more general tag of
/// it (`fr` for `fr-BE`, `zh-Hant` before `zh` for `zh-Hant-TW`), then the same language in
/// another region or script; then the app's primary language likewise; then content in no
/// language.
struct LanguageResolver: Sendable {
    var preferred: [String]
    var primary: String

    /// Rank of a candidate's language: lower is better; nil never matches.
    func rank(_ language: String?) -> Int {
        guard let language, let tag = LanguageTag(language) else { return 10_000 }
        for (i, p) in preferred.enumerated() {
            guard let want = LanguageTag(p), let closeness = Self.closeness(of: tag, to: want) else { continue }
            return i * 4 + closeness
        }
        if let main = LanguageTag(primary), let closeness = Self.closeness(of: tag, to: main) { return 5_000 + closeness }
        return 9_000
    }

    /// 0 for the same tag, 1 for a more general tag with a script, 2 for the bare language,
    /// 3 for the same language in another region or script; nil for another language.
    static func closeness(of tag: LanguageTag, to want: LanguageTag) -> Int? {
        guard tag.language == want.language else { return nil }
        if tag == want { return 0 }
        let general = (tag.script == nil || tag.script == want.script) && (tag.region == nil || tag.region == want.region)
        guard general else { return 3 }
        return tag.script != nil || tag.region != nil ? 1 : 2
    }

    /// The best of `candidates` (by their languages); ties go to the first.
    func best<T>(_ candidates: [T], language: (T) -> String?) -> T? {
        candidates.min { rank(language($0)) < rank(language($1)) }
    }
}
