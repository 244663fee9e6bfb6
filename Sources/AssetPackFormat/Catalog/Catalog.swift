import Foundation

/// The catalog format version this code writes and the only one it reads (docs/FORMAT.md, "Catalog").
public enum CatalogFormat {
    public static let version = 1
    /// The catalog's file name at the root of a repository.
    public static let fileName = "catalog.json"
}

/// The signed content of a repository's `catalog.json`: which packs exist, in which version,
/// and where their files are. Decoded only after its signature has been checked.
public struct Catalog: Sendable, Equatable, Codable {
    public var catalogFormat: Int
    /// Grows by one with every publish; clients refuse versions below the last they accepted.
    public var version: Int
    public var published: Date
    public var expires: Date
    /// The current packs, sorted by ID.
    public var packs: [CatalogPack]
    /// Files of earlier pack versions still in the repository for clients that are mid-download;
    /// the publisher deletes them by its retention rule (docs/FORMAT.md, "Repository layout").
    public var retired: [RetiredPackFile]
    /// Packs that left the catalog, with their last version, so that a pack that comes back
    /// continues its version sequence and a client knows an installed copy is gone for good.
    public var removed: [RemovedPack]

    public init(version: Int, published: Date, expires: Date, packs: [CatalogPack], retired: [RetiredPackFile] = [],
                removed: [RemovedPack] = []) {
        catalogFormat = CatalogFormat.version
        self.version = version
        self.published = published
        self.expires = expires
        self.packs = packs
        self.retired = retired
        self.removed = removed
    }

    public func pack(withID id: String) -> CatalogPack? { packs.first { $0.id == id } }
}

/// One pack in the catalog, with Apple's names where Apple has one.
public struct CatalogPack: Sendable, Equatable, Codable {
    public var id: String
    /// Grows by one whenever the pack's content (its digest) changes.
    public var version: Int
    public var downloadPolicy: DownloadPolicy
    public var language: String?
    public var platforms: [Platform]
    /// Compressed bytes a fresh install fetches: the pack file's size.
    public var downloadSize: UInt64
    /// Uncompressed bytes the files take once installed.
    public var installSize: UInt64
    /// The pack file, relative to the catalog's URL (`packs/<id>/<digest>.pack`).
    public var path: String
    /// The pack file's size and the SHA-256 of all its bytes.
    public var size: UInt64
    public var sha256: SHA256Digest
    /// The pack digest: the SHA-256 of the pack's index, which pins every chunk and file.
    public var digest: SHA256Digest
    /// Where the index lies in the pack file, so that a client reads it with one Range request.
    public var index: CatalogIndexLocation
    /// The chunking parameters the pack was cut with (a later version must match for deltas).
    public var chunking: ChunkingParameters
    /// Patch files that make this version's new chunks from earlier versions' content, one per
    /// earlier version kept (absent when there are none; docs/FORMAT.md, "Patch file").
    public var patches: [CatalogPatch]?
    /// Present when the pack is sealed (encrypted; pack format version 3): the ID of the content
    /// key a client must obtain from a key server before it downloads any byte of the pack.
    public var sealed: CatalogSealing?

    public init(id: String, version: Int, downloadPolicy: DownloadPolicy, language: String?, platforms: [Platform],
                downloadSize: UInt64, installSize: UInt64, path: String, size: UInt64, sha256: SHA256Digest,
                digest: SHA256Digest, index: CatalogIndexLocation, chunking: ChunkingParameters, patches: [CatalogPatch]? = nil,
                sealed: CatalogSealing? = nil) {
        self.sealed = sealed
        self.id = id
        self.version = version
        self.downloadPolicy = downloadPolicy
        self.language = language
        self.platforms = platforms
        self.downloadSize = downloadSize
        self.installSize = installSize
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.digest = digest
        self.index = index
        self.chunking = chunking
        self.patches = patches
    }

    /// The patch file that starts from the version with pack digest `digest`, if any.
    public func patch(from digest: SHA256Digest) -> CatalogPatch? { patches?.first { $0.from == digest } }
}

/// How a sealed pack is sealed, as the catalog says: which content key opens it.
public struct CatalogSealing: Sendable, Equatable, Codable {
    /// `ContentKey.keyID` of the pack's content key (64 hex).
    public var keyID: SHA256Digest

    public init(keyID: SHA256Digest) { self.keyID = keyID }
}

/// A patch file as the catalog lists it: which version it starts from, where it lies, and the
/// byte range and SHA-256 of its table (so that a client fetches the table with one Range
/// request and trusts it through the signed catalog).
public struct CatalogPatch: Sendable, Equatable, Codable {
    /// The pack digest of the version the patches start from.
    public var from: SHA256Digest
    /// That version's number (for reports; the digest decides).
    public var fromVersion: Int
    /// The patch file, relative to the catalog's URL (`packs/<id>/<sha256>.patch`).
    public var path: String
    public var size: UInt64
    /// SHA-256 of the whole patch file (its name).
    public var sha256: SHA256Digest
    /// The table's byte range in the patch file and its SHA-256.
    public var table: CatalogIndexLocation

    public init(from: SHA256Digest, fromVersion: Int, path: String, size: UInt64, sha256: SHA256Digest, table: CatalogIndexLocation) {
        self.from = from
        self.fromVersion = fromVersion
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.table = table
    }
}

/// The byte range of a pack's index inside the pack file, and the index's SHA-256 (which is the
/// pack digest).
public struct CatalogIndexLocation: Sendable, Equatable, Codable {
    public var offset: UInt64
    public var length: UInt64
    public var sha256: SHA256Digest

    public init(offset: UInt64, length: UInt64, sha256: SHA256Digest) {
        self.offset = offset
        self.length = length
        self.sha256 = sha256
    }
}

/// A pack file of an earlier version, kept so that clients that started downloading it can finish.
public struct RetiredPackFile: Sendable, Equatable, Codable {
    public var id: String
    public var version: Int
    public var path: String
    public var size: UInt64
    public var sha256: SHA256Digest
    /// The catalog version that stopped listing this file as current.
    public var retiredIn: Int

    public init(id: String, version: Int, path: String, size: UInt64, sha256: SHA256Digest, retiredIn: Int) {
        self.id = id
        self.version = version
        self.path = path
        self.size = size
        self.sha256 = sha256
        self.retiredIn = retiredIn
    }
}

/// A pack that was in an earlier catalog and is no longer.
public struct RemovedPack: Sendable, Equatable, Codable {
    public var id: String
    /// Its last version.
    public var version: Int
    /// The catalog version that dropped it.
    public var removedIn: Int

    public init(id: String, version: Int, removedIn: Int) {
        self.id = id
        self.version = version
        self.removedIn = removedIn
    }
}
