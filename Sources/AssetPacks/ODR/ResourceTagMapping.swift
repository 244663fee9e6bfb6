import AssetPackFormat

/// Which asset packs hold the resources of an On-Demand Resources tag
/// (`Configuration.resourceTagMapping`).
///
/// `.convertedFromODR` (the default) follows `assetpack convert odr`, which makes one pack per
/// combination of tags that content carries and names it `AssetPackNaming.id(forTags:)`: the
/// sorted tags joined with `_`, characters outside `[A-Za-z0-9._-]` turned into `-` (`pack-` in
/// front of an ID that would not start with a letter or digit; the project's name in front when
/// two projects have the same combination). So content tagged only `T` is the pack `T`, and
/// content tagged `T` and `U` the pack `T_U`. As in ODR, where content with several tags comes
/// with any one of them, tag `T` needs every pack whose ID, split at `_`, has `T` (as the
/// converter writes it) as a part: `T`, `T_U`, `S_T`… This is exact for tags without `_` and
/// with different names after the character replacement; for other tags, or for packs not made
/// by the converter, give `.explicit` (tag → pack IDs), which is then the only source.
public struct ResourceTagMapping: Sendable, Equatable {
    /// Tag → the IDs of the packs that hold its resources; nil for the converter's naming.
    public var explicitMap: [String: Set<String>]?

    /// Tags name packs as `assetpack convert odr` named them (the default).
    public static let convertedFromODR = ResourceTagMapping(explicitMap: nil)
    /// Tag → the IDs of the packs that hold its resources, and nothing else: a tag missing from
    /// `map` is unknown.
    public static func explicit(_ map: [String: Set<String>]) -> ResourceTagMapping { ResourceTagMapping(explicitMap: map) }

    /// The packs, among `known` (the catalog's and the installed packs' IDs), that hold the
    /// resources of `tags`; a tag that no pack holds is an error naming it.
    func packIDs(forTags tags: Set<String>, among known: Set<String>) throws(AssetPackResourceRequestError) -> Set<String> {
        var out: Set<String> = []
        for tag in tags.sorted() {
            let ids = packIDs(forTag: tag, among: known)
            guard !ids.isEmpty else { throw .unknownTag(tag, explicitMapping: explicitMap != nil) }
            out.formUnion(ids)
        }
        return out
    }

    private func packIDs(forTag tag: String, among known: Set<String>) -> Set<String> {
        if let explicitMap { return explicitMap[tag] ?? [] }
        let named = AssetPackNaming.id(for: tag)
        // Inside a combination only the whole ID gets the `pack-` prefix.
        let part = named.hasPrefix("pack-") && !tag.hasPrefix("pack-") ? String(named.dropFirst(5)) : named
        return known.filter { id in id.split(separator: "_", omittingEmptySubsequences: false).contains { $0 == named || $0 == part } }
    }
}
