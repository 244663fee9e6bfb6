import AssetPackFormat
import AssetPackPackaging

extension SigningKey {
    /// zstd level of a format-3 payload: most of what is left after compression is the packs'
    /// digests, which no level shrinks, so a fast level loses little.
    static let catalogCompressionLevel: Int32 = 9

    /// The bytes of a `catalog.json` carrying `catalog`, signed with this key: format 1 or 2
    /// (plain JSON) while the payload stays within `CatalogFormat.compressionThreshold`, format 3
    /// (the payload compressed as one zstd frame) past it.
    public func signedCatalog(_ catalog: Catalog) throws(KeyError) -> [UInt8] {
        var payload = CatalogCoding.encode(catalog)
        var format = catalog.requiredFormat
        if payload.count > CatalogFormat.compressionThreshold {
            format = CatalogFormat.compressed
            payload = CatalogCoding.encode(catalog, format: format).withUnsafeBytes {
                ZstdCompressor(level: Self.catalogCompressionLevel).compress($0)
            }
        }
        let signature = try sign(SignedCatalog.signedMessage(for: payload))
        return SignedCatalog(payload: payload, signatures: [CatalogSignature(keyID: publicKey.keyID, signature: signature)],
                             format: format).encoded()
    }
}
