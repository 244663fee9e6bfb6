import Foundation

/// The catalog format versions (docs/FORMAT.md, "Catalog"). Format 2 adds a channel and a staged
/// rollout to format 1; a catalog that uses neither is written in format 1, byte for byte as
/// before, so that clients that read only format 1 go on reading the default channel. Format 3
/// is format 2's payload compressed as one zstd frame, written only for a payload larger than
/// `compressionThreshold`, so that small repositories stay readable by every client.
public enum CatalogFormat {
    /// The newest format with a plain JSON payload.
    public static let version = 2
    /// The format whose payload is one zstd frame holding the JSON payload.
    public static let compressed = 3
    /// Every format this code reads.
    public static let readable: ClosedRange<Int> = 1...3
    /// Plain payloads larger than this many bytes are written compressed (format 3).
    public static let compressionThreshold = 64 << 10
    /// The most bytes a compressed payload may declare (and so decompress to).
    public static let maximumPayloadSize = 64 << 20
    /// The catalog's file name at the root of a repository (and of each channel's folder).
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
    /// The channel this catalog is for (format 2); nil for the default channel. Inside the signed
    /// payload, so that a catalog signed for one channel cannot stand in for another's.
    public var channel: String?
    /// A staged rollout in progress (format 2): `packs` go to the clients whose bucket is below
    /// its percentage, its own packs to every other client.
    public var rollout: CatalogRollout?

    public init(version: Int, published: Date, expires: Date, packs: [CatalogPack], retired: [RetiredPackFile] = [],
                removed: [RemovedPack] = [], channel: String? = nil, rollout: CatalogRollout? = nil) {
        self.version = version
        self.published = published
        self.expires = expires
        self.packs = packs
        self.retired = retired
        self.removed = removed
        self.channel = channel
        self.rollout = rollout
        catalogFormat = channel == nil && rollout == nil ? 1 : CatalogFormat.version
    }

    /// The format this catalog needs: 1 unless it names a channel or carries a rollout.
    public var requiredFormat: Int { channel == nil && rollout == nil ? 1 : 2 }

    public func pack(withID id: String) -> CatalogPack? { packs.first { $0.id == id } }

    /// The catalog a client in rollout bucket `bucket` (0…99) sees: without a rollout, or with
    /// the bucket below the rollout's percentage, this one; otherwise the rollout's packs in
    /// place of `packs`. A bucket below P is below every larger percentage, so a client never
    /// moves back as a rollout widens.
    public func view(forBucket bucket: Int) -> Catalog {
        guard let rollout, bucket >= rollout.percent else { return self }
        var view = self
        view.packs = rollout.packs
        view.removed = removed.filter { r in !rollout.packs.contains { $0.id == r.id } }
        return view
    }
}

/// A staged rollout (docs/FORMAT.md, "Catalog format 2"): the catalog's `packs` are the new
/// versions, served to the clients whose bucket (drawn once per storage root, 0…99) is below
/// `percent`; `packs` here are the versions every other client keeps.
public struct CatalogRollout: Sendable, Equatable, Codable {
    /// 0…100: 0 halts the rollout (every client on `packs` here), 100 serves the new versions to all.
    public var percent: Int
    /// The catalog version whose packs the clients outside the rollout keep.
    public var fromVersion: Int
    /// The packs of catalog version `fromVersion`, sorted by ID.
    public var packs: [CatalogPack]

    public init(percent: Int, fromVersion: Int, packs: [CatalogPack]) {
        self.percent = percent
        self.fromVersion = fromVersion
        self.packs = packs
    }
}

/// Channel names: what `publish --channel` and a client's channel accept.
public enum ChannelName {
    /// The name that means the default channel (`DIR/catalog.json`).
    public static let defaultName = "default"

    /// Why `name` is not a channel name; nil when it is one. 1–64 lowercase ASCII letters, digits,
    /// `-`, `_` and `.`, starting with a letter or digit.
    public static func problem(with name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 64 else { return "must be 1 to 64 characters long" }
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) || ("0"..."9").contains(first) else {
            return "must start with a lowercase letter or a digit"
        }
        guard name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) }) else {
            return "may contain only lowercase ASCII letters, digits, '-', '_' and '.'"
        }
        return nil
    }

    /// The channel a name means: nil for the default channel (`default` or nothing).
    public static func normalized(_ name: String?) -> String? { name == nil || name == defaultName ? nil : name }

    /// The path of a channel's catalog in a repository: `catalog.json`, or `channels/NAME/catalog.json`.
    public static func catalogPath(_ channel: String?) -> String {
        guard let channel = normalized(channel) else { return CatalogFormat.fileName }
        return "channels/\(channel)/\(CatalogFormat.fileName)"
    }

    /// How messages name a channel: `'beta'`, or `the default channel`.
    public static func describe(_ channel: String?) -> String {
        normalized(channel).map { "channel '\($0)'" } ?? "the default channel"
    }
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
    /// The read-order hint (an optional key, absent when none; older readers ignore it):
    /// paths of files or folders of the pack, in the order an app needs them. A download of the
    /// pack fetches those files first; a reader that does not know the key ignores it.
    public var readOrder: [String]?
    /// The manifest's `userInfo` as canonical JSON text (absent when none; catalogs before it
    /// have none): Apple's `AssetPack.userInfo`.
    public var userInfo: String?
    /// Present when the pack is sealed (encrypted; pack format version 3): the ID of the content
    /// key a client must obtain from a key server before it downloads any byte of the pack.
    public var sealed: CatalogSealing?
    /// Device variants (an optional key, absent when none; older readers ignore it and install
    /// this entry's own file, the default): other pack files of the same ID for devices that meet
    /// their conditions, in `VariantConditions` order (docs/FORMAT.md, "Device variants").
    public var variants: [CatalogVariant]?
    /// In a catalog as a device sees it (`Catalog.view(for:)`): which variant this entry's file is
    /// and why it was chosen; nil in a catalog as published, and never written.
    public var chosenVariant: VariantChoice?
    /// In a catalog as a device sees it, for a chosen variant whose file has bases: the files
    /// its shared frames are fetched from (the group's default, variants before it in the catalog's order),
    /// in its index's order. Empty otherwise, and never written.
    public var bases: [CatalogBaseFile] = []

    /// Every key but `chosenVariant` and `bases`, which a repository never states.
    private enum CodingKeys: String, CodingKey {
        case id, version, downloadPolicy, language, platforms, downloadSize, installSize, path, size, sha256, digest, index, chunking
        case patches, readOrder, userInfo, sealed, variants
    }

    public init(id: String, version: Int, downloadPolicy: DownloadPolicy, language: String?, platforms: [Platform],
                downloadSize: UInt64, installSize: UInt64, path: String, size: UInt64, sha256: SHA256Digest,
                digest: SHA256Digest, index: CatalogIndexLocation, chunking: ChunkingParameters, patches: [CatalogPatch]? = nil,
                userInfo: String? = nil, sealed: CatalogSealing? = nil) {
        self.userInfo = userInfo
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

    /// The pack files of every variant, the default's first.
    public var variantPaths: [String] { [path] + (variants ?? []).map(\.path) }
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
    /// For a device variant's pack file, that variant's conditions (an optional key, absent for
    /// a default's pack and for patch files).
    public var variant: VariantConditions?
    /// For a variant's pack file with one base (pack format 4), the base's path (the group's
    /// default file then): retention keeps that file while this one stays. Absent otherwise.
    public var base: String?
    /// For a variant's pack file with a list of bases (pack format 5), their paths: retention
    /// keeps those files while this one stays. Absent otherwise.
    public var bases: [String]?

    /// The paths of the files this file takes frames from.
    public var basePaths: [String] { base.map { [$0] } ?? bases ?? [] }

    public init(id: String, version: Int, path: String, size: UInt64, sha256: SHA256Digest, retiredIn: Int, variant: VariantConditions? = nil) {
        self.variant = variant
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
