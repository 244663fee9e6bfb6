import AssetPackFormat

extension SigningKey {
    /// The bytes of a `catalog.json` carrying `catalog`, signed with this key.
    public func signedCatalog(_ catalog: Catalog) throws(KeyError) -> [UInt8] {
        let payload = CatalogCoding.encode(catalog)
        let signature = try sign(SignedCatalog.signedMessage(for: payload))
        return SignedCatalog(payload: payload, signatures: [CatalogSignature(keyID: publicKey.keyID, signature: signature)],
                             format: catalog.requiredFormat).encoded()
    }
}
