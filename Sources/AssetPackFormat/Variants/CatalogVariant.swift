/// A device variant of a pack as the catalog lists it (docs/FORMAT.md, "Device variants"): the
/// conditions a device must meet, and the variant's own pack file — the same pack ID, other
/// content. A pack entry's own file is the default variant, for the devices no variant fits.
public struct CatalogVariant: Sendable, Equatable, Codable {
    public var conditions: VariantConditions
    // The variant's pack file, each field as `CatalogPack`'s of the same name describes the
    // default's file.
    public var downloadSize: UInt64, installSize: UInt64
    public var path: String, size: UInt64, sha256: SHA256Digest
    public var digest: SHA256Digest, index: CatalogIndexLocation, chunking: ChunkingParameters
    /// For a variant whose pack file has one base (pack format version 4, docs/FORMAT.md "Pack
    /// file with bases"): the path of that base, always the entry's own file (the group's
    /// default), which holds the frames the variant shares with it. Absent otherwise.
    public var base: String?
    /// For a variant whose pack file has a list of bases (pack format version 5): their paths,
    /// in the order the file's index names them, each the entry's own file or another variant's
    /// of the entry. Absent otherwise (a variant has `base`, `bases` or neither).
    public var bases: [String]?

    /// The paths of the files the variant's file takes frames from, in its index's order.
    public var basePaths: [String] { base.map { [$0] } ?? bases ?? [] }

    public init(conditions: VariantConditions, downloadSize: UInt64, installSize: UInt64, path: String, size: UInt64,
                sha256: SHA256Digest, digest: SHA256Digest, index: CatalogIndexLocation, chunking: ChunkingParameters, base: String? = nil, bases: [String]? = nil) {
        self.conditions = conditions
        self.base = base
        self.bases = bases
        (self.downloadSize, self.installSize, self.path, self.size) = (downloadSize, installSize, path, size)
        (self.sha256, self.digest, self.index, self.chunking) = (sha256, digest, index, chunking)
    }

    /// The variant as a pack entry of its own (`pack`'s ID, version, policy and metadata, this
    /// variant's file): what a device that chose it installs. Patches are made between default
    /// versions only, and the read-order hint names the default's files, so neither carries over.
    public func entry(of pack: CatalogPack) -> CatalogPack {
        var e = pack
        e.variants = nil
        e.patches = nil
        e.readOrder = nil
        e.downloadSize = downloadSize
        e.installSize = installSize
        e.path = path
        e.size = size
        e.sha256 = sha256
        e.digest = digest
        e.index = index
        e.chunking = chunking
        e.bases = basePaths.map { path in
            if let other = pack.variants?.first(where: { $0.path == path }) {
                return CatalogBaseFile(path: path, size: other.size, sha256: other.sha256)
            }
            // The catalog's checks allow no other path than the default's here.
            return CatalogBaseFile(path: pack.path, size: pack.size, sha256: pack.sha256)
        }
        return e
    }
}

/// A file a chosen variant's pack file takes shared frames from: its group's default file or a
/// variant's before it in the catalog's order, as the catalog describes it (`CatalogVariant.basePaths`). A
/// client fetches those frames from `path`, and accepts the variant's index only if the bases it
/// pins are these files.
public struct CatalogBaseFile: Sendable, Equatable {
    public var path: String
    public var size: UInt64
    public var sha256: SHA256Digest

    public init(path: String, size: UInt64, sha256: SHA256Digest) {
        self.path = path
        self.size = size
        self.sha256 = sha256
    }
}
