import AssetPackFormat
import Foundation

/// `assetpack rotate`: writes the repository's next root, `roots/N+1.root.json` (kept forever)
/// and its copy `root.json`. The first one (no `roots/` yet) is signed by the root key alone and
/// must name the catalog and timestamp keys; each later one is signed by a root key of the
/// current root and, when the root key changes, by the new one too (a client accepts a root only
/// when its predecessor's key and its own key both signed it). Keys not given stay as they were.
public struct RootRotation {
    /// A root key of the current root (the only key for the first root).
    public var rootKey: SigningKey
    /// The root key that replaces `rootKey` in the new root; nil keeps it.
    public var newRootKey: SigningKey?
    /// The catalog keys of the new root; nil keeps the current ones.
    public var catalogKeys: [Ed25519PublicKey]?
    /// The timestamp keys of the new root; nil keeps the current ones.
    public var timestampKeys: [Ed25519PublicKey]?
    /// How long the new root stays valid (default 365 days).
    public var expiresIn: TimeInterval = RootRotation.defaultExpiry
    /// The clock the new root's expiry counts from.
    public var now = Date()

    /// How long a root stays valid unless `--expires` says otherwise.
    public static let defaultExpiry: TimeInterval = 365 * 86_400

    /// A rotation signed with `rootKey` that changes nothing but the version and expiry until told.
    public init(rootKey: SigningKey) { self.rootKey = rootKey }

    /// Writes the next root into `repository` under its publish lock and returns it.
    @discardableResult
    public func rotate(repository: String) throws -> RootMetadata {
        guard expiresIn > 0 else { throw PublishError.invalidOption("the root's expiry must be in the future") }
        // Until root.json is in place, a failure rolls everything back (roots/N+1.root.json
        // included, and the repository folder when this made it).
        let transaction = try RepositoryTransaction(repository: repository)
        // Whole seconds, as the file says it.
        let expires = Date(timeIntervalSince1970: now.addingTimeInterval(expiresIn).timeIntervalSince1970.rounded(.down))
        let trust = try RepositoryTrust.load(repository: repository)
        let next: RootMetadata
        var signers = [rootKey]
        if let trust {
            guard trust.current.rootKeys.contains(rootKey.publicKey) else {
                throw PublishError.trust("the root key \(rootKey.publicKey.keyID) is not a root key of root version \(trust.current.version) (it names \(trust.current.rootKeys.map(\.keyID).joined(separator: ", "))): only the current root key can rotate")
            }
            let old = trust.root
            next = RootMetadata(version: old.version + 1, expires: expires,
                                rootKeys: newRootKey.map { [$0.publicKey] } ?? old.rootPublicKeys,
                                catalogKeys: catalogKeys ?? old.catalogPublicKeys, timestampKeys: timestampKeys ?? old.timestampPublicKeys)
        } else {
            guard let catalogKeys, let timestampKeys else {
                throw PublishError.invalidOption("the first root of \(repository) must name the catalog key(s) and the timestamp key(s)")
            }
            guard newRootKey == nil else { throw PublishError.invalidOption("the first root has no earlier root key to replace; sign it with the new root key alone") }
            next = RootMetadata(version: 1, expires: expires, rootKeys: [rootKey.publicKey],
                                catalogKeys: catalogKeys, timestampKeys: timestampKeys)
        }
        if let newRootKey { signers.append(newRootKey) }
        for (name, keys) in [("catalog", next.catalogPublicKeys), ("timestamp", next.timestampPublicKeys)] where keys.isEmpty {
            throw PublishError.invalidOption("the new root names no \(name) key")
        }
        let bytes = try next.signed(by: signers)
        // Checked as a client will check it, before anything is written.
        do {
            if let trust { _ = try trust.current.next(bytes, file: TrustRole.rootPath(version: next.version)) } else {
                _ = try TrustedRoot.pinned(rootKey.publicKey).next(bytes, file: TrustRole.rootPath(version: next.version))
            }
        } catch {
            throw PublishError.trust("the new root does not verify: \(error)")
        }
        try transaction.placeNew(bytes, at: TrustRole.rootPath(version: next.version))
        try transaction.commitFile(TrustRole.root.fileName, bytes)
        transaction.finish()
        return next
    }
}
