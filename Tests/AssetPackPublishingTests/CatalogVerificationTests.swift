import AssetPackFormat
import AssetPackPublishing
import Foundation
import TestSupport
import Testing

/// A small, valid catalog made by hand.
func sampleCatalog(version: Int = 7, expires: Date = Date(timeIntervalSince1970: 2_000_000_000)) -> Catalog {
    let digest = SHA256Digest.hash(Array("index".utf8))
    let pack = CatalogPack(id: "Voices.en", version: 3, downloadPolicy: .prefetch(installationEventTypes: [.firstInstallation]),
                           language: "en", platforms: [.iOS, .visionOS], downloadSize: 1000, installSize: 4000,
                           path: "packs/Voices.en/\(digest.hex).pack", size: 1000,
                           sha256: SHA256Digest.hash(Array("file".utf8)), digest: digest,
                           index: CatalogIndexLocation(offset: 900, length: 36, sha256: digest), chunking: .default)
    return Catalog(version: version, published: Date(timeIntervalSince1970: 1_700_000_000), expires: expires, packs: [pack])
}

let verifyClock = Date(timeIntervalSince1970: 1_800_000_000)



@Suite struct CatalogVerificationTests {
    let verifier = CatalogVerifier(publicKey: testKey.publicKey)

    @Test func signedCatalogRoundTrips() throws {
        let catalog = sampleCatalog()
        let bytes = try testKey.signedCatalog(catalog)
        let verified = try verifier.verify(bytes, now: verifyClock, minimumVersion: 7)
        #expect(verified == catalog)
        let envelope = try SignedCatalog.parse(bytes)
        #expect(envelope.signatures.map(\.keyID) == [testKey.publicKey.keyID])
        #expect(envelope.payload == CatalogCoding.encode(catalog))
    }

    @Test func opensslAcceptsTheSignature() throws {
        // The signature is plain Ed25519 over context + payload: an independent verifier agrees.
        let dir = try TemporaryDirectory("publishing")
        try KeyFiles.generate(at: "\(dir.path)/k")
        let key = try SigningKey(contentsOf: "\(dir.path)/k")
        let envelope = try SignedCatalog.parse(try key.signedCatalog(sampleCatalog()))
        try dir.write("msg", SignedCatalog.signedMessage(for: envelope.payload))
        try dir.write("sig", envelope.signatures[0].signature)
        #expect(try openssl(["pkey", "-in", "\(dir.path)/k", "-pubout", "-out", "\(dir.path)/pub.pem"]).status == 0)
        let ok = try openssl(["pkeyutl", "-verify", "-pubin", "-inkey", "\(dir.path)/pub.pem", "-rawin",
                              "-in", "\(dir.path)/msg", "-sigfile", "\(dir.path)/sig"])
        #expect(ok.status == 0)
        try dir.write("msg", SignedCatalog.signedMessage(for: envelope.payload + [0x20]))
        let bad = try openssl(["pkeyutl", "-verify", "-pubin", "-inkey", "\(dir.path)/pub.pem", "-rawin",
                               "-in", "\(dir.path)/msg", "-sigfile", "\(dir.path)/sig"])
        #expect(bad.status != 0)
    }

    @Test func flippedPayloadByteIsTampering() throws {
        var envelope = try SignedCatalog.parse(try testKey.signedCatalog(sampleCatalog()))
        // Change the version digit inside the payload JSON: still valid JSON, no longer signed.
        let text = String(decoding: envelope.payload, as: UTF8.self).replacingOccurrences(of: "\"version\":7", with: "\"version\":9")
        #expect(Array(text.utf8) != envelope.payload)
        envelope.payload = Array(text.utf8)
        #expect(throws: CatalogError.badSignature(keyID: testKey.publicKey.keyID)) {
            try verifier.verify(envelope.encoded(), now: verifyClock)
        }
        // Any single bit flip anywhere in the payload is caught.
        var flipped = try SignedCatalog.parse(try testKey.signedCatalog(sampleCatalog()))
        flipped.payload[flipped.payload.count / 2] ^= 0x01
        #expect(throws: CatalogError.badSignature(keyID: testKey.publicKey.keyID)) {
            try verifier.verify(flipped.encoded(), now: verifyClock)
        }
    }

    @Test func flippedSignatureByteIsTampering() throws {
        var envelope = try SignedCatalog.parse(try testKey.signedCatalog(sampleCatalog()))
        envelope.signatures[0].signature[10] ^= 0x80
        #expect(throws: CatalogError.badSignature(keyID: testKey.publicKey.keyID)) {
            try verifier.verify(envelope.encoded(), now: verifyClock)
        }
    }

    @Test func otherKeyIsWrongKeyNotTampering() throws {
        let bytes = try otherKey.signedCatalog(sampleCatalog())
        #expect(throws: CatalogError.wrongKey(expected: testKey.publicKey.keyID, found: [otherKey.publicKey.keyID])) {
            try verifier.verify(bytes, now: verifyClock)
        }
        // A forger who copies our key ID onto their signature is caught as tampering.
        var forged = try SignedCatalog.parse(bytes)
        forged.signatures[0].keyID = testKey.publicKey.keyID
        #expect(throws: CatalogError.badSignature(keyID: testKey.publicKey.keyID)) {
            try verifier.verify(forged.encoded(), now: verifyClock)
        }
    }

    @Test func expiredCatalogSaysWhen() throws {
        let expires = Date(timeIntervalSince1970: 1_750_000_000)
        let bytes = try testKey.signedCatalog(sampleCatalog(expires: expires))
        do {
            _ = try verifier.verify(bytes, now: verifyClock)
            Issue.record("an expired catalog was accepted")
        } catch {
            #expect(error == .expired(expires: expires, now: verifyClock))
            #expect(error.description.contains("2025-06-15T15:06:40Z"))
        }
        // The publisher may read its own expired catalog (no clock).
        #expect(try verifier.verify(bytes, now: nil).version == 7)
    }

    @Test func rollbackIsRefusedAndSaysWhichVersions() throws {
        let bytes = try testKey.signedCatalog(sampleCatalog(version: 7))
        do {
            _ = try verifier.verify(bytes, now: verifyClock, minimumVersion: 8)
            Issue.record("a rolled-back catalog was accepted")
        } catch {
            #expect(error == .rolledBack(version: 7, minimumVersion: 8))
            #expect(error.description.contains("version 7") && error.description.contains("version 8"))
        }
        #expect(try verifier.verify(bytes, now: verifyClock, minimumVersion: 7).version == 7)
    }

    @Test(arguments: [
        ("{", "not JSON"),
        (#"{"payload": "", "signatures": []}"#, "missing key \"catalogFormat\""),
        (#"{"catalogFormat": 4, "payload": "", "signatures": []}"#, "unsupported catalog format 4"),
        (#"{"catalogFormat": 1, "signatures": []}"#, "missing key \"payload\""),
        (#"{"catalogFormat": 1, "payload": "%%%", "signatures": []}"#, "payload: not valid base64"),
        (#"{"catalogFormat": 1, "payload": "", "signatures": [{"algorithm": "ed25519", "signature": ""}]}"#, "signatures[0].keyID"),
    ])
    func malformedEnvelopeNamesTheKey(_ text: String, _ expected: String) {
        do {
            _ = try verifier.verify(Array(text.utf8), now: verifyClock)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    /// A payload signed correctly but missing or mistyping a field is malformed, and the message
    /// names the key path.
    @Test(arguments: [
        ("version", "missing key \"version\""),
        ("packs.0.sha256", "missing key \"packs[0].sha256\""),
        ("packs.0.index", "missing key \"packs[0].index\""),
        ("expires", "missing key \"expires\""),
    ])
    func payloadMissingFieldNamesTheKey(_ field: String, _ expected: String) throws {
        let payload = try removing(field, from: CatalogCoding.encode(sampleCatalog()))
        let bytes = try signed(payload)
        do {
            _ = try verifier.verify(bytes, now: verifyClock)
            Issue.record("accepted a payload without \(field)")
        } catch {
            guard case .malformed = error else { Issue.record("expected malformed, got \(error)"); return }
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test(arguments: [
        (#""path":"packs/"#, #""path":"../"#, "packs[0].path"),
        (#""expires":"2033"#, #""expires":"soon"#, "expires: expected an RFC 3339 time"),
        (#""version":7"#, #""version":"7""#, "version: expected a whole number"),
        (#""offset":900"#, #""offset":901"#, "packs[0].index: range"),
    ])
    func payloadWithBadValueNamesTheKey(_ find: String, _ replace: String, _ expected: String) throws {
        let text = String(decoding: CatalogCoding.encode(sampleCatalog()), as: UTF8.self)
        #expect(text.contains(find))
        let bytes = try signed(Array(text.replacingOccurrences(of: find, with: replace).utf8))
        do {
            _ = try verifier.verify(bytes, now: verifyClock)
            Issue.record("accepted \(replace)")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    @Test func payloadThatIsNotJSONIsMalformed() throws {
        let bytes = try signed(Array("not json".utf8))
        let error = #expect(throws: CatalogError.self) { try verifier.verify(bytes, now: verifyClock) }
        #expect(error.map { "\($0)" }?.contains("payload: not valid JSON (line 1, column 1") == true, "\(String(describing: error))")
    }

    /// Found by the catalog fuzzer: Foundation's decoder takes the last of two equal keys, and
    /// the format check read the payload with the strict parser, which refuses duplicates, and
    /// skipped the check when it could not — so a duplicate key let `catalogFormat: 2` through.
    @Test func payloadWithADuplicateKeyIsMalformedAndFormatIsAlwaysChecked() throws {
        let payload = String(decoding: CatalogCoding.encode(sampleCatalog()), as: UTF8.self)
        #expect(payload.hasPrefix(#"{"catalogFormat":1,"#))
        let duplicate = try signed(Array(payload.replacingOccurrences(of: #"{"catalogFormat":1,"#, with: #"{"catalogFormat":1,"catalogFormat":2,"#).utf8))
        let error = #expect(throws: CatalogError.self) { try verifier.verify(duplicate, now: verifyClock) }
        #expect(error.map { "\($0)" }?.contains("duplicate key") == true, "\(String(describing: error))")
    }

    /// Signs arbitrary payload bytes the way the publisher does.
    private func signed(_ payload: [UInt8]) throws -> [UInt8] {
        let sig = try testKey.sign(SignedCatalog.signedMessage(for: payload))
        return SignedCatalog(payload: payload, signatures: [CatalogSignature(keyID: testKey.publicKey.keyID, signature: sig)]).encoded()
    }

    /// The payload JSON without the member at `path` (dot-separated, array indices as numbers).
    private func removing(_ path: String, from payload: [UInt8]) throws -> [UInt8] {
        var root = try JSONSerialization.jsonObject(with: Data(payload)) as! [String: Any]
        let parts = path.split(separator: ".").map(String.init)
        if parts.count == 1 { root[parts[0]] = nil } else {
            var packs = root["packs"] as! [[String: Any]]
            packs[Int(parts[1])!][parts[2]] = nil
            root["packs"] = packs
        }
        return [UInt8](try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]))
    }
}
