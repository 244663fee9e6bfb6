/// Everything the audit learned about tags before analysis: definitions (with the content they
/// tag), requests from code, the install-policy settings, and each project's `KnownAssetTags`.
struct TagInventory {
    /// A file or folder carrying tags in one project.
    struct Content: Hashable {
        var project: String?
        var path: String
    }

    struct Definition {
        var tag: String
        var at: FileLine
        var content: Content?
    }

    var definitions: [Definition] = []
    var requests: [(tag: String, at: FileLine, column: Int)] = []
    /// Tag → where an ON_DEMAND_RESOURCES_INITIAL_INSTALL_TAGS / _PREFETCH_ORDER setting names it.
    var initialInstall: [String: FileLine] = [:]
    var prefetch: [String: FileLine] = [:]
    /// Project (relative .xcodeproj path) → its KnownAssetTags with their pbxproj location.
    var known: [String: [(tag: String, at: FileLine)]] = [:]
    /// Content → the platforms of the targets that build it.
    var platforms: [Content: Set<BuildPlatform>] = [:]
    /// Project → the platforms of its targets that enable ODR (a fallback for content without a target).
    var projectPlatforms: [String: Set<BuildPlatform>] = [:]
}
