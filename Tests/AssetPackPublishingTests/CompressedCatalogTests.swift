import AssetPackFormat
import AssetPackPackaging
import AssetPackPublishing
import Foundation
import Testing

/// A catalog of `count` packs like `sampleCatalog`'s, each with a digest of its own.
func catalogOfManyPacks(_ count: Int, version: Int = 7) -> Catalog {
    var catalog = sampleCatalog(version: version)
    let template = catalog.packs[0]
    catalog.packs = (0..<count).map { i in
        var pack = template
        pack.id = String(format: "Pack%05d", i)
        pack.digest = SHA256Digest.hash(Array("index \(i)".utf8))
        pack.sha256 = SHA256Digest.hash(Array("file \(i)".utf8))
        pack.index.sha256 = pack.digest
        pack.path = "packs/\(pack.id)/\(pack.digest.hex).pack"
        pack.language = nil
        return pack
    }
    return catalog
}

/// Catalog format 3 (docs/FORMAT.md, "Catalog format 3: compressed payload"): a payload past
/// 64 KiB is signed compressed, read back whole, and refused — naming why — when its frame or
/// its format does not agree with what was signed; small catalogs stay in format 1.
@Suite struct CompressedCatalogTests {
    let verifier = CatalogVerifier(publicKey: testKey.publicKey)

    /// An envelope of `format` carrying `payload`, signed by the test key as it is.
    func signed(_ payload: [UInt8], format: Int) throws -> [UInt8] {
        let signature = try testKey.sign(SignedCatalog.signedMessage(for: payload))
        return SignedCatalog(payload: payload, signatures: [CatalogSignature(keyID: testKey.publicKey.keyID, signature: signature)], format: format).encoded()
    }

    func compressed(_ bytes: [UInt8]) -> [UInt8] { bytes.withUnsafeBytes { ZstdCompressor(level: 3).compress($0) } }

    @Test func aLargeCatalogIsSignedCompressedAndReadsBackWhole() throws {
        let catalog = catalogOfManyPacks(2_000)
        let plain = CatalogCoding.encode(catalog)
        #expect(plain.count > CatalogFormat.compressionThreshold)
        let bytes = try testKey.signedCatalog(catalog)
        let envelope = try SignedCatalog.parse(bytes)
        #expect(envelope.format == 3)
        #expect(try envelope.content() == CatalogCoding.encode(catalog, format: 3))
        let verified = try verifier.verify(bytes, now: verifyClock)
        #expect(verified.packs == catalog.packs)
        #expect(verified.catalogFormat == 3)
        // The file costs at most 400 bytes a pack, where the plain payload alone takes more.
        #expect(bytes.count <= 400 * 2_000, "\(bytes.count) bytes")
        #expect(plain.count > 400 * 2_000, "\(plain.count) bytes")
    }

    @Test func aSmallCatalogStaysInFormatOne() throws {
        let catalog = catalogOfManyPacks(10)
        let envelope = try SignedCatalog.parse(try testKey.signedCatalog(catalog))
        #expect(envelope.format == 1)
        #expect(envelope.payload == CatalogCoding.encode(catalog))
        #expect(String(decoding: envelope.payload, as: UTF8.self).hasPrefix(#"{"catalogFormat":1,"#))
    }

    @Test func aTamperedCompressedPayloadIsRefusedBeforeItIsDecompressed() throws {
        var envelope = try SignedCatalog.parse(try testKey.signedCatalog(catalogOfManyPacks(500)))
        envelope.payload[envelope.payload.count / 2] ^= 0x01
        #expect(throws: CatalogError.badSignature(keyID: testKey.publicKey.keyID)) {
            try verifier.verify(envelope.encoded(), now: verifyClock)
        }
    }

    @Test func aRelabelledEnvelopeIsNotReadAnotherWay() throws {
        // Signed compressed, presented as format 2: the signed bytes are no JSON.
        var envelope = try SignedCatalog.parse(try testKey.signedCatalog(catalogOfManyPacks(500)))
        envelope.format = 2
        #expect(throws: CatalogError.self) { try verifier.verify(envelope.encoded(), now: verifyClock) }
        do { _ = try verifier.verify(envelope.encoded(), now: verifyClock) } catch {
            guard case .malformed(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("not valid JSON"), "\(why)")
        }
        // Signed plain, presented as format 3: not a zstd frame.
        var plain = try SignedCatalog.parse(try testKey.signedCatalog(sampleCatalog()))
        plain.format = 3
        #expect(throws: CatalogError.malformed("payload: a format-3 payload must be one zstd frame: zstd data is corrupt (not a zstd frame)")) {
            try verifier.verify(plain.encoded(), now: verifyClock)
        }
    }

    @Test func theFormatInsideTheSignedBytesMustAgreeWithTheEnvelope() throws {
        let catalog = sampleCatalog()
        // A compressed payload whose JSON says format 1.
        let inner1 = try signed(compressed(CatalogCoding.encode(catalog)), format: 3)
        #expect(throws: CatalogError.malformed("payload: catalogFormat 1 in an envelope of catalog format 3 (only a compressed payload is format 3)")) {
            try verifier.verify(inner1, now: verifyClock)
        }
        // A plain payload whose JSON says format 3.
        let plain3 = try signed(CatalogCoding.encode(catalog, format: 3), format: 2)
        #expect(throws: CatalogError.malformed("payload: catalogFormat 3 in an envelope of catalog format 2 (only a compressed payload is format 3)")) {
            try verifier.verify(plain3, now: verifyClock)
        }
        // What the publisher writes passes.
        let good = try signed(compressed(CatalogCoding.encode(catalog, format: 3)), format: 3)
        #expect(try verifier.verify(good, now: verifyClock).packs == catalog.packs)
    }

    @Test func aFrameThatHidesItsSizeOrCarriesMoreIsRefused() throws {
        let json = CatalogCoding.encode(sampleCatalog(), format: 3)
        let frame = compressed(json)
        // Bytes after the frame, even a second valid frame.
        #expect(throws: CatalogError.malformed("payload: a format-3 payload must be one zstd frame: zstd data is corrupt (\(frame.count) bytes follow the frame)")) {
            try verifier.verify(try signed(frame + frame, format: 3), now: verifyClock)
        }
        // A frame cut short.
        #expect(throws: CatalogError.malformed("payload: a format-3 payload must be one zstd frame: zstd data is corrupt (the frame is incomplete)")) {
            try verifier.verify(try signed(Array(frame.dropLast(3)), format: 3), now: verifyClock)
        }
        // A frame that declares more than 64 MiB: a bomb is refused by its header.
        let zeros = [UInt8](repeating: 0x20, count: CatalogFormat.maximumPayloadSize + 1)
        let bomb = compressed(zeros)
        #expect(bomb.count < 64 << 10)
        #expect(throws: CatalogError.malformed("payload: a format-3 payload must be one zstd frame: frame declares \(zeros.count) bytes, more than the \(CatalogFormat.maximumPayloadSize) allowed")) {
            try verifier.verify(try signed(bomb, format: 3), now: verifyClock)
        }
    }

    @Test func aCatalogListsAtMostTenThousandPacks() throws {
        #expect(Catalog.maximumPacks == 10_000)
        let atTheLimit = catalogOfManyPacks(10_000)
        #expect(atTheLimit.problem == nil)
        #expect(try verifier.verify(try testKey.signedCatalog(atTheLimit), now: verifyClock).packs.count == 10_000)
        let past = catalogOfManyPacks(10_001)
        #expect(throws: CatalogError.malformed("payload: packs: 10001 packs, more than the 10000 a catalog may list")) {
            try verifier.verify(try testKey.signedCatalog(past), now: verifyClock)
        }
    }
}
