import AssetPackFormat
import Foundation

/// A fetched `catalog.json` as the client checks it. No input can carry a valid signature, so
/// the payload decoder is also run directly — on the envelope's payload and on the raw input,
/// plain and as a format-3 frame — as if the signature had passed: CatalogCoding and the frame
/// check must hold against a signer's mistakes too.
enum CatalogFuzzTarget {
    /// A fixed key no input is signed with: verification must always refuse.
    private static let verifier = CatalogVerifier(publicKey: Ed25519PublicKey(rawBytes: [UInt8](repeating: 0x2A, count: 32))!)

    static func run(_ bytes: [UInt8]) {
        do {
            _ = try verifier.verify(bytes, now: Date(timeIntervalSince1970: 1_800_000_000), minimumVersion: 1)
            preconditionFailure("a catalog passed verification without a signature by the trusted key")
        } catch {
            _ = error.description
        }
        if let envelope = try? SignedCatalog.parse(bytes) {
            precondition((try? SignedCatalog.parse(envelope.encoded())) == envelope, "an accepted envelope does not survive encoding")
            decode(envelope.payload)
            // As if the signature had passed: a format-3 payload's frame is decompressed too.
            _ = try? envelope.decodedCatalog()
        }
        decode(bytes)
        _ = try? SignedCatalog(payload: bytes, signatures: [], format: CatalogFormat.compressed).decodedCatalog()
    }

    /// The payload decoder; an accepted catalog must encode back to one that decodes equal.
    private static func decode(_ payload: [UInt8]) {
        do {
            let catalog = try CatalogCoding.decode(payload)
            precondition((try? CatalogCoding.decode(CatalogCoding.encode(catalog, format: catalog.catalogFormat))) == catalog,
                         "an accepted catalog does not survive encoding")
        } catch {
            _ = error.description
        }
    }
}
