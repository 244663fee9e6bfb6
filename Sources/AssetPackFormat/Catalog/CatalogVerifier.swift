import Foundation

/// Checks a catalog's bytes the way a client must: the envelope, then a signature by a
/// trusted key over the exact payload bytes, and only then the payload itself, its expiry and
/// (for rollback protection) its version.
public struct CatalogVerifier: Sendable {
    /// The trusted keys: one (`--public-key`), or the catalog keys a root names.
    public var publicKeys: [Ed25519PublicKey]
    /// The first trusted key.
    public var publicKey: Ed25519PublicKey { publicKeys[0] }

    /// Trusts a signature by `publicKey` alone.
    public init(publicKey: Ed25519PublicKey) { publicKeys = [publicKey] }

    /// Trusts a signature by any of `publicKeys` (not empty).
    public init(publicKeys: [Ed25519PublicKey]) {
        precondition(!publicKeys.isEmpty, "a catalog verifier needs a key")
        self.publicKeys = publicKeys
    }

    /// Verifies `bytes` (a `catalog.json`) and returns the catalog.
    /// - Parameters:
    ///   - now: the clock to check the expiry against; nil skips the check (a publisher reading
    ///     its own expired catalog in order to replace it).
    ///   - minimumVersion: the version of the newest catalog accepted before; older ones are
    ///     refused as rollbacks. The same version is accepted (a re-fetch).
    ///   - channel: the channel the catalog must be signed for (nil: the default channel); a
    ///     catalog for any other is refused (`wrongChannel`).
    public func verify(_ bytes: [UInt8], now: Date?, minimumVersion: Int? = nil, channel: String? = nil) throws(CatalogError) -> Catalog {
        let envelope = try SignedCatalog.parse(bytes)
        let message = SignedCatalog.signedMessage(for: envelope.payload)
        var named: String?
        var verified = false
        for key in publicKeys {
            let ours = envelope.signatures.filter { $0.keyID == key.keyID && $0.algorithm == CatalogSignature.ed25519 }
            guard !ours.isEmpty else { continue }
            named = named ?? key.keyID
            if ours.contains(where: { key.isValidSignature($0.signature, of: message) }) { verified = true; break }
        }
        guard let named else {
            throw .wrongKey(expected: publicKeys.map(\.keyID).joined(separator: ", "), found: envelope.signatures.map(\.keyID))
        }
        guard verified else { throw .badSignature(keyID: named) }
        // Only now is the payload decompressed (format 3) and decoded.
        let catalog = try envelope.decodedCatalog()
        if catalog.channel != ChannelName.normalized(channel) { throw .wrongChannel(expected: ChannelName.normalized(channel), found: catalog.channel) }
        if let now, now >= catalog.expires { throw .expired(expires: catalog.expires, now: now) }
        if let minimumVersion, catalog.version < minimumVersion {
            throw .rolledBack(version: catalog.version, minimumVersion: minimumVersion)
        }
        return catalog
    }
}
