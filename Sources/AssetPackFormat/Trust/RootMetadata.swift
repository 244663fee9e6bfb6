import Foundation

/// The signed content of a root file (`roots/N.root.json`): which keys may sign the next root,
/// the catalog and the timestamp, until when, at which version. Any one listed key of a role
/// suffices (a threshold of one).
public struct RootMetadata: Sendable, Equatable, Codable {
    /// `TrustRole.formatVersion`, inside the signed bytes.
    public var rootFormat: Int
    /// 1 for the first root, then +1 with every rotation; a client accepts version N+1 only
    /// from version N.
    public var version: Int
    /// After this, clients refuse the root (and so everything it vouches for) until a newer one
    /// is published.
    public var expires: Date
    /// Public keys (text form) that sign the next root; the offline keys.
    public var rootKeys: [String]
    /// Public keys that may sign `catalog.json`.
    public var catalogKeys: [String]
    /// Public keys that may sign `timestamp.json`.
    public var timestampKeys: [String]

    /// A root of this version naming these keys (in their text form).
    public init(version: Int, expires: Date, rootKeys: [Ed25519PublicKey], catalogKeys: [Ed25519PublicKey], timestampKeys: [Ed25519PublicKey]) {
        rootFormat = TrustRole.formatVersion
        self.version = version
        self.expires = expires
        self.rootKeys = rootKeys.map(\.text)
        self.catalogKeys = catalogKeys.map(\.text)
        self.timestampKeys = timestampKeys.map(\.text)
    }

    /// The payload bytes.
    public func encoded() -> [UInt8] { TrustCoding.encode(self) }

    /// Decodes and checks a payload (`version ≥ 1`, every key list non-empty, valid and without repeats).
    public static func decode(_ payload: [UInt8], file: String) throws(TrustError) -> RootMetadata {
        let root = try TrustCoding.decode(RootMetadata.self, payload, role: .root, file: file)
        guard root.version >= 1 else { throw .malformed(file: file, "payload: version: must be at least 1, found \(root.version)") }
        _ = try TrustCoding.keys(root.rootKeys, key: "rootKeys", file: file)
        _ = try TrustCoding.keys(root.catalogKeys, key: "catalogKeys", file: file)
        _ = try TrustCoding.keys(root.timestampKeys, key: "timestampKeys", file: file)
        return root
    }

    /// The root keys, parsed (every key list was checked when the payload was decoded).
    public var rootPublicKeys: [Ed25519PublicKey] { rootKeys.compactMap { try? Ed25519PublicKey(text: $0) } }
    /// The catalog keys, parsed.
    public var catalogPublicKeys: [Ed25519PublicKey] { catalogKeys.compactMap { try? Ed25519PublicKey(text: $0) } }
    /// The timestamp keys, parsed.
    public var timestampPublicKeys: [Ed25519PublicKey] { timestampKeys.compactMap { try? Ed25519PublicKey(text: $0) } }
}
