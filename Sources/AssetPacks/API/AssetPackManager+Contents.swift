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

    /// `contents(at:searchingInAssetPackWithID:)` with a choice of access: `.installed` is the
    /// call without it; `.progressive` also reads a file of a pack that is not installed yet or
    /// is downloading (pack `id`, or, without one, the packs being downloaded), fetching that
    /// file's chunks first, verified, and placing the complete file before it returns;
    /// `.progressive(range:)` returns only the bytes of the range (cut at the file's end) and
    /// fetches only the chunks that hold them. Not in Apple's API.
    public func contents(at path: String, searchingInAssetPackWithID id: String? = nil, access: AssetReadAccess) async throws -> Data {
        if let agent { return try await agent.connection.contents(at: path, searchingInAssetPackWithID: id, access: access) }
        guard access.isProgressive else { return try await contents(at: path, searchingInAssetPackWithID: id) }
        return try await progressiveBytes(path, inPackWithID: id, range: access.range)
    }

    /// `descriptor(for:searchingInAssetPackWithID:)` with a choice of access (see
    /// `contents(at:searchingInAssetPackWithID:access:)`). With a range, unless the whole file
    /// is here already, the descriptor is of a private copy that holds the range's bytes at
    /// their offsets (the rest reads as zeros). Not in Apple's API.
    public func descriptor(for path: String, searchingInAssetPackWithID id: String? = nil, access: AssetReadAccess) async throws -> Int32 {
        if let agent { return try await agent.connection.descriptor(for: path, searchingInAssetPackWithID: id, access: access) }
        guard access.isProgressive else { return try await descriptor(for: path, searchingInAssetPackWithID: id) }
        return try await progressiveFile(path, inPackWithID: id, range: access.range).descriptor
    }

    /// `url(for:searchingInAssetPackWithID:)` with a choice of access (see
    /// `contents(at:searchingInAssetPackWithID:access:)`). A URL names a whole file, so a range
    /// is ignored here. A file read progressively lives in the pack's staging folder until
    /// the pack is installed (then the same file is in the installed folder; ask again) or
    /// removed. Not in Apple's API.
    public func url(for path: String, searchingInAssetPackWithID id: String? = nil, access: AssetReadAccess) async throws -> URL {
        if let agent { return try await agent.connection.url(for: path, searchingInAssetPackWithID: id, access: access) }
        guard access.isProgressive else { return try await url(for: path, searchingInAssetPackWithID: id) }
        let file = try await progressiveFile(path, inPackWithID: id, range: nil)
        close(file.descriptor)
        guard let placed = file.placed else {
            throw AssetPackManagerError.storage("\(path) was read, but could not be kept in \(layout.root) (the pack was removed or its version replaced meanwhile)")
        }
        return URL(fileURLWithPath: layout.absolute(placed))
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
