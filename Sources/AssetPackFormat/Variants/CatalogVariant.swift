/// A device variant of a pack as the catalog lists it (docs/FORMAT.md, "Device variants"): the
/// conditions a device must meet, and the variant's own pack file — the same pack ID, other
/// content. A pack entry's own file is the default variant, for the devices no variant fits.
public struct CatalogVariant: Sendable, Equatable, Codable {
    public var conditions: VariantConditions
    /// Compressed bytes a fresh install of this variant fetches: its pack file's size.
    public var downloadSize: UInt64
    /// Uncompressed bytes its files take once installed.
    public var installSize: UInt64
    /// The variant's pack file, relative to the catalog's URL (`packs/<id>/<digest>.pack`).
    public var path: String
    public var size: UInt64
    public var sha256: SHA256Digest
    /// The variant's pack digest (its index's SHA-256).
    public var digest: SHA256Digest
    public var index: CatalogIndexLocation
    public var chunking: ChunkingParameters

    public init(conditions: VariantConditions, downloadSize: UInt64, installSize: UInt64, path: String, size: UInt64,
                sha256: SHA256Digest, digest: SHA256Digest, index: CatalogIndexLocation, chunking: ChunkingParameters) {
        self.conditions = conditions
        self.downloadSize = downloadSize
        self.installSize = installSize
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.digest = digest
        self.index = index
        self.chunking = chunking
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
        return e
    }
}
