import Foundation

/// The languages a manager resolves localized packs by: the configured ones, with the language
/// the app chose (`AssetPackManager.resolvedLanguage`) first while it is set. Read and set from
/// any thread.
final class LanguageChoice: @unchecked Sendable {
    private let lock = NSLock()
    private let base: LanguageResolver
    private var chosen: String?

    init(_ base: LanguageResolver) { self.base = base }

    /// The language the app set, as a BCP 47 tag; nil for the user's preferences.
    var override: String? {
        get { lock.withLock { chosen } }
        set { lock.withLock { chosen = newValue } }
    }

    /// The resolver: the app's choice (when set) before the configured languages.
    var resolver: LanguageResolver {
        let chosen = override
        guard let chosen else { return base }
        return LanguageResolver(preferred: [chosen] + base.preferred, primary: base.primary)
    }

    /// A resolver that matches only `tag` (and its relatives: another region or script of the
    /// same language), with no fallback: for reads `asLocalizedFor:` a language.
    static func only(_ tag: String) -> LanguageResolver { LanguageResolver(preferred: [tag], primary: "") }

    /// The BCP 47 tag of `language`: its language code, its script when it is not the one the
    /// language and region imply, and its region (`en-GB`, `zh-Hant`, `sr-Latn`).
    static func tag(of language: Locale.Language) -> String {
        guard let code = language.languageCode?.identifier else { return language.minimalIdentifier }
        let region = language.region?.identifier
        let plain = Locale.Language(identifier: ([code] + (region.map { [$0] } ?? [])).joined(separator: "-"))
        var parts = [code]
        if let script = language.script?.identifier, script != plain.script?.identifier { parts.append(script) }
        if let region { parts.append(region) }
        return parts.joined(separator: "-")
    }
}
