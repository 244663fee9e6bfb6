import AssetPackFormat

extension LanguageResolver {
    /// Picks, among localized variants of the same content (IDs that differ only by a suffix
    /// naming their language), the one that best fits the user's languages; packs without a
    /// language are all kept.
    func chooseVariants(_ packs: [CatalogPack]) -> [CatalogPack] {
        var groups: [String: [CatalogPack]] = [:]
        var out: [CatalogPack] = []
        for p in packs {
            guard let language = p.language else { out.append(p); continue }
            groups[LocalizedVariantID.baseID(p.id, language: language) ?? p.id, default: []].append(p)
        }
        for (_, variants) in groups.sorted(by: { $0.key < $1.key }) {
            if let best = best(variants, language: { $0.language }) { out.append(best) }
        }
        return out
    }
}
