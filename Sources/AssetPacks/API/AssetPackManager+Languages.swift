import AssetPackFormat
import Foundation

extension AssetPackManager {
    /// The catalog's packs with the language choices over them (Apple's `manifest`), the
    /// catalog fetched again when the one held is older than `configuration.catalogMaxAge`.
    public var manifest: AssetPackManifest {
        get async throws { AssetPackManifest(assetPacks: try await catalogPacks, resolver: languages) }
    }

    /// The language localized packs resolve to (Apple's `resolvedLanguage`). Set it to choose
    /// one over the user's preferences (nil goes back to them); setting it downloads and removes
    /// nothing: `reconcilePreferredLanguages()` does. Read, it is the language set, else the
    /// language of the catalog's localized packs (the one last fetched, offline) that best
    /// matches the user's preferences; nil when none does.
    public nonisolated var resolvedLanguage: Locale.Language? {
        get {
            if let chosen = languageChoice.override { return Locale.Language(identifier: chosen) }
            return AssetPackManifest.resolvedTag(Set(knownPacksNow().compactMap(\.languageTag)), by: languages)
                .map { Locale.Language(identifier: $0) }
        }
        set { languageChoice.override = newValue.map(LanguageChoice.tag(of:)) }
    }

    /// The languages of the localized packs installed now, each once, in tag order (Apple's
    /// `locallyAvailableLanguages`).
    public var locallyAvailableLanguages: [Locale.Language] {
        get async {
            guard unavailable == nil else { return [] }
            let tags: [String]
            if let agent {
                tags = ((try? await agent.connection.allAssetPacks()) ?? [])
                    .filter { $0.assetPackStatus.contains(.downloaded) }.compactMap(\.language)
            } else {
                tags = ((try? store.installedPacks()) ?? []).compactMap(\.language)
            }
            return Set(tags).sorted().map { Locale.Language(identifier: $0) }
        }
    }

    /// Makes the localized packs the current languages call for available (Apple's
    /// `reconcilePreferredLanguages()`): for every set of localized variants of which one is
    /// installed, or whose download policy is essential or prefetch, the variant that best
    /// matches `resolvedLanguage` (or the user's preferences) is downloaded, and the call
    /// returns once they are installed; a partial failure throws `LocalAvailabilityError`.
    /// Unlike Apple's, it removes no variant: it cannot tell one the system downloaded from
    /// one the app asked for, and Apple keeps the latter.
    public func reconcilePreferredLanguages() async throws {
        let manifest = try await manifest
        let installed = Set(manifest.assetPacks.filter { assetPackIsAvailableLocally(withID: $0.id) }.compactMap { p in
            p.languageTag.map { LocalizedVariantID.baseID(p.id, language: $0) ?? p.id }
        })
        let wanted = manifest.localizedAssetPacks.filter { p in
            let group = p.languageTag.map { LocalizedVariantID.baseID(p.id, language: $0) ?? p.id } ?? p.id
            return installed.contains(group) || p.downloadPolicy.name != "onDemand"
        }
        try await ensureLocalAvailability(of: wanted, requireLatestVersions: false)
    }

    /// The packs the manager knows of without waiting: the catalog last accepted (in process)
    /// or the agent's.
    private nonisolated func knownPacksNow() -> [AssetPack] {
        if let agent { return ((try? agent.connection.allAssetPacksNow()) ?? []).map(\.assetPack) }
        guard let local, let catalog = try? local.catalogClient.cached(now: configuration.now(), allowExpired: true) else { return [] }
        return catalog.packs.map(AssetPack.init)
    }
}
