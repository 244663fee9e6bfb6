import Foundation

/// The signed content of `timestamp.json`: the one catalog the repository serves now, pinned by
/// version, size and SHA-256, and a short expiry that the online timestamp key renews without
/// publishing again. A client that cannot get a fresh one online refuses to go on (a frozen view).
public struct TimestampMetadata: Sendable, Equatable, Codable {
    /// The catalog the timestamp names.
    public struct CatalogReference: Sendable, Equatable, Codable {
        /// The catalog's `version`.
        public var version: Int
        /// Bytes of `catalog.json`.
        public var size: UInt64
        /// 64 lowercase hex: SHA-256 of `catalog.json`'s bytes, exactly as served.
        public var sha256: String

        /// The catalog of this version whose file has this size and digest.
        public init(version: Int, size: UInt64, sha256: SHA256Digest) {
            self.version = version
            self.size = size
            self.sha256 = sha256.hex
        }
    }

    /// `TrustRole.formatVersion`, inside the signed bytes.
    public var timestampFormat: Int
    /// +1 every time the timestamp is signed; clients refuse versions below the last they accepted.
    public var version: Int
    /// After this, clients online refuse the timestamp (a frozen view).
    public var expires: Date
    /// The catalog this timestamp vouches for.
    public var catalog: CatalogReference
    /// The catalog of each channel (`channels/NAME/catalog.json`) by channel name; absent when the
    /// repository has no channel (a later revision of format 1: older readers ignore it).
    public var channels: [String: CatalogReference]?

    /// A timestamp of this version for `catalog` (and the channels' catalogs).
    public init(version: Int, expires: Date, catalog: CatalogReference, channels: [String: CatalogReference]? = nil) {
        timestampFormat = TrustRole.formatVersion
        self.version = version
        self.expires = expires
        self.catalog = catalog
        self.channels = channels?.isEmpty == true ? nil : channels
    }

    /// The catalog this timestamp names for `channel` (nil: the default channel's); nil when it
    /// names none for that channel.
    public func reference(for channel: String?) -> CatalogReference? {
        guard let channel = ChannelName.normalized(channel) else { return catalog }
        return channels?[channel]
    }

    /// The payload bytes.
    public func encoded() -> [UInt8] { TrustCoding.encode(self) }

    /// Decodes and checks a payload (`version ≥ 1`, `catalog.version ≥ 1`, a 64-hex digest).
    public static func decode(_ payload: [UInt8], file: String) throws(TrustError) -> TimestampMetadata {
        let ts = try TrustCoding.decode(TimestampMetadata.self, payload, role: .timestamp, file: file)
        guard ts.version >= 1 else { throw .malformed(file: file, "payload: version: must be at least 1, found \(ts.version)") }
        guard ts.catalog.version >= 1 else { throw .malformed(file: file, "payload: catalog.version: must be at least 1, found \(ts.catalog.version)") }
        guard ts.catalog.sha256.utf8.count == 64, SHA256Digest(hex: ts.catalog.sha256) != nil,
              ts.catalog.sha256 == ts.catalog.sha256.lowercased() else {
            throw .malformed(file: file, "payload: catalog.sha256: expected 64 lowercase hex digits")
        }
        for (name, ref) in (ts.channels ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let why = ChannelName.problem(with: name) { throw .malformed(file: file, "payload: channels.\(name): \(why)") }
            guard ref.version >= 1 else { throw .malformed(file: file, "payload: channels.\(name).version: must be at least 1, found \(ref.version)") }
            guard ref.sha256.utf8.count == 64, SHA256Digest(hex: ref.sha256) != nil, ref.sha256 == ref.sha256.lowercased() else {
                throw .malformed(file: file, "payload: channels.\(name).sha256: expected 64 lowercase hex digits")
            }
        }
        return ts
    }
}
