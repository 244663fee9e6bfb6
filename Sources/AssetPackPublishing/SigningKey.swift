import AssetPackFormat
import CCrypto
import Foundation

/// A publisher's Ed25519 private key. On disk it is unencrypted PEM PKCS#8
/// (`-----BEGIN PRIVATE KEY-----`), the form `openssl genpkey -algorithm ed25519` writes and
/// `openssl pkey` reads (docs/FORMAT.md, "Keys").
public struct SigningKey: Sendable {
    /// The 32-byte private seed.
    private let seed: [UInt8]
    public let publicKey: Ed25519PublicKey

    /// A new random key pair (libcrypto's generator).
    public static func generate() throws(KeyError) -> SigningKey {
        var seed = [UInt8](repeating: 0, count: 32), pub = [UInt8](repeating: 0, count: 32)
        guard ccrypto_ed25519_generate(&seed, &pub) == 1, let key = Ed25519PublicKey(rawBytes: pub) else {
            throw .crypto("libcrypto could not generate an Ed25519 key")
        }
        return SigningKey(seed: seed, publicKey: key)
    }

    private init(seed: [UInt8], publicKey: Ed25519PublicKey) {
        self.seed = seed
        self.publicKey = publicKey
    }

    /// Reads a key from PEM text.
    public init(pem: [UInt8], source: String = "the key") throws(KeyError) {
        var seed = [UInt8](repeating: 0, count: 32)
        let result = pem.withUnsafeBytes { ccrypto_ed25519_read_private_pem($0.baseAddress, $0.count, &seed) }
        switch result {
        case 1: break
        case 0: throw .malformed("\(source) is a private key, but not an Ed25519 one")
        default: throw .malformed("\(source) is not an unencrypted PEM private key (\"-----BEGIN PRIVATE KEY-----\")")
        }
        var pub = [UInt8](repeating: 0, count: 32)
        guard ccrypto_ed25519_public_key(seed, &pub) == 1, let key = Ed25519PublicKey(rawBytes: pub) else {
            throw .crypto("libcrypto could not derive the public key of \(source)")
        }
        self.init(seed: seed, publicKey: key)
    }

    /// Reads the key file at `path`.
    public init(contentsOf path: String) throws(KeyError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable("cannot read the key file \(path)")
        }
        try self.init(pem: [UInt8](data), source: path)
    }

    /// The PEM text of the private key.
    public func pem() throws(KeyError) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: 512)
        let n = ccrypto_ed25519_private_pem(seed, &buffer, buffer.count)
        guard n > 0 else { throw .crypto("libcrypto could not encode the private key as PEM") }
        return buffer[..<n].map { UInt8(bitPattern: $0) }
    }

    /// The Ed25519 signature of exactly `message`.
    public func sign(_ message: [UInt8]) throws(KeyError) -> [UInt8] {
        var sig = [UInt8](repeating: 0, count: 64)
        let ok = message.withUnsafeBytes { ccrypto_ed25519_sign(seed, $0.baseAddress, $0.count, &sig) }
        guard ok == 1 else { throw .crypto("libcrypto could not sign") }
        return sig
    }
}
