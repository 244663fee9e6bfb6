import Foundation

extension AssetPackManager {
    /// The file at `path` in the merged namespace of installed packs, memory-mapped. With
    /// `searchingInAssetPackWithID`, only that pack is searched. When several installed
    /// localized variants hold the path, the user's languages choose.
    ///
    /// Apple's `contents(at:searchingInAssetPackWithID:options:)`; there are no read options
    /// here (the file is always mapped).
    public func contents(at path: String, searchingInAssetPackWithID id: String? = nil) async throws -> Data {
        if let agent { return try await agent.contents(at: path, searchingInAssetPackWithID: id) }
        return try mergedNamespace.contents(at: path, inPackWithID: id, now: configuration.now())
    }

    /// An open read-only file descriptor for `path` in the merged namespace; the caller closes
    /// it. Apple's `descriptor(for:searchingInAssetPackWithID:)`.
    public func descriptor(for path: String, searchingInAssetPackWithID id: String? = nil) async throws -> Int32 {
        if let agent { return try await agent.connection.descriptor(for: path, searchingInAssetPackWithID: id) }
        return try mergedNamespace.descriptor(for: path, inPackWithID: id, now: configuration.now())
    }

    /// The file URL of `path` in the merged namespace. Apple's `url(for:)`, which takes no
    /// pack ID; here the search can be limited to one pack.
    public func url(for path: String, searchingInAssetPackWithID id: String? = nil) async throws -> URL {
        if let agent { return try await agent.connection.url(for: path, searchingInAssetPackWithID: id) }
        return URL(fileURLWithPath: try mergedNamespace.file(at: path, inPackWithID: id, now: configuration.now()))
    }

    /// Every path in the merged namespace with the installed packs that hold it, in path order.
    /// Not in Apple's API.
    public func namespace() async throws -> [(path: String, packIDs: [String])] {
        if let agent { return try await agent.namespace() }
        return try mergedNamespace.entries()
    }

    /// `namespace()` as the text `assetpack ls` prints: a line a path, the path, a tab and the
    /// pack IDs separated by commas (IDs hold no comma; paths no tab or line feed).
    package func namespaceListing() throws -> [UInt8] {
        try mergedNamespace.listing()
    }
}
