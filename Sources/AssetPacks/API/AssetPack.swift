import AssetPackFormat
import Foundation

/// An asset pack as the catalog describes it (Apple's `AssetPack`): what it is, how big, and
/// when it downloads.
public struct AssetPack: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The pack's ID, unique in the catalog (Apple's `id`).
    public var id: String
    /// The catalog's version of the pack; a higher number is newer (Apple's `version`).
    public var version: Int
    /// Compressed bytes a fresh install downloads (Apple's `downloadSize`).
    public var downloadSize: Int
    /// Uncompressed bytes once installed. Not in Apple's `AssetPack`.
    public var installSize: UInt64
    /// The BCP 47 tag of the language the pack is localized for, as the catalog writes it; nil
    /// when it is not localized. Not in Apple's `AssetPack` (`language` is that tag as a
    /// `Locale.Language`).
    public var languageTag: String?
    /// The language the pack is localized for; nil when it is not localized (Apple's `language`).
    public var language: Locale.Language? { languageTag.map { Locale.Language(identifier: $0) } }
    /// JSON-encoded custom information the pack's manifest carries (`userInfo`), as the catalog
    /// passes it on; nil when the manifest has none (Apple's `userInfo`).
    public var userInfo: Data?
    /// When the pack downloads: essential (at its installation events, waited for), prefetch
    /// (at its events, in the background) or on demand (when asked for), as its manifest says.
    public var downloadPolicy: DownloadPolicy
    /// The platforms the pack's manifest names (at least one; iPadOS counts as iOS).
    public var platforms: [Platform]
    /// True for a paid (sealed) pack: its files are encrypted in the repository and it installs
    /// only with a content key from the key server, for an entitlement token
    /// (`Configuration.entitlementProvider`). Not in Apple's `AssetPack`.
    public var requiresEntitlement: Bool { contentKeyID != nil }
    /// The content key a sealed pack's version is sealed under (the catalog's `sealed.keyID`).
    var contentKeyID: SHA256Digest?
    /// For a pack with device variants: the variant chosen for this device and why (its
    /// `name`, `conditions` and `description`); nil for a pack without variants. This
    /// `AssetPack`'s sizes are that variant's. Not in Apple's `AssetPack`.
    public var variant: VariantChoice?

    init(_ p: CatalogPack) {
        variant = p.chosenVariant
        contentKeyID = p.sealed?.keyID
        id = p.id
        version = p.version
        downloadSize = Int(clamping: p.downloadSize)
        installSize = p.installSize
        languageTag = p.language
        userInfo = p.userInfo.map { Data($0.utf8) }
        downloadPolicy = p.downloadPolicy
        platforms = p.platforms
    }

    /// `downloadSize` as the allowances count it.
    var downloadBytes: UInt64 { UInt64(max(downloadSize, 0)) }

    /// Packs are equal when their IDs and versions are (the sizes and policy come with those).
    public static func == (a: AssetPack, b: AssetPack) -> Bool { a.id == b.id && a.version == b.version }
    /// Hashes the ID and the version, as `==` compares them.
    public func hash(into h: inout Hasher) { h.combine(id); h.combine(version) }
    /// `ID vVERSION`, as in `HighRes v3`.
    public var description: String { "\(id) v\(version)" }

    /// Where a pack stands on this device relative to the catalog (Apple's `AssetPack.Status`).
    public struct Status: OptionSet, Sendable, Hashable, CustomStringConvertible {
        /// The set's bits, one per status below.
        public let rawValue: Int
        /// The set with these bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// In the catalog, not installed.
        public static let downloadAvailable = Status(rawValue: 1 << 0)
        /// Installed, and the catalog has a newer version.
        public static let updateAvailable = Status(rawValue: 1 << 1)
        /// Installed in the catalog's version.
        public static let upToDate = Status(rawValue: 1 << 2)
        /// Installed in an older version than the catalog's.
        public static let outOfDate = Status(rawValue: 1 << 3)
        /// Installed, but no longer in the catalog.
        public static let obsolete = Status(rawValue: 1 << 4)
        /// A download is under way or waiting to resume.
        public static let downloading = Status(rawValue: 1 << 5)
        /// Some version is installed.
        public static let downloaded = Status(rawValue: 1 << 6)
        /// A paid (sealed) pack whose content key for this version the client does not hold:
        /// downloading it needs an entitlement (a token the key server accepts). Not in Apple's
        /// `AssetPack.Status`.
        public static let requiresEntitlement = Status(rawValue: 1 << 7)

        static let names: [(Status, String)] = [(.downloadAvailable, "downloadAvailable"), (.updateAvailable, "updateAvailable"),
                                                (.upToDate, "upToDate"), (.outOfDate, "outOfDate"), (.obsolete, "obsolete"),
                                                (.downloading, "downloading"), (.downloaded, "downloaded"), (.requiresEntitlement, "requiresEntitlement")]
        /// The names of the statuses in the set (`"downloaded"`, `"upToDate"`…), in declaration order.
        public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
        /// The names joined with `, `; `[]` for the empty set.
        public var description: String { names.isEmpty ? "[]" : names.joined(separator: ", ") }
    }
}
