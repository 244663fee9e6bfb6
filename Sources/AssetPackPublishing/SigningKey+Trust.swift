import AssetPackFormat

extension SigningKey {
    /// This key's signature over `payload` in `role`'s domain (the role's signing context first).
    public func trustSignature(role: TrustRole, payload: [UInt8]) throws(KeyError) -> CatalogSignature {
        CatalogSignature(keyID: publicKey.keyID, signature: try sign(SignedEnvelope.signedMessage(role: role, payload: payload)))
    }
}

extension RootMetadata {
    /// The bytes of a root file carrying this root, signed by each of `keys` in turn.
    public func signed(by keys: [SigningKey]) throws(KeyError) -> [UInt8] {
        let payload = encoded()
        var signatures: [CatalogSignature] = []
        for key in keys where !signatures.contains(where: { $0.keyID == key.publicKey.keyID }) {
            signatures.append(try key.trustSignature(role: .root, payload: payload))
        }
        return SignedEnvelope(role: .root, payload: payload, signatures: signatures).encoded()
    }
}

extension TimestampMetadata {
    /// The bytes of `timestamp.json` carrying this timestamp, signed with `key`.
    public func signed(by key: SigningKey) throws(KeyError) -> [UInt8] {
        let payload = encoded()
        return SignedEnvelope(role: .timestamp, payload: payload, signatures: [try key.trustSignature(role: .timestamp, payload: payload)]).encoded()
    }
}
