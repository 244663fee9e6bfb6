import AssetPackFormat
import AssetPackTransport
import Foundation

/// Progressive access (`AssetReadAccess.progressive`): a file of a pack that is not installed,
/// or is downloading, fetched on its own ahead of the rest of the pack.
///
/// The file comes from one pack version, the catalog's (the one a download installs): its
/// index is the one a download uses (fetched once, checked against the catalog's digest and
/// figures, shared with the download), and only the frames of the file's chunks are fetched,
/// each verified before a byte of it is written. The complete file is written under
/// `staging/<id>-<digest16>/incoming/`, flushed, and renamed into
/// `staging/<id>-<digest16>/progressive/<path>`: a file there is always whole and verified, and
/// a later download of that version links it into its files instead of fetching it again. The
/// pack is not installed by a progressive read, nor is its status changed; `remove` stops the
/// reads of the pack and removes what they placed.
extension AssetPackManager {
    /// The pack version and file a progressive read fetches from.
    struct ProgressiveSource: Sendable {
        var entry: CatalogPack
        var index: PackIndex
        var indexBytes: [UInt8]
        var file: Int
        var staging: String
        /// The placed file, relative to the root.
        var placed: String { StorageLayout.progressiveFiles(staging) + "/" + index.files.path(at: file) }
    }

    /// What a progressive read gives back: an open read-only descriptor and, when the file was
    /// placed (not a private copy of a range), its path relative to the root.
    struct ProgressiveFile: Sendable {
        var descriptor: Int32
        var placed: String?
    }

    /// The installed file `path` resolves to (relative to the root), or nil when no installed
    /// pack (or not pack `id`) holds it and `id` is not installed.
    private func installedFile(_ path: String, inPackWithID id: String?) throws -> String? {
        do { return try mergedNamespace.installedRelativeFile(at: path, inPackWithID: id, now: configuration.now()) } catch AssetPackManagerError.fileNotFound {
            // A pack that is installed is read as installed: its next version is its download's.
            if let id, try store.installedPack(id) != nil { throw AssetPackManagerError.fileNotFound(at: FilePath(path)) }
            return nil
        }
    }

    /// Where a progressive read of `path` fetches from: pack `id` when given, else the packs
    /// being downloaded, in ID order. Only the index is fetched to find out; a path no such pack
    /// holds is `fileNotFound`, with no chunk fetched.
    private func progressiveSource(_ path: String, inPackWithID id: String?) async throws -> ProgressiveSource {
        let key = PackPath.normalizedSelector(path)
        guard PackPath.problemWithStoredPath(key) == nil else { throw AssetPackManagerError.fileNotFound(at: FilePath(path)) }
        let candidates = if let id { [id] } else { Set(inFlight.keys).union(try store.pendingDownloads().map(\.id)).sorted() }
        guard !candidates.isEmpty else { throw AssetPackManagerError.fileNotFound(at: FilePath(path)) }
        let catalog = try await currentCatalog()
        for candidate in candidates {
            guard let entry = catalog.pack(withID: candidate) else {
                if id != nil { throw AssetPackManagerError.assetPackNotFound(withID: candidate) }
                continue
            }
            if inFlight[entry.id] == nil {
                // Bytes that move for a pack no download has admitted meet the same checks first.
                let pack = AssetPack(entry)
                _ = try limitDecisions(pack)
                guard configuration.shouldDownload(pack) else { throw AssetPackManagerError.downloadDeclined(assetPackID: pack.id) }
            }
            let version = "\(entry.id) \(entry.digest.hex)"
            let fetched: FetchedIndex
            if let known = progressiveIndexes[version] { fetched = known } else {
                fetched = try await verifiedIndex(entry, contentKey: try await contentKey(for: entry))
                // Kept for the next reads of this version (dropped when the pack is installed or removed).
                progressiveIndexes = progressiveIndexes.filter { !$0.key.hasPrefix(entry.id + " ") }
                progressiveIndexes[version] = fetched
            }
            guard let f = fetched.index.fileIndex(of: key) else { continue }
            return ProgressiveSource(entry: entry, index: fetched.index, indexBytes: fetched.bytes, file: f,
                                     staging: layout.stagingDirectory(id: entry.id, digest: entry.digest))
        }
        throw AssetPackManagerError.fileNotFound(at: FilePath(path))
    }

    /// A read-only descriptor of `path` with progressive access: the installed file, the file
    /// a progressive read placed before, or the file fetched now. With a `range`, a private
    /// copy of the file that holds those bytes at their offsets (unless the whole file is
    /// already here). `placed` is the file's path relative to the root when it has one.
    func progressiveFile(_ path: String, inPackWithID id: String?, range: Range<UInt64>?) async throws -> ProgressiveFile {
        if let installed = try installedFile(path, inPackWithID: id) {
            return ProgressiveFile(descriptor: try StorageLayout.confined { () throws(ConfinementError) in try root.open(installed, flags: O_RDONLY) },
                                   placed: installed)
        }
        let source = try await progressiveSource(path, inPackWithID: id)
        if let fd = try? root.open(source.placed, flags: O_RDONLY) { return ProgressiveFile(descriptor: fd, placed: source.placed) }
        let size = source.index.files.size(at: source.file)
        let wanted = range.map { min($0.lowerBound, size)..<min($0.upperBound, size) } ?? 0..<size
        let whole = wanted == 0..<size
        let (incoming, progressive) = try prepareProgressiveFolders(source)
        let outcome = try await runProgressive(source.entry.id) { [client] flag in
            try ProgressiveWrite(source: source, client: client, cancellation: flag, incoming: incoming, progressive: progressive)
                .run(range: wanted, place: whole)
        }
        return ProgressiveFile(descriptor: outcome.descriptor, placed: outcome.placed ? source.placed : nil)
    }

    /// The bytes `range` of `path` (all of it when nil), with progressive access: read from the
    /// installed or placed file when there is one, else only the chunks covering them fetched.
    func progressiveBytes(_ path: String, inPackWithID id: String?, range: Range<UInt64>?) async throws -> Data {
        guard let range else {
            let file = try await progressiveFile(path, inPackWithID: id, range: nil)
            defer { close(file.descriptor) }
            return try MergedNamespace.mapped(file.descriptor, path: path)
        }
        if let installed = try installedFile(path, inPackWithID: id) {
            return try Self.read(range, of: try StorageLayout.confined { () throws(ConfinementError) in try root.open(installed, flags: O_RDONLY) }, path: path)
        }
        let source = try await progressiveSource(path, inPackWithID: id)
        if let fd = try? root.open(source.placed, flags: O_RDONLY) { return try Self.read(range, of: fd, path: path) }
        let size = source.index.files.size(at: source.file)
        let wanted = min(range.lowerBound, size)..<min(range.upperBound, size)
        return try await runProgressive(source.entry.id) { [client] flag in
            var bytes = [UInt8](repeating: 0, count: Int(wanted.count))
            let fetched = try ProgressiveFetch(packPath: source.entry.path, basePaths: source.entry.bases.map(\.path), index: source.index, client: client, cancellation: flag)
                .read(file: source.file, range: wanted) { offset, piece in
                    let at = Int(offset - wanted.lowerBound)
                    bytes.withUnsafeMutableBytes { UnsafeMutableRawBufferPointer(rebasing: $0[at..<at + piece.count]).copyMemory(from: piece) }
                }
            return (Data(bytes), fetched)
        }
    }

    /// Creates the version's staging folders for a progressive read (here, on the actor: a
    /// `remove` of the pack runs before or after, never in between) and keeps its index there
    /// for the download that follows.
    private func prepareProgressiveFolders(_ source: ProgressiveSource) throws -> (incoming: ConfinedDirectory, progressive: ConfinedDirectory) {
        try StorageLayout.confined { () throws(ConfinementError) in
            let incoming = try root.directory(StorageLayout.progressiveIncoming(source.staging), create: true)
            let progressive = try root.directory(StorageLayout.progressiveFiles(source.staging), create: true)
            let indexPath = StorageLayout.stagedIndex(source.staging)
            if !root.exists(indexPath) { try? root.write(source.indexBytes, to: indexPath) }
            return (incoming, progressive)
        }
    }

    /// Runs a progressive read's blocking work on a thread of its own, stoppable by `remove`
    /// of pack `id` and by the caller's task being cancelled; counts its network bytes.
    private func runProgressive<T: Sendable>(_ id: String, _ work: @escaping @Sendable (CancellationFlag) throws -> (T, UInt64)) async throws -> T {
        let flag = CancellationFlag()
        let key = nextProgressiveRead
        nextProgressiveRead += 1
        progressiveReads[key] = (id, flag)
        defer { progressiveReads[key] = nil }
        let (value, fetched) = try await withTaskCancellationHandler {
            try await offload { try work(flag) }
        } onCancel: { flag.cancel() }
        fetchedBytes += fetched
        return value
    }

    /// Removes every staging folder of pack `id` (with the files progressive reads placed there)
    /// and, when `stoppingReads`, stops its progressive reads under way (`remove`); a read not
    /// stopped still returns its complete file, only not kept. True when there was a folder.
    func removeProgressiveFiles(of id: String, stoppingReads: Bool) -> Bool {
        if stoppingReads { for (_, read) in progressiveReads where read.id == id { read.flag.cancel() } }
        progressiveIndexes = progressiveIndexes.filter { !$0.key.hasPrefix(id + " ") }
        var found = false
        for name in (try? root.entries(layout.stagingFolder)) ?? [] where StorageLayout.isStagingFolder(name, of: id) {
            found = true
            try? root.removeTree(layout.stagingDirectory(named: name))
        }
        return found
    }

    /// The bytes `range` of the open file `fd` (cut at its end); closes `fd`.
    private static func read(_ range: Range<UInt64>, of fd: Int32, path: String) throws -> Data {
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw AssetPackManagerError.storage("cannot read \(path): \(String(cString: strerror(errno)))") }
        let size = UInt64(st.st_size)
        let wanted = min(range.lowerBound, size)..<min(range.upperBound, size)
        var bytes = [UInt8](repeating: 0, count: Int(wanted.count))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(wanted.lowerBound) + off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw AssetPackManagerError.storage("cannot read \(path): \(n == 0 ? "it ended early" : String(cString: strerror(errno)))") }
            done += n
        }
        return Data(bytes)
    }
}
