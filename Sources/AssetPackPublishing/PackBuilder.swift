import AssetPackFormat
import AssetPackPackaging
import Foundation

/// A pack ready to enter the repository: packaged into staging, or reused from the repository.
struct BuiltPack {
    var info: PackFileInfo
    /// The staged pack file; nil when the pack file already in the repository is reused.
    var staged: String?
    /// The key the publish cache may record this pack under; nil when its inputs cannot be
    /// trusted to describe it (a file changed while it was packaged or too recently to tell).
    var cacheKey: SHA256Digest?

    var reused: Bool { staged == nil }
}

/// Obtains the pack of each manifest. When the publish cache holds the key of the pack's inputs
/// and the pack file it names in the repository checks out, that file is reused and nothing is
/// read but its index. Otherwise the pack is packaged into staging; its files are then stat'd
/// again, and the pack is offered to the cache only if none changed meanwhile and none changed
/// in the second or two before (a later edit within the file system's time granularity could
/// leave every time stamp as it was; `FileStamp.Timestamp.settledBefore`).
struct PackBuilder {
    let repository: String
    /// The repository folder, open: the reused pack files are read beneath it; nil when there is
    /// no repository yet (nothing to reuse).
    let folder: ConfinedDirectory?
    let writer: PackWriter
    /// The cache to reuse packs from; nil packages every pack.
    let cache: PublishCache?
    let afterPackaging: ((String) throws -> Void)?
    /// The file-system clock (tests set it to tell a fresh file from a settled one).
    var clock: () -> FileStamp.Timestamp = FileStamp.Timestamp.fileSystemNow
    private(set) var warnings: [String] = []
    /// Reused pack files whose index was read to check them (a cache entry without the pack
    /// file's stamp, or a file whose stamp changed); the others cost one `fstatat`.
    private(set) var indexesRead = 0
    /// Content keys that open the sealed pack files already in the repository.
    var keys: [ContentKey] = []

    init(repository: String, folder: ConfinedDirectory?, writer: PackWriter, cache: PublishCache?,
         afterPackaging: ((String) throws -> Void)?) {
        self.repository = repository
        self.folder = folder
        self.writer = writer
        self.cache = cache
        self.afterPackaging = afterPackaging
    }

    /// - Parameters:
    ///   - sealing: the content key to seal the pack with; nil writes it unsealed.
    ///   - bases: for an unsealed device variant, the files of its group it may take frames from,
    ///     its default's first, then the variants' before it in the catalog's order: the frames it shares
    ///     with them are left to them (`PackRebaser`).
    mutating func build(_ input: ResolvedManifest, metadata: PackMetadata, stagedAt staged: String, sealing: ContentKey? = nil,
                        bases: [PackRebaser.Candidate] = []) throws -> BuiltPack {
        let settledBefore = FileStamp.Timestamp.settledBefore(clock())
        var writer = self.writer
        writer.sealing = sealing
        let bases = sealing == nil ? bases : []
        // Each file's stamp goes into the key as it is taken; what is kept of it is its digest, in
        // a `StampRecord` (to tell after packaging whether the file changed), and the newest
        // status change. No key when a file cannot be stat'd or no longer has the size the
        // selection saw (the packager will then say what is wrong).
        let stamper = SourceStamper()
        var before = StampRecord(capacity: input.files.count)
        var newest = FileStamp.Timestamp(seconds: .min, nanoseconds: 0)
        let key = PackCacheKey.of(metadata: metadata, files: input.files, writer: writer, bases: bases.map(\.sha256)) { i in
            guard let stamp = stamper.stamp(input.files[i]), stamp.size == input.files[i].size else { return nil }
            before.append(stamp.digest)
            newest = max(newest, stamp.changed)
            return stamp
        }
        if let key, let entry = cache?.entries[key] {
            if let info = unchanged(entry, metadata: metadata, writer: writer) { return BuiltPack(info: info, staged: nil, cacheKey: key) }
            indexesRead += 1
            switch reusable(entry, metadata: metadata, files: input.files, writer: writer, bases: bases.map(\.sha256)) {
            case .success(let info): return BuiltPack(info: info, staged: nil, cacheKey: key)
            case .failure(let why):
                warnings.append("publish cache: \(entry.path) cannot be reused (\(why.reason)); packaging \(metadata.assetPackID) again")
            }
        }
        let info: PackFileInfo
        do {
            var writer = writer
            writer.digestsFile = true
            let summary = try writer.write(metadata: metadata, files: input.files, to: staged)
            if !bases.isEmpty, let rebased = try PackRebaser.rebase(staged, onto: bases, to: staged) {
                info = try PackFileInfo(path: staged, sha256: rebased.sha256, keys: sealing.map { [$0] } ?? [])
            } else {
                // The writer hashes the file as it writes it (`digestsFile`), so its report describes it.
                info = try PackFileInfo(written: summary, metadata: metadata, writer: writer) ?? PackFileInfo(path: staged, keys: sealing.map { [$0] } ?? [])
            }
            try afterPackaging?(metadata.assetPackID)
        } catch {
            throw PublishError.io("\(input.path): \(error)")
        }
        guard let key else { return BuiltPack(info: info, staged: staged, cacheKey: nil) }
        if let change = before.firstChange(in: input.files) {
            let what = switch change {
            case .file(let i): input.files[i].sourcePath
            case .unnamed: "a selected file"
            }
            warnings.append("\(input.path): \(what) changed while it was packaged; the pack holds the bytes read then, "
                            + "and the publish cache does not record it (the next publish packages it again)")
            return BuiltPack(info: info, staged: staged, cacheKey: nil)
        }
        return BuiltPack(info: info, staged: staged, cacheKey: newest < settledBefore ? key : nil)
    }

    private struct Unusable: Error { var reason: String }

    /// What the catalog needs to describe the pack file a cache entry names, when that file is
    /// still the one the entry was recorded for: a regular file at the content-addressed path
    /// (looked at beneath the repository folder, no link followed) with the stamp the entry
    /// holds. The entry's key already pins the inputs, the metadata, the chunking and the
    /// sealing key, and the file was checked when the entry was recorded; a file changed since
    /// (any write moves its ctime) goes through `reusable`. Nil when the stamp does not match.
    private func unchanged(_ entry: PublishCacheEntry, metadata: PackMetadata, writer: PackWriter) -> PackFileInfo? {
        guard let recorded = entry.packFile, let folder, entry.id == metadata.assetPackID,
              entry.path == PackFileInfo.repositoryPath(id: entry.id, digest: entry.digest),
              let st = folder.status(entry.path), (st.st_mode & S_IFMT) == S_IFREG, UInt64(st.st_size) == entry.size,
              FileStamp(st).keyText == recorded else { return nil }
        return PackFileInfo(metadata: metadata, size: entry.size, installSize: entry.installSize, sha256: entry.sha256, digest: entry.digest,
                            index: CatalogIndexLocation(offset: entry.indexOffset, length: entry.indexLength, sha256: entry.digest),
                            chunking: writer.parameters, keyID: writer.sealing?.keyID, downloadSize: entry.downloadSize, baseSHA256s: entry.baseSHA256s)
    }

    /// Checks the pack file a cache entry names — its trailer, and its index against the digest
    /// the trailer pins and against what packaging these inputs would write — without reading its
    /// chunks; returns what the catalog needs to describe it.
    private func reusable(_ entry: PublishCacheEntry, metadata: PackMetadata, files: SelectedFileList, writer: PackWriter,
                          bases: [SHA256Digest]) -> Result<PackFileInfo, Unusable> {
        func no(_ reason: String) -> Result<PackFileInfo, Unusable> { .failure(Unusable(reason: reason)) }
        guard entry.id == metadata.assetPackID, entry.path == PackFileInfo.repositoryPath(id: entry.id, digest: entry.digest) else {
            return no("the entry does not name the pack's content-addressed path")
        }
        let reader: PackReader
        guard let folder else { return no("there is no repository to reuse it from") }
        do { reader = try RepositoryPackFile.reader(entry.path, in: folder, keys: keys) } catch { return no("\(error)") }
        guard reader.keyID == writer.sealing?.keyID else { return no("it is not sealed under the key this publish seals the pack with") }
        let index = reader.index
        guard reader.fileSize == entry.size else { return no("it has \(reader.fileSize) bytes, the cache says \(entry.size)") }
        guard reader.digest == entry.digest, reader.trailer.indexOffset == entry.indexOffset, reader.trailer.indexLength == entry.indexLength else {
            return no("its trailer is not the one the cache recorded")
        }
        guard index.metadata == metadata, index.chunking == writer.parameters, index.installSize == entry.installSize,
              index.files.count == files.count,
              zip(index.files, files).allSatisfy({ $0.path == $1.packPath && $0.mode == $1.mode & 0o777 && $0.size == $1.size }) else {
            return no("its index does not describe these inputs")
        }
        if let pinned = index.bases.first(where: { !bases.contains($0.sha256) }) {
            return no("its frames lie partly in a base file (SHA-256 \(pinned.sha256.hex)) that is not its default's nor an earlier variant's")
        }
        var info = PackFileInfo(reader: reader, sha256: entry.sha256)
        info.metadata = metadata
        return .success(info)
    }
}
