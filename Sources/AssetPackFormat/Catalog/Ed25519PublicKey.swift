import CCrypto
import Foundation

/// An Ed25519 public key (32 raw bytes), the half of a publisher's key pair that clients hold.
///
/// Text form: `ed25519:` followed by the standard base64 (with padding) of the 32 bytes, as
/// `assetpack keygen` prints it and writes it to `KEYFILE.pub` (docs/FORMAT.md, "Keys").
public struct Ed25519PublicKey: Sendable, Hashable, CustomStringConvertible {
    public static let textPrefix = "ed25519:"
    public let rawBytes: [UInt8]

    /// Wraps 32 raw bytes; nil for any other length.
    public init?(rawBytes: [UInt8]) {
        guard rawBytes.count == 32 else { return nil }
        self.rawBytes = rawBytes
    }

    /// Parses the text form (surrounding white space is ignored).
    public init(text: String) throws(KeyError) {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard t.hasPrefix(Self.textPrefix) else {
            throw .malformed("a public key starts with \"\(Self.textPrefix)\" followed by base64; found \"\(t.prefix(24))\"")
        }
        guard let data = Data(base64Encoded: String(t.dropFirst(Self.textPrefix.count))) else {
            throw .malformed("the text after \"\(Self.textPrefix)\" is not valid base64")
        }
        guard let key = Ed25519PublicKey(rawBytes: [UInt8](data)) else {
            throw .malformed("an Ed25519 public key has 32 bytes, this one has \(data.count)")
        }
        self = key
    }

    /// What `--public-key` takes: the text form itself, or the path of a file holding it
    /// (such as `KEYFILE.pub`).
    public init(argument: String) throws(KeyError) {
        if argument.hasPrefix(Self.textPrefix) {
            try self.init(text: argument)
            return
        }
        guard let data = FileManager.default.contents(atPath: argument) else {
            throw .unreadable("\(argument) is neither a public key (\"\(Self.textPrefix)…\") nor a readable file")
        }
        do { try self.init(text: String(decoding: data, as: UTF8.self)) } catch {
            throw .malformed("\(argument): \(error.reason)")
        }
    }

    /// `ed25519:<base64>`
    public var text: String { Self.textPrefix + Data(rawBytes).base64EncodedString() }
    public var description: String { text }

    /// The first 16 hex digits of the SHA-256 of the raw key: names the key in a catalog's
    /// signatures so that a verifier can tell "signed by another key" from "tampered".
    public var keyID: String { String(SHA256Digest.hash(rawBytes).hex.prefix(16)) }

    /// Whether `signature` is this key's Ed25519 signature of exactly `message`.
    public func isValidSignature(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard signature.count == 64 else { return false }
        return message.withUnsafeBytes { m in ccrypto_ed25519_verify(rawBytes, m.baseAddress, m.count, signature) } == 1
    }
}

/// A key that could not be read or parsed.
public enum KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    case unreadable(String)
    case exists(String)
    case crypto(String)

    public var reason: String {
        switch self { case .malformed(let m), .unreadable(let m), .exists(let m), .crypto(let m): return m }
    }

    public var description: String { reason }
}
