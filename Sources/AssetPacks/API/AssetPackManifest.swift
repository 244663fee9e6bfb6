import AssetPackFormat
import Foundation

/// The packs the repository offers, as the catalog lists them, with the language choices over
/// them (Apple's `AssetPackManifest`, which `AssetPackManager.manifest` returns).
///
/// Localized variants are packs of the same content that differ by `language`, their IDs
/// differing only by a suffix that names it (`Voices-en`, `Voices-fr`).
public struct AssetPackManifest: Sendable {
    /// Every pack in the catalog.
    public let assetPacks: Set<AssetPack>
    let resolver: LanguageResolver

    init(assetPacks: Set<AssetPack>, resolver: LanguageResolver) {
        self.assetPacks = assetPacks
        self.resolver = resolver
    }

    /// The pack with this ID; nil when the catalog has none.
    public func assetPack(withID id: String) -> AssetPack? {
        assetPacks.first { $0.id == id }
    }

    /// Of each set of localized variants, the one that best matches the user's preferred
    /// languages (and `AssetPackManager.resolvedLanguage` when set), falling back to the app's
    /// primary language. Packs without a language are not included (Apple's documentation does
    /// not say whether its own includes them).
    public var localizedAssetPacks: Set<AssetPack> { Self.best(of: assetPacks, by: resolver) }

    /// Of each set of localized variants, the one that best matches `language` (the same
    /// language in another region or script, then the app's primary language, when there is
    /// no exact match).
    public func localizedAssetPacks(for language: Locale.Language) -> Set<AssetPack> {
        Self.best(of: assetPacks, by: LanguageResolver(preferred: [LanguageChoice.tag(of: language)], primary: resolver.primary))
    }

    /// The app's primary language: the last fallback for localized packs
    /// (`Configuration.primaryLanguage`; Apple's is set in App Store Connect).
    public var primaryLanguage: Locale.Language? {
        resolver.primary.isEmpty ? nil : Locale.Language(identifier: resolver.primary)
    }

    /// The languages the catalog's localized packs are localized for, each once, in tag order.
    public var availableLanguages: [Locale.Language] {
        Set(assetPacks.compactMap(\.languageTag)).sorted().map { Locale.Language(identifier: $0) }
    }

    /// The language of the catalog's localized packs that best matches the user's preferred
    /// languages (or the app's choice); nil when no localized pack matches them or the primary
    /// language.
    public var resolvedLanguage: Locale.Language? {
        Self.resolvedTag(Set(assetPacks.compactMap(\.languageTag)), by: resolver).map { Locale.Language(identifier: $0) }
    }

    /// Of each set of localized variants among `packs`, the best by `resolver`.
    static func best(of packs: some Sequence<AssetPack>, by resolver: LanguageResolver) -> Set<AssetPack> {
        var groups: [String: [AssetPack]] = [:]
        for p in packs {
            guard let tag = p.languageTag else { continue }
            groups[LocalizedVariantID.baseID(p.id, language: tag) ?? p.id, default: []].append(p)
        }
        return Set(groups.values.compactMap { variants in resolver.best(variants.sorted { $0.id < $1.id }, language: \.languageTag) })
    }

    /// The best of `tags` by `resolver`; nil when none matches a preferred or the primary language.
    static func resolvedTag(_ tags: Set<String>, by resolver: LanguageResolver) -> String? {
        guard let best = resolver.best(tags.sorted(), language: { $0 }), resolver.rank(best) < 9_000 else { return nil }
        return best
    }
}
