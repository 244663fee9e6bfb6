import Foundation

extension AssetPackManager {
    /// The file at `path` in the merged namespace of installed packs. With
    /// `searchingInAssetPackWithID`, only that pack is searched. When several installed
    /// localized variants hold the path, the user's languages (and `resolvedLanguage`) choose.
    /// `options`: `.mappedIfSafe` (the default) or `.alwaysMapped` map the file; without either
    /// it is read into memory (Apple's `contents(at:searchingInAssetPackWithID:options:)`).
    /// `fileNotFound(at:)` when no installed pack holds it.
    public nonisolated func contents(at path: FilePath, searchingInAssetPackWithID id: String? = nil,
                                     options: Data.ReadingOptions = .mappedIfSafe) throws -> Data {
        try read(path, id: id, language: nil, options: options)
    }

    /// The file at `path` among the installed packs localized for `language` (or another
    /// region or script of it); other packs are not searched (Apple's
    /// `contents(at:asLocalizedFor:options:)`).
    public nonisolated func contents(at path: FilePath, asLocalizedFor language: Locale.Language,
                                     options: Data.ReadingOptions = .mappedIfSafe) throws -> Data {
        try read(path, id: nil, language: LanguageChoice.tag(of: language), options: options)
    }

    /// An open read-only descriptor for `path` in the merged namespace; the caller closes it
    /// (Apple's `descriptor(for:searchingInAssetPackWithID:)`).
    public nonisolated func descriptor(for path: FilePath, searchingInAssetPackWithID id: String? = nil) throws -> FileDescriptor {
        FileDescriptor(rawValue: try open(path, id: id, language: nil))
    }

    /// An open read-only descriptor for `path` among the installed packs localized for
    /// `language`; the caller closes it (Apple's `descriptor(for:asLocalizedFor:)`).
    public nonisolated func descriptor(for path: FilePath, asLocalizedFor language: Locale.Language) throws -> FileDescriptor {
        FileDescriptor(rawValue: try open(path, id: nil, language: LanguageChoice.tag(of: language)))
    }

    /// The file URL of `path` in the merged namespace (Apple's `url(for:)`). Unlike Apple's,
    /// which returns a URL whether or not anything is there, this one throws `fileNotFound` when
    /// no installed pack holds the path, and checks that the file opens beneath the root with
    /// no link followed.
    public nonisolated func url(for path: FilePath) throws -> URL {
        try url(for: path, searchingInAssetPackWithID: nil)
    }

    /// `url(for:)` limited to one pack. Not in Apple's API.
    public nonisolated func url(for path: FilePath, searchingInAssetPackWithID id: String?) throws -> URL {
        try locate(path, id: id, language: nil)
    }

    /// The file URL of `path` among the installed packs localized for `language` (Apple's
    /// `url(for:asLocalizedFor:)`).
    public nonisolated func url(for path: FilePath, asLocalizedFor language: Locale.Language) throws -> URL {
        try locate(path, id: nil, language: LanguageChoice.tag(of: language))
    }

    /// `contents(at:searchingInAssetPackWithID:)` with a choice of access: `.installed` is the
    /// call without it; `.progressive` also reads a file of a pack that is not installed yet or
    /// is downloading (pack `id`, or, without one, the packs being downloaded), fetching that
    /// file's chunks first, verified, and placing the complete file before it returns;
    /// `.progressive(range:)` returns only the bytes of the range (cut at the file's end) and
    /// fetches only the chunks that hold them. Not in Apple's API.
    public func contents(at filePath: FilePath, searchingInAssetPackWithID id: String? = nil, access: AssetReadAccess) async throws -> Data {
        try requireConfigured()
        let path = filePath.string
        if let agent { return try await agent.connection.contents(at: path, searchingInAssetPackWithID: id, access: access) }
        guard access.isProgressive else { return try contents(at: filePath, searchingInAssetPackWithID: id) }
        return try await progressiveBytes(path, inPackWithID: id, range: access.range)
    }

    /// `descriptor(for:searchingInAssetPackWithID:)` with a choice of access (see
    /// `contents(at:searchingInAssetPackWithID:access:)`). With a range, unless the whole file
    /// is here already, the descriptor is of a private copy that holds the range's bytes at
    /// their offsets (the rest reads as zeros). Not in Apple's API.
    public func descriptor(for filePath: FilePath, searchingInAssetPackWithID id: String? = nil, access: AssetReadAccess) async throws -> FileDescriptor {
        try requireConfigured()
        let path = filePath.string
        if let agent { return FileDescriptor(rawValue: try await agent.connection.descriptor(for: path, searchingInAssetPackWithID: id, access: access)) }
        guard access.isProgressive else { return try descriptor(for: filePath, searchingInAssetPackWithID: id) }
        return FileDescriptor(rawValue: try await progressiveFile(path, inPackWithID: id, range: access.range).descriptor)
    }

    /// `url(for:searchingInAssetPackWithID:)` with a choice of access (see
    /// `contents(at:searchingInAssetPackWithID:access:)`). A URL names a whole file, so a range
    /// is ignored here. A file read progressively lives in the pack's staging folder until
    /// the pack is installed (then the same file is in the installed folder; ask again) or
    /// removed. Not in Apple's API.
    public func url(for filePath: FilePath, searchingInAssetPackWithID id: String? = nil, access: AssetReadAccess) async throws -> URL {
        try requireConfigured()
        let path = filePath.string
        if let agent { return try await agent.connection.url(for: path, searchingInAssetPackWithID: id, access: access) }
        guard access.isProgressive else { return try url(for: filePath, searchingInAssetPackWithID: id) }
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
        try requireConfigured()
        if let agent { return try await agent.namespace() }
        return try mergedNamespace.entries()
    }

    /// `namespace()` as the text `assetpack ls` prints: a line a path, the path, a tab and the
    /// pack IDs separated by commas (IDs hold no comma; paths no tab or line feed).
    package func namespaceListing() throws -> [UInt8] {
        try mergedNamespace.listing()
    }

    /// `namespaceListing()` handed to `write` in pieces of whole lines (about 1 MiB each) as it
    /// is read from the store, without the whole text in memory.
    package func namespaceListing(_ write: @Sendable (UnsafeRawBufferPointer) throws -> Void) throws {
        try mergedNamespace.listing(write)
    }

    // The reads, from any thread: in process through the merged namespace, through the agent
    // by asking it (without leaving the thread) where the file is.

    private nonisolated func read(_ path: FilePath, id: String?, language: String?, options: Data.ReadingOptions) throws -> Data {
        let mapped = options.contains(.mappedIfSafe) || options.contains(.alwaysMapped)
        if agent != nil {
            let url = try locate(path, id: id, language: language)
            do { return try Data(contentsOf: url, options: options) } catch {
                throw AssetPackManagerError.storage("cannot read \(url.path): \(error.localizedDescription)")
            }
        }
        let namespace = try inProcessNamespace()
        if mapped { return try namespace.contents(at: path.string, inPackWithID: id, language: language, now: configuration.now()) }
        let fd = try namespace.descriptor(for: path.string, inPackWithID: id, language: language, now: configuration.now())
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do { return try handle.readToEnd() ?? Data() } catch {
            throw AssetPackManagerError.storage("cannot read \(path.string): \(error.localizedDescription)")
        }
    }

    private nonisolated func open(_ path: FilePath, id: String?, language: String?) throws -> Int32 {
        if agent != nil {
            let file = try locate(path, id: id, language: language).path
            let fd = Foundation.open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw AssetPackManagerError.storage("cannot open \(file): \(String(cString: strerror(errno)))") }
            return fd
        }
        return try inProcessNamespace().descriptor(for: path.string, inPackWithID: id, language: language, now: configuration.now())
    }

    private nonisolated func locate(_ path: FilePath, id: String?, language: String?) throws -> URL {
        if let agent { return try agent.connection.urlNow(for: path.string, searchingInAssetPackWithID: id, language: language) }
        return URL(fileURLWithPath: try inProcessNamespace().file(at: path.string, inPackWithID: id, language: language, now: configuration.now()))
    }

    private nonisolated func inProcessNamespace() throws -> MergedNamespace {
        try requireConfigured()
        guard let local else { throw AssetPackManagerError.invalidConfiguration("the manager has no storage root open") }
        return local.mergedNamespace
    }
}
