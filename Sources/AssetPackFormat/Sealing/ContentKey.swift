import CCrypto
import Foundation

/// The 256-bit AES key that seals one encrypted ("paid") pack's chunk frames, index and patch
/// frames (docs/FORMAT.md, "Sealed packs"). It is made at random by `publish --encrypt`, kept
/// in the publisher's key store and handed to entitled clients by `assetpack key-server`.
///
/// Its *key ID* — SHA-256 of `assetpack-content-key-id 1\n` followed by the key — is public:
/// the catalog and the sealed index name it, so that a client knows which key to ask for and
/// can tell a wrong key from the right one before it opens a byte.
public struct ContentKey: Sendable, Hashable, CustomStringConvertible {
    public static let byteCount = 32
    /// The 32 key bytes.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A key from the system's random source (OpenSSL's CSPRNG).
    public static func generate() -> ContentKey {
        var b = [UInt8](repeating: 0, count: byteCount)
        precondition(ccrypto_random(&b, byteCount) == 1, "the system's random source failed")
        return ContentKey(bytes: b)!
    }

    /// Parses standard base64 of exactly 32 bytes.
    public init?(base64: String) {
        guard let data = Data(base64Encoded: base64) else { return nil }
        self.init(bytes: [UInt8](data))
    }

    public var base64: String { Data(bytes).base64EncodedString() }

    /// The public name of this key.
    public var keyID: SHA256Digest { SHA256Digest.hash(Array("assetpack-content-key-id 1\n".utf8) + bytes) }

    /// Never prints the key itself.
    public var description: String { "content key \(keyID.hex.prefix(16))…" }

    /// HMAC-SHA-256 of `data` under this key.
    func mac(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        precondition(ccrypto_hmac_sha256(bytes, data.baseAddress, data.count, &out) == 1, "HMAC-SHA-256 failed")
        return out
    }
}
