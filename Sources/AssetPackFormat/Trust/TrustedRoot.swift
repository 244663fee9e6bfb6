import Foundation

/// The root a client (or publisher) trusts, and the one step that moves it forward: a root file
/// is accepted only as the next version of the trusted one, signed by a root key of the trusted
/// root AND by a root key it names itself (docs/FORMAT.md, "Verification of a root").
public struct TrustedRoot: Sendable, Equatable {
    /// 0 for a pinned key (no root file accepted yet), else the accepted root's version.
    public let version: Int
    /// The keys that sign the next root.
    public let rootKeys: [Ed25519PublicKey]
    /// The accepted root; nil for a pinned key.
    public let metadata: RootMetadata?
    /// The accepted root file's bytes exactly; nil for a pinned key.
    public let envelope: [UInt8]?

    /// Trust anchored in one root public key: the first root file (`roots/1.root.json`) must be
    /// signed by it.
    public static func pinned(_ key: Ed25519PublicKey) -> TrustedRoot {
        TrustedRoot(version: 0, rootKeys: [key], metadata: nil, envelope: nil)
    }

    private init(version: Int, rootKeys: [Ed25519PublicKey], metadata: RootMetadata?, envelope: [UInt8]?) {
        self.version = version
        self.rootKeys = rootKeys
        self.metadata = metadata
        self.envelope = envelope
    }

    /// A root accepted before (the client store's copy, an initial root file shipped with an
    /// app): parsed, and checked to be signed by a root key it names itself. Its expiry is not
    /// checked here (`checkNotExpired`).
    public init(acceptedFile bytes: [UInt8], file: String) throws(TrustError) {
        let envelope = try SignedEnvelope.parse(bytes, role: .root, file: file)
        let root = try RootMetadata.decode(envelope.payload, file: file)
        do { _ = try envelope.verifiedSigners(among: root.rootPublicKeys, file: file) } catch {
            if case .wrongKey = error { throw .rootNotSignedByItself(version: root.version) }
            throw error
        }
        self.init(version: root.version, rootKeys: root.rootPublicKeys, metadata: root, envelope: bytes)
    }

    /// Checks `bytes` as the next root (this version + 1) and returns it as the trusted root.
    /// In order: the envelope; a valid signature by one of this root's root keys (else **forged
    /// root**, or **tampered**); the payload; its version is exactly this one + 1 (else
    /// **rolled-back** or **skipped root**); a valid signature by one of its own root keys (else
    /// **unconfirmed root**). Expiry is checked once the walk ends (`checkNotExpired`): an
    /// intermediate root may have expired since.
    public func next(_ bytes: [UInt8], file: String) throws(TrustError) -> TrustedRoot {
        let envelope = try SignedEnvelope.parse(bytes, role: .root, file: file)
        do { _ = try envelope.verifiedSigners(among: rootKeys, file: file) } catch {
            if case .wrongKey = error {
                let claimed = (try? RootMetadata.decode(envelope.payload, file: file))?.version ?? version + 1
                throw .rootNotSignedByPrevious(version: claimed, trustedVersion: version)
            }
            throw error
        }
        let root = try RootMetadata.decode(envelope.payload, file: file)
        if root.version <= version { throw .rootRolledBack(version: root.version, minimumVersion: version + 1) }
        if root.version != version + 1 { throw .rootSkipped(version: root.version, expected: version + 1) }
        do { _ = try envelope.verifiedSigners(among: root.rootPublicKeys, file: file) } catch {
            if case .wrongKey = error { throw .rootNotSignedByItself(version: root.version) }
            throw error
        }
        return TrustedRoot(version: root.version, rootKeys: root.rootPublicKeys, metadata: root, envelope: bytes)
    }

    /// Refuses an expired root (**expired root**); a pinned key without a root file passes.
    public func checkNotExpired(now: Date) throws(TrustError) {
        guard let metadata else { return }
        if now >= metadata.expires { throw .rootExpired(version: version, expires: metadata.expires, now: now) }
    }

    /// Verifies `catalog.json`'s bytes with the catalog keys this root names: a catalog signed by
    /// any other key (one a rotation revoked) is refused as **revoked or unknown catalog key**;
    /// the rest as `CatalogVerifier` does.
    public func verifyCatalog(_ bytes: [UInt8], now: Date?, minimumVersion: Int? = nil, channel: String? = nil) throws -> Catalog {
        guard let metadata else { throw TrustError.malformed(file: TrustRole.root.fileName, "no root file has been accepted yet") }
        do {
            return try CatalogVerifier(publicKeys: metadata.catalogPublicKeys).verify(bytes, now: now, minimumVersion: minimumVersion, channel: channel)
        } catch {
            if case .wrongKey(_, let found) = error { throw TrustError.catalogKeyNotInRoot(rootVersion: version, found: found) }
            throw error
        }
    }

    /// Verifies `timestamp.json`'s bytes: the envelope, a valid signature by a timestamp key this
    /// root names (else **wrong key** or **tampered**), the payload, then — when given — its
    /// version against the last accepted one (**rolled-back timestamp**) and its expiry
    /// (**stale timestamp**).
    public func verifyTimestamp(_ bytes: [UInt8], now: Date?, minimumVersion: Int? = nil) throws(TrustError) -> TimestampMetadata {
        let file = TrustRole.timestamp.fileName
        guard let metadata else { throw .malformed(file: TrustRole.root.fileName, "no root file has been accepted yet") }
        let envelope = try SignedEnvelope.parse(bytes, role: .timestamp, file: file)
        _ = try envelope.verifiedSigners(among: metadata.timestampPublicKeys, file: file)
        let ts = try TimestampMetadata.decode(envelope.payload, file: file)
        if let minimumVersion, ts.version < minimumVersion { throw .timestampRolledBack(version: ts.version, minimumVersion: minimumVersion) }
        if let now, now >= ts.expires { throw .timestampExpired(expires: ts.expires, now: now) }
        return ts
    }
}

extension TimestampMetadata {
    /// Refuses `catalogBytes` unless they are the catalog this timestamp names, by size and
    /// SHA-256 (**mix-and-match**), before their signature is even looked at.
    public func checkCatalogBytes(_ catalogBytes: [UInt8], channel: String? = nil) throws(TrustError) {
        guard let catalog = reference(for: channel) else { throw .channelNotInTimestamp(channel: channel ?? "") }
        if UInt64(catalogBytes.count) != catalog.size {
            throw .catalogMismatch(field: "size", timestamp: String(catalog.size), catalog: String(catalogBytes.count))
        }
        let digest = SHA256Digest.hash(catalogBytes).hex
        if digest != catalog.sha256 { throw .catalogMismatch(field: "SHA-256", timestamp: catalog.sha256, catalog: digest) }
    }

    /// Refuses a catalog whose version is not the one this timestamp names.
    public func checkCatalogVersion(_ version: Int, channel: String? = nil) throws(TrustError) {
        guard let catalog = reference(for: channel) else { throw .channelNotInTimestamp(channel: channel ?? "") }
        if version != catalog.version {
            throw .catalogMismatch(field: "version", timestamp: String(catalog.version), catalog: String(version))
        }
    }
}
