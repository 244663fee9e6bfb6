import AssetPackFormat
import AssetPackPublishing
import Foundation
import TestSupport
import Testing

/// The root and timestamp checks (AssetPackFormat's `TrustedRoot`), one attack per test, on
/// files signed here with real keys.
@Suite struct RootChainTests {
    let clock = Date(timeIntervalSince1970: 1_800_000_000)
    let rootKey = try! SigningKey.generate()
    let catalogKey = try! SigningKey.generate()
    let timestampKey = try! SigningKey.generate()

    func root(_ version: Int, rootKeys: [SigningKey]? = nil, catalog: [SigningKey]? = nil, expires: Date? = nil) -> RootMetadata {
        RootMetadata(version: version, expires: expires ?? clock.addingTimeInterval(86_400), rootKeys: (rootKeys ?? [rootKey]).map(\.publicKey),
                     catalogKeys: (catalog ?? [catalogKey]).map(\.publicKey), timestampKeys: [timestampKey.publicKey])
    }

    /// The first root, trusted through the pinned root key.
    func first() throws -> TrustedRoot {
        try TrustedRoot.pinned(rootKey.publicKey).next(try root(1).signed(by: [rootKey]), file: "roots/1.root.json")
    }

    func stamp(version: Int = 1, catalog bytes: [UInt8], catalogVersion: Int = 7, expires: Date? = nil) -> TimestampMetadata {
        TimestampMetadata(version: version, expires: expires ?? clock.addingTimeInterval(3600),
                          catalog: .init(version: catalogVersion, size: UInt64(bytes.count), sha256: SHA256Digest.hash(bytes)))
    }

    @Test func chainWalksOneVersionAtATimeAcrossAKeyHandover() throws {
        let newRootKey = try SigningKey.generate()
        let v1 = try first()
        #expect(v1.version == 1 && v1.rootKeys == [rootKey.publicKey])
        // Version 2 hands the root over to a new key: signed by the old one and the new one.
        let v2 = try v1.next(try root(2, rootKeys: [newRootKey]).signed(by: [rootKey, newRootKey]), file: "roots/2.root.json")
        #expect(v2.rootKeys == [newRootKey.publicKey])
        // Version 3 needs only the new key now.
        let v3 = try v2.next(try root(3, rootKeys: [newRootKey]).signed(by: [newRootKey]), file: "roots/3.root.json")
        #expect(v3.version == 3)
        try v3.checkNotExpired(now: clock)
        // A stored root is read back as accepted.
        #expect(try TrustedRoot(acceptedFile: v3.envelope!, file: "stored") == v3)
    }

    @Test func rootSignedOnlyByTheNewKeyIsForged() throws {
        let attacker = try SigningKey.generate()
        let forged = try root(2, rootKeys: [attacker]).signed(by: [attacker])
        #expect(throws: TrustError.rootNotSignedByPrevious(version: 2, trustedVersion: 1)) { try first().next(forged, file: "roots/2.root.json") }
        #expect("\(TrustError.rootNotSignedByPrevious(version: 2, trustedVersion: 1))".contains("forged root"))
    }

    @Test func rootNotSignedByItsOwnKeyIsUnconfirmed() throws {
        let newRootKey = try SigningKey.generate()
        let unconfirmed = try root(2, rootKeys: [newRootKey]).signed(by: [rootKey])
        #expect(throws: TrustError.rootNotSignedByItself(version: 2)) { try first().next(unconfirmed, file: "roots/2.root.json") }
    }

    @Test func skippedRootIsRefused() throws {
        // Version 3 signed by the trusted key, served where version 2 must come: N → N+2.
        let skipping = try root(3).signed(by: [rootKey])
        #expect(throws: TrustError.rootSkipped(version: 3, expected: 2)) { try first().next(skipping, file: "roots/2.root.json") }
    }

    @Test func rolledBackRootIsRefused() throws {
        let v2 = try first().next(try root(2).signed(by: [rootKey]), file: "roots/2.root.json")
        #expect(throws: TrustError.rootRolledBack(version: 1, minimumVersion: 3)) { try v2.next(try root(1).signed(by: [rootKey]), file: "roots/3.root.json") }
        #expect(throws: TrustError.rootRolledBack(version: 2, minimumVersion: 3)) { try v2.next(v2.envelope!, file: "roots/3.root.json") }
    }

    @Test func expiredRootIsRefused() throws {
        let v1 = try TrustedRoot.pinned(rootKey.publicKey).next(try root(1, expires: clock).signed(by: [rootKey]), file: "roots/1.root.json")
        #expect(throws: TrustError.rootExpired(version: 1, expires: clock, now: clock)) { try v1.checkNotExpired(now: clock) }
        try v1.checkNotExpired(now: clock.addingTimeInterval(-1))
    }

    @Test func tamperedRootIsRefused() throws {
        var envelope = try SignedEnvelope.parse(try root(1).signed(by: [rootKey]), role: .root, file: "r")
        envelope.payload[envelope.payload.count / 2] ^= 0x01
        #expect(throws: TrustError.badSignature(file: "roots/1.root.json", keyID: rootKey.publicKey.keyID)) {
            try TrustedRoot.pinned(rootKey.publicKey).next(envelope.encoded(), file: "roots/1.root.json")
        }
    }

    @Test func catalogSignedByAKeyTheRootNoLongerNamesIsRevoked() throws {
        let newCatalogKey = try SigningKey.generate()
        let v2 = try first().next(try root(2, catalog: [newCatalogKey]).signed(by: [rootKey]), file: "roots/2.root.json")
        let old = try catalogKey.signedCatalog(sampleCatalog())
        #expect(try first().verifyCatalog(old, now: verifyClock).version == 7)
        #expect(throws: TrustError.catalogKeyNotInRoot(rootVersion: 2, found: [catalogKey.publicKey.keyID])) { try v2.verifyCatalog(old, now: verifyClock) }
        #expect(try v2.verifyCatalog(try newCatalogKey.signedCatalog(sampleCatalog()), now: verifyClock).version == 7)
    }

    @Test func timestampChecks() throws {
        let v1 = try first()
        let catalogBytes = try catalogKey.signedCatalog(sampleCatalog())
        let ts = stamp(version: 4, catalog: catalogBytes)
        let good = try ts.signed(by: timestampKey)
        #expect(try v1.verifyTimestamp(good, now: clock, minimumVersion: 4) == ts)
        try ts.checkCatalogBytes(catalogBytes)
        try ts.checkCatalogVersion(7)
        // Rolled back: an older timestamp than the one accepted.
        #expect(throws: TrustError.timestampRolledBack(version: 4, minimumVersion: 5)) { try v1.verifyTimestamp(good, now: clock, minimumVersion: 5) }
        // Stale: a freeze.
        let expires = clock.addingTimeInterval(3600)
        #expect(throws: TrustError.timestampExpired(expires: expires, now: expires)) { try v1.verifyTimestamp(good, now: expires) }
        // Signed by the catalog key (not a timestamp key of the root): wrong key.
        #expect(throws: TrustError.wrongKey(file: "timestamp.json", expected: [timestampKey.publicKey.keyID], found: [catalogKey.publicKey.keyID])) {
            try v1.verifyTimestamp(try ts.signed(by: catalogKey), now: clock)
        }
        // Mix and match: another catalog than the one named, by size, by hash, by version.
        let other = try catalogKey.signedCatalog(sampleCatalog(version: 8))
        #expect(throws: TrustError.self) { try ts.checkCatalogBytes(other) }
        var sameSize = catalogBytes
        sameSize[sameSize.count - 2] ^= 0x20
        #expect(throws: TrustError.catalogMismatch(field: "SHA-256", timestamp: ts.catalog.sha256, catalog: SHA256Digest.hash(sameSize).hex)) {
            try ts.checkCatalogBytes(sameSize)
        }
        #expect(throws: TrustError.catalogMismatch(field: "version", timestamp: "7", catalog: "8")) { try ts.checkCatalogVersion(8) }
    }

    @Test func signaturesDoNotCrossRoles() throws {
        // The same payload bytes signed in the catalog's domain never pass as a root or timestamp signature.
        let payload = root(1).encoded()
        let asCatalog = try rootKey.sign(SignedCatalog.signedMessage(for: payload))
        let envelope = SignedEnvelope(role: .root, payload: payload, signatures: [CatalogSignature(keyID: rootKey.publicKey.keyID, signature: asCatalog)])
        #expect(throws: TrustError.badSignature(file: "roots/1.root.json", keyID: rootKey.publicKey.keyID)) {
            try TrustedRoot.pinned(rootKey.publicKey).next(envelope.encoded(), file: "roots/1.root.json")
        }
        #expect(TrustRole.root.signingContext == Array("AssetPacks root v1\n".utf8))
        #expect(TrustRole.timestamp.signingContext == Array("AssetPacks timestamp v1\n".utf8))
    }

    @Test func malformedFilesNameTheFileAndKey() throws {
        let cases: [(String, String)] = [
            ("{", "not JSON"),
            ("{\"payload\": \"\", \"signatures\": []}", "missing key \"rootFormat\""),
            ("{\"rootFormat\": 2, \"payload\": \"\", \"signatures\": []}", "unsupported"),
            ("{\"rootFormat\": 1, \"payload\": \"!!\", \"signatures\": []}", "payload: not valid base64"),
            ("{\"rootFormat\": 1, \"payload\": \"\", \"signatures\": [1]}", "signatures[0]"),
        ]
        for (text, expected) in cases {
            do {
                _ = try TrustedRoot.pinned(rootKey.publicKey).next(Array(text.utf8), file: "roots/1.root.json")
                Issue.record("accepted \(text)")
            } catch {
                #expect("\(error)".contains("roots/1.root.json") || "\(error)".contains("unsupported"), "\(error)")
                #expect("\(error)".contains(expected), "\(error)")
            }
        }
        // A payload with an empty key list, signed: refused after the signature, naming the key.
        var bad = root(1)
        bad.catalogKeys = []
        let signed = SignedEnvelope(role: .root, payload: bad.encoded(), signatures: [try rootKey.trustSignature(role: .root, payload: bad.encoded())])
        #expect(throws: TrustError.malformed(file: "roots/1.root.json", "payload: catalogKeys: names no key")) {
            try TrustedRoot.pinned(rootKey.publicKey).next(signed.encoded(), file: "roots/1.root.json")
        }
    }
}
