import CCrypto
import Foundation

/// A SHA-256 digest, computed with OpenSSL's libcrypto.
public struct SHA256Digest: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let byteCount = 32
    /// The 32 bytes, as four big-endian words (cheap to hash and compare).
    private var w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    public init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 32, "a SHA-256 digest has 32 bytes")
        var words = [UInt64](repeating: 0, count: 4)
        for (i, b) in bytes.enumerated() { words[i / 8] = words[i / 8] << 8 | UInt64(b) }
        (w0, w1, w2, w3) = (words[0], words[1], words[2], words[3])
    }

    /// Parses 64 hex digits; nil otherwise.
    public init?(hex: String) {
        let u = Array(hex.utf8)
        guard u.count == 64 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(32)
        for i in stride(from: 0, to: 64, by: 2) {
            guard let hi = Self.nibble(u[i]), let lo = Self.nibble(u[i + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        self.init(bytes: bytes)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x57
        case 0x41...0x46: return c - 0x37
        default: return nil
        }
    }

    /// The digest of `buffer`.
    public static func hash(_ buffer: UnsafeRawBufferPointer) -> SHA256Digest {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = out.withUnsafeMutableBufferPointer { ccrypto_sha256(buffer.baseAddress, buffer.count, $0.baseAddress) }
        precondition(ok == 1, "libcrypto SHA-256 failed")
        return SHA256Digest(bytes: out)
    }

    public static func hash(_ bytes: some ContiguousBytes) -> SHA256Digest {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The first 8 bytes, as a big-endian word: a key for tables of many digests that look the
    /// whole digest up again on a hit.
    package var leadingWord: UInt64 { w0 }

    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(32)
        for w in [w0, w1, w2, w3] { for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: w >> UInt64(s))) } }
        return out
    }

    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { hex }

    public static func < (a: Self, b: Self) -> Bool { (a.w0, a.w1, a.w2, a.w3) < (b.w0, b.w1, b.w2, b.w3) }
}

/// Incremental SHA-256 for data that arrives in pieces (a file read block by block, a download).
public final class SHA256Hasher {
    private let ctx: OpaquePointer

    public init() {
        guard let c = ccrypto_sha256_new() else { fatalError("libcrypto could not start SHA-256") }
        ctx = c
    }

    deinit { EVP_MD_CTX_free(ctx) }

    public func update(_ buffer: UnsafeRawBufferPointer) {
        guard buffer.count > 0 else { return }
        EVP_DigestUpdate(ctx, buffer.baseAddress, buffer.count)
    }

    public func update(_ bytes: some ContiguousBytes) { bytes.withUnsafeBytes { update($0) } }

    public func finalize() -> SHA256Digest {
        var out = [UInt8](repeating: 0, count: 32)
        var n: UInt32 = 0
        out.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(ctx, $0.baseAddress, &n) }
        return SHA256Digest(bytes: out)
    }
}
