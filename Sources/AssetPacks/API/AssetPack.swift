import AssetPackFormat

/// An asset pack as the catalog describes it (Apple's `AssetPack`): what it is, how big, and
/// when it downloads.
public struct AssetPack: Sendable, Hashable, Identifiable, CustomStringConvertible {
    public var id: String
    public var version: Int
    /// Compressed bytes a fresh install downloads.
    public var downloadSize: UInt64
    /// Uncompressed bytes once installed.
    public var installSize: UInt64
    public var language: String?
    public var downloadPolicy: DownloadPolicy
    public var platforms: [Platform]

    init(_ p: CatalogPack) {
        id = p.id
        version = p.version
        downloadSize = p.downloadSize
        installSize = p.installSize
        language = p.language
        downloadPolicy = p.downloadPolicy
        platforms = p.platforms
    }

    public static func == (a: AssetPack, b: AssetPack) -> Bool { a.id == b.id && a.version == b.version }
    public func hash(into h: inout Hasher) { h.combine(id); h.combine(version) }
    public var description: String { "\(id) v\(version)" }

    /// Where a pack stands on this device relative to the catalog (Apple's `AssetPack.Status`).
    public struct Status: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: Int
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

        static let names: [(Status, String)] = [(.downloadAvailable, "downloadAvailable"), (.updateAvailable, "updateAvailable"),
                                                (.upToDate, "upToDate"), (.outOfDate, "outOfDate"), (.obsolete, "obsolete"),
                                                (.downloading, "downloading"), (.downloaded, "downloaded")]
        public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
        public var description: String { names.isEmpty ? "[]" : names.joined(separator: ", ") }
    }
}

/// How far a download has come (named like Foundation's `Progress`, which is not Sendable).
public struct DownloadProgress: Sendable, Equatable {
    public var completedUnitCount: Int64
    public var totalUnitCount: Int64
    public var fractionCompleted: Double { totalUnitCount > 0 ? Double(completedUnitCount) / Double(totalUnitCount) : 1 }
}

/// What `statusUpdates` reports (Apple's `AssetPackManager.DownloadStatusUpdate`).
public enum DownloadStatusUpdate: Sendable {
    case began(AssetPack)
    case paused(AssetPack)
    case downloading(AssetPack, DownloadProgress)
    case finished(AssetPack)
    case failed(AssetPack, any Error)

    public var assetPack: AssetPack {
        switch self {
        case .began(let p), .paused(let p), .downloading(let p, _), .finished(let p), .failed(let p, _): return p
        }
    }

    var isTerminal: Bool {
        switch self { case .finished, .failed: return true; default: return false }
    }
}
