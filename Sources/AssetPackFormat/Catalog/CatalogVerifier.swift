import Foundation

/// Checks a catalog's bytes the way a client must: the envelope, then a signature by the
/// trusted key over the exact payload bytes, and only then the payload itself, its expiry and
/// (for rollback protection) its version.
public struct CatalogVerifier: Sendable {
    public var publicKey: Ed25519PublicKey

    public init(publicKey: Ed25519PublicKey) { self.publicKey = publicKey }

    /// Verifies `bytes` (a `catalog.json`) and returns the catalog.
    /// - Parameters:
    ///   - now: the clock to check the expiry against; nil skips the check (a publisher reading
    ///     its own expired catalog in order to replace it).
    ///   - minimumVersion: the version of the newest catalog accepted before; older ones are
    ///     refused as rollbacks. The same version is accepted (a re-fetch).
    public func verify(_ bytes: [UInt8], now: Date?, minimumVersion: Int? = nil) throws(CatalogError) -> Catalog {
        let envelope = try SignedCatalog.parse(bytes)
        let keyID = publicKey.keyID
        let ours = envelope.signatures.filter { $0.keyID == keyID && $0.algorithm == CatalogSignature.ed25519 }
        guard !ours.isEmpty else { throw .wrongKey(expected: keyID, found: envelope.signatures.map(\.keyID)) }
        let message = SignedCatalog.signedMessage(for: envelope.payload)
        guard ours.contains(where: { publicKey.isValidSignature($0.signature, of: message) }) else {
            throw .badSignature(keyID: keyID)
        }
        let catalog = try CatalogCoding.decode(envelope.payload)
        if let now, now >= catalog.expires { throw .expired(expires: catalog.expires, now: now) }
        if let minimumVersion, catalog.version < minimumVersion {
            throw .rolledBack(version: catalog.version, minimumVersion: minimumVersion)
        }
        return catalog
    }
}
