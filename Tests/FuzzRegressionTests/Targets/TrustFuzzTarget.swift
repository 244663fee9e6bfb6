import AssetPackFormat
import Foundation

/// A fetched root or timestamp file as the client checks it (`TrustedRoot`, `SignedEnvelope`,
/// `RootMetadata`, `TimestampMetadata`). No input can carry a valid signature by the keys
/// below, so every check must refuse; the payload decoders also run directly on the envelope's
/// payload and on the raw input, as if the signature had passed.
enum TrustFuzzTarget {
    /// A root version 1 (expiring in 2036), signed by its root key, whose private halves were
    /// thrown away once it was made: the trusted root every input is checked against.
    private static let root: TrustedRoot = {
        let file = """
        {"rootFormat": 1, "payload": "eyJjYXRhbG9nS2V5cyI6WyJlZDI1NTE5OlR0N0RzRlY2cE1keVdoWjlHcDc2cjdNN21Ucjl6enNBcjI1TXZjVTlqVG89Il0sImV4cGlyZXMiOiIyMDM2LTExLTI4VDIwOjM3OjU4WiIsInJvb3RGb3JtYXQiOjEsInJvb3RLZXlzIjpbImVkMjU1MTk6eDdtUVlsS29UMXdJbDF3d1JVSVczd2lGYVFOenJxYWNJOFBBVitwR2laMD0iXSwidGltZXN0YW1wS2V5cyI6WyJlZDI1NTE5OnAvMnY4b0hSYW1UUW5FZ3RLa2xTR0FJUFN2SnhGU3kxaWEzYm1sRk50QkE9Il0sInZlcnNpb24iOjF9",
         "signatures": [{"algorithm": "ed25519", "keyID": "f950a25df6b4ee39", "signature": "LKuidbSfaIPAUsdPlj0iv1Ha54OOzyS16wbVQfHs0PVSZ54RrLN6u61MkDD0Ia6x3dzFtTTQ5jmzpa8LG+FaBQ=="}]}
        """
        return try! TrustedRoot(acceptedFile: Array(file.utf8), file: "fixed root")
    }()
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func run(_ bytes: [UInt8]) {
        do {
            _ = try root.next(bytes, file: "roots/2.root.json")
            preconditionFailure("a root passed without a signature by the trusted root key")
        } catch {
            _ = error.description
        }
        do {
            _ = try root.verifyTimestamp(bytes, now: now, minimumVersion: 1)
            preconditionFailure("a timestamp passed without a signature by the trusted timestamp key")
        } catch {
            _ = error.description
        }
        do {
            _ = try root.verifyCatalog(bytes, now: now)
            preconditionFailure("a catalog passed without a signature by the trusted catalog key")
        } catch {
            _ = "\(error)"
        }
        // A self-signed root may be accepted as a stored one; it must then say what it holds.
        if let accepted = try? TrustedRoot(acceptedFile: bytes, file: "input") {
            precondition(accepted.metadata != nil && !accepted.rootKeys.isEmpty, "an accepted root names no root key")
        }
        for role in TrustRole.allCases {
            if let envelope = try? SignedEnvelope.parse(bytes, role: role, file: "input") {
                precondition((try? SignedEnvelope.parse(envelope.encoded(), role: role, file: "input")) == envelope,
                             "an accepted envelope does not survive encoding")
                decode(envelope.payload)
            }
        }
        decode(bytes)
        if let ts = try? TimestampMetadata.decode(bytes, file: "input") {
            _ = try? ts.checkCatalogBytes(bytes)
        }
    }

    /// The payload decoders; what they accept must encode back to what decodes equal.
    private static func decode(_ payload: [UInt8]) {
        if let r = try? RootMetadata.decode(payload, file: "input") {
            precondition((try? RootMetadata.decode(r.encoded(), file: "input")) == r, "an accepted root payload does not survive encoding")
        }
        if let t = try? TimestampMetadata.decode(payload, file: "input") {
            precondition((try? TimestampMetadata.decode(t.encoded(), file: "input")) == t, "an accepted timestamp payload does not survive encoding")
        }
    }
}
