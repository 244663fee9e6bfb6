import AssetPackFormat

/// Why an `AssetPackResourceRequest` could not resolve its tags.
public enum AssetPackResourceRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No pack holds resources with this tag (tags are case-sensitive).
    case unknownTag(String, explicitMapping: Bool)

    public var description: String {
        switch self {
        case let .unknownTag(tag, explicit):
            if explicit { return "tag \"\(tag)\" is not in Configuration.resourceTagMapping" }
            return "no asset pack holds resources tagged \"\(tag)\": looked for packs named as `assetpack convert odr` names them (\"\(AssetPackNaming.id(for: tag))\" or a combination such as \"\(AssetPackNaming.id(for: tag))_…\") in the catalog and among installed packs; tags are case-sensitive, and other layouts need Configuration.resourceTagMapping = .explicit(…)"
        }
    }
}
