import AssetPackFormat
import AssetPackPackaging
import Foundation

/// What the catalog says about a pack file, read from the file itself: its metadata, sizes,
/// SHA-256, pack digest and where its index lies.
struct PackFileInfo: Equatable {
    var metadata: PackMetadata
    var size: UInt64
    var installSize: UInt64
    var sha256: SHA256Digest
    var digest: SHA256Digest
    var index: CatalogIndexLocation
    var chunking: ChunkingParameters
    /// The content key ID of a sealed pack; nil for an unsealed one.
    var keyID: SHA256Digest?
    /// Bytes a fresh install fetches: the file's size, plus the frames its bases hold for a
    /// pack file with bases (what the file would weigh holding them all).
    var downloadSize: UInt64
    /// For a pack file with bases (a variant sharing frames with other files of its group): the
    /// base files' SHA-256, as the index pins them, in its order. Empty otherwise.
    var baseSHA256s: [SHA256Digest]

    init(metadata: PackMetadata, size: UInt64, installSize: UInt64, sha256: SHA256Digest, digest: SHA256Digest,
         index: CatalogIndexLocation, chunking: ChunkingParameters, keyID: SHA256Digest?,
         downloadSize: UInt64? = nil, baseSHA256s: [SHA256Digest] = []) {
        self.keyID = keyID
        self.downloadSize = downloadSize ?? size
        self.baseSHA256s = baseSHA256s
        self.metadata = metadata
        self.size = size
        self.installSize = installSize
        self.sha256 = sha256
        self.digest = digest
        self.index = index
        self.chunking = chunking
    }

    /// Describes the pack file `writer` has just written with `metadata`, from what it reports
    /// (`PackSummary`, the file hashed as it was written): reading the index back would decode
    /// every file's path again, a third of what a publish of a few hundred thousand files holds.
    init?(written summary: PackSummary, metadata: PackMetadata, writer: PackWriter) {
        guard let sha256 = summary.fileSHA256 else { return nil }
        self.init(metadata: metadata, size: summary.packSize, installSize: summary.installSize, sha256: sha256, digest: summary.packDigest,
                  index: CatalogIndexLocation(offset: summary.indexOffset, length: summary.indexLength, sha256: summary.packDigest),
                  chunking: writer.parameters, keyID: writer.sealing?.keyID)
    }

    /// Reads the pack at `path` (a file this publish staged); `sha256` is the file's digest when
    /// known already (hashed as it was written), otherwise the file is read through to compute it.
    init(path: String, sha256 known: SHA256Digest? = nil, keys: [ContentKey] = []) throws {
        let reader = try PackReader(path: path, keys: keys)
        guard let sha256 = known ?? FileDigest.of(path) else { throw PublishError.io("cannot read \(path)") }
        self.init(reader: reader, sha256: sha256)
    }

    /// Describes the pack `reader` has open, whose whole file hashes to `sha256`.
    init(reader: PackReader, sha256: SHA256Digest) {
        metadata = reader.index.metadata
        size = reader.fileSize
        installSize = reader.index.installSize
        self.sha256 = sha256
        digest = reader.digest
        index = CatalogIndexLocation(offset: reader.trailer.indexOffset, length: reader.trailer.indexLength, sha256: reader.digest)
        chunking = reader.index.chunking
        keyID = reader.keyID
        downloadSize = size + reader.index.compressedSize - reader.index.ownCompressedSize
        baseSHA256s = reader.index.bases.map(\.sha256)
    }

    /// Where a pack file lives in a repository: named by its digest, so that it never changes.
    static func repositoryPath(id: String, digest: SHA256Digest) -> String { "packs/\(id)/\(digest.hex).pack" }

    /// The pack as a variant of its ID with `conditions`, at its content-addressed path. A file
    /// with bases names them by path through `group` (the SHA-256 and path of every file of
    /// the group, the default's first): `base`, the default's path, when that is its one base
    /// (pack format 4), else `bases` (format 5).
    func catalogVariant(_ conditions: VariantConditions, group: [(sha256: SHA256Digest, path: String)]) -> CatalogVariant {
        var v = CatalogVariant(conditions: conditions, downloadSize: downloadSize, installSize: installSize,
                               path: Self.repositoryPath(id: metadata.assetPackID, digest: digest), size: size, sha256: sha256,
                               digest: digest, index: index, chunking: chunking)
        let paths = baseSHA256s.map { sha in group.first { $0.sha256 == sha }?.path ?? "" }
        if paths.count == 1, let first = group.first, baseSHA256s[0] == first.sha256 {
            v.base = first.path
        } else if !paths.isEmpty {
            v.bases = paths
        }
        return v
    }

    /// The pack as the catalog entry of its ID, listing `variants` (nil: none).
    func catalogEntry(version: Int, path: String, variants: [CatalogVariant]? = nil) -> CatalogPack {
        var entry = CatalogPack(id: metadata.assetPackID, version: version, downloadPolicy: metadata.downloadPolicy,
                    language: metadata.language, platforms: metadata.platforms, downloadSize: size,
                    installSize: installSize, path: path, size: size, sha256: sha256, digest: digest,
                    index: index, chunking: chunking, userInfo: metadata.userInfo, sealed: keyID.map { CatalogSealing(keyID: $0) })
        entry.variants = variants
        return entry
    }
}
