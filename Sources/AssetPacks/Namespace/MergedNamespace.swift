import AssetPackFormat
import Foundation

/// The merged namespace of installed packs: every installed pack's files at their paths in the
/// pack, as one tree. A path several packs hold (localized variants) resolves to the variant
/// the user's languages prefer; a lookup marks the pack used (for the storage budget's
/// least-recently-used order). `AssetPackManager`'s `contents(at:)`, `url(for:)`,
/// `descriptor(for:)` and `namespace()` read through it.
///
/// Files are opened through the confined root (`ConfinedDirectory`): a link planted inside an
/// installed pack's folder is refused, not followed out of the root.
struct MergedNamespace: Sendable {
    let store: ClientStore
    let layout: StorageLayout
    let root: ConfinedDirectory
    let languages: LanguageChoice

    /// Every path with the installed packs that hold it, in path order.
    func entries() throws -> [(path: String, packIDs: [String])] {
        try store.namespaceEntries()
    }

    /// The namespace as text, a line a path: the path, a tab, the IDs of the packs that hold it
    /// separated by commas, a line feed. Built from the store's rows without a string a path.
    func listing() throws -> [UInt8] {
        var text: [UInt8] = []
        try listing { text.append(contentsOf: $0) }
        return text
    }

    /// `listing()` handed to `write` in pieces of whole lines, each of about `piece` bytes (the
    /// last one shorter), from one buffer reused for every piece: at 100,000 paths the text is
    /// written as it is read, without the whole of it in memory. The store's rows come in path
    /// order, so the line being built is the only one a row can still extend (another pack's ID).
    func listing(piece: Int = 1 << 20, _ write: (UnsafeRawBufferPointer) throws -> Void) throws {
        var text: [UInt8] = []
        text.reserveCapacity(piece + (8 << 10))
        // The last line: where it starts in `text`, and its path's length (-1: none yet).
        var lineStart = 0, pathLength = -1
        var failure: (any Error)?
        try store.forEachNamespaceRow { path, id in
            guard failure == nil else { return }
            let samePath = pathLength == path.count
                && (path.isEmpty || text.withUnsafeBufferPointer { memcmp($0.baseAddress! + lineStart, path.baseAddress!, path.count) == 0 })
            if samePath {
                text[text.count - 1] = UInt8(ascii: ",")
            } else {
                if lineStart >= piece {
                    // Every line before the last is complete: out with them, and the last one
                    // moves to the front.
                    do { try text.withUnsafeBytes { try write(UnsafeRawBufferPointer(rebasing: $0[..<lineStart])) } } catch {
                        failure = error
                        return
                    }
                    text.removeSubrange(..<lineStart)
                }
                lineStart = text.count
                pathLength = path.count
                text.append(contentsOf: path)
                text.append(UInt8(ascii: "\t"))
            }
            text.append(contentsOf: id)
            text.append(UInt8(ascii: "\n"))
        }
        if let failure { throw failure }
        if !text.isEmpty { try text.withUnsafeBytes { try write($0) } }
    }

    /// The absolute path of the file `path` resolves to (only in pack `id` when given), the
    /// holding pack marked used at `now`; `fileNotFound` when no installed pack holds it.
    /// The path is handed out only after the file opened beneath the root with no link
    /// followed (a link planted in the install folder is refused here, as by `descriptor`);
    /// what the caller then does with the path is beyond the root's confinement, which is why
    /// `descriptor` and `contents` are the safer reads.
    func file(at path: String, inPackWithID id: String?, language: String? = nil, now: Date) throws -> String {
        let file = try relativeFile(at: path, inPackWithID: id, language: language, now: now)
        let fd = try StorageLayout.confined { () throws(ConfinementError) in try root.open(file, flags: O_RDONLY) }
        close(fd)
        return layout.absolute(file)
    }

    /// `file(at:…)` relative to the root, not yet opened.
    func installedRelativeFile(at path: String, inPackWithID id: String?, now: Date) throws -> String {
        try relativeFile(at: path, inPackWithID: id, language: nil, now: now)
    }

    /// `file(at:…)` relative to the root. With `language`, only localized packs for that
    /// language (or another region or script of it) are searched.
    private func relativeFile(at path: String, inPackWithID id: String?, language: String?, now: Date) throws -> String {
        let key = PackPath.normalizedSelector(path)
        guard PackPath.problemWithStoredPath(key) == nil else { throw AssetPackManagerError.fileNotFound(at: FilePath(path)) }
        var candidates = try store.holders(of: key)
        if let id { candidates = candidates.filter { $0.id == id } }
        var resolver = languages.resolver
        if let language {
            resolver = LanguageChoice.only(language)
            candidates = candidates.filter { resolver.rank($0.language) < 5_000 }
        }
        guard let pack = resolver.best(candidates, language: { $0.language }) else { throw AssetPackManagerError.fileNotFound(at: FilePath(path)) }
        try store.touch(pack.id, at: now)
        // A folder read back from the store is used only in the form the layout gives it.
        return layout.installedFile(key, in: try layout.checkedInstallDirectory(pack.directory, id: pack.id))
    }

    /// The bytes of the file `path` resolves to, memory-mapped.
    func contents(at path: String, inPackWithID id: String?, language: String? = nil, now: Date) throws -> Data {
        let fd = try descriptor(for: path, inPackWithID: id, language: language, now: now)
        defer { close(fd) }
        return try Self.mapped(fd, path: path)
    }

    /// The bytes of the open file `fd` (`path` names it in errors), memory-mapped; `fd` stays open.
    static func mapped(_ fd: Int32, path: String) throws -> Data {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw AssetPackManagerError.storage("cannot read \(path): \(String(cString: strerror(errno)))") }
        let size = Int(st.st_size)
        guard size > 0 else { return Data() }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw AssetPackManagerError.storage("cannot map \(path): \(String(cString: strerror(errno)))")
        }
        return Data(bytesNoCopy: p, count: size, deallocator: .custom { p, n in munmap(p, n) })
    }

    /// A read-only file descriptor on the file `path` resolves to; the caller closes it.
    func descriptor(for path: String, inPackWithID id: String?, language: String? = nil, now: Date) throws -> Int32 {
        let file = try relativeFile(at: path, inPackWithID: id, language: language, now: now)
        return try StorageLayout.confined { () throws(ConfinementError) in try root.open(file, flags: O_RDONLY) }
    }
}
