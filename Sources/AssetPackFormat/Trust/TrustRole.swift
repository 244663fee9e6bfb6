/// The signed files beside the catalog that let keys change and views expire (docs/FORMAT.md,
/// "Keys that can change: root and timestamp"): each has its own envelope format key, its own
/// domain-separating signing context, and its place in the repository.
public enum TrustRole: String, Sendable, CaseIterable {
    /// `roots/N.root.json` (kept, immutable) and `root.json` (the newest, a copy): names the
    /// keys of every role. Signed by the offline root key.
    case root
    /// `timestamp.json`: names the current catalog by version, size and SHA-256, with a short
    /// expiry. Signed by the online timestamp key.
    case timestamp

    /// The format version this code writes and the only one it reads.
    public static let formatVersion = 1

    /// The key naming the format, in the envelope and again inside the signed payload.
    public var formatKey: String { rawValue + "Format" }

    /// Prepended to the payload before signing: a signature made for another role, or for a
    /// catalog, never passes as one of this role's.
    public var signingContext: [UInt8] { Array("AssetPacks \(rawValue) v1\n".utf8) }

    /// The file holding the current metadata of this role at the top of a repository.
    public var fileName: String { rawValue + ".json" }

    /// The folder of kept root versions.
    public static let rootsFolder = "roots"

    /// `roots/N.root.json`: root version `n`, kept forever so that a client at any version can
    /// walk to the newest one step by step.
    public static func rootPath(version n: Int) -> String { "\(rootsFolder)/\(n).root.json" }
}
