import CCrypto
import Foundation

/// One sealed frame (docs/FORMAT.md, "Sealed frames"): `nonce (12) ‖ ciphertext ‖ tag (16)`,
/// AES-256-GCM under the pack's content key, with the frame's *purpose* as additional
/// authenticated data, so that a chunk frame cannot stand in for an index, a patch frame or a patch table.
///
/// The nonce is not random: it is the first 12 bytes of HMAC-SHA-256(key, purpose ‖ 0x00 ‖
/// plaintext). The same plaintext under the same key therefore seals to the same bytes (an
/// unchanged chunk stays byte-identical across versions, so delta updates keep working), and two
/// different plaintexts get the same nonce only by a collision of a 96-bit PRF (see
/// docs/SECURITY.md, "Why the nonces do not repeat").
public enum SealedFrame {
    /// What a sealed frame is for; its label is the frame's additional authenticated data.
    public enum Purpose: String, Sendable {
        case chunk = "assetpack-sealed-chunk-3"
        case index = "assetpack-sealed-index-3"
        case patch = "assetpack-sealed-patch-3"
        case patchTable = "assetpack-sealed-patch-table-3"

        var label: [UInt8] {
            switch self {
            case .chunk: return Self.chunkLabel
            case .index: return Self.indexLabel
            case .patch: return Self.patchLabel
            case .patchTable: return Self.patchTableLabel
            }
        }

        // The labels as bytes once, not for every frame opened.
        private static let chunkLabel = Array(Purpose.chunk.rawValue.utf8)
        private static let indexLabel = Array(Purpose.index.rawValue.utf8)
        private static let patchLabel = Array(Purpose.patch.rawValue.utf8)
        private static let patchTableLabel = Array(Purpose.patchTable.rawValue.utf8)
    }

    public static let nonceSize = 12
    public static let tagSize = 16
    /// Bytes a sealed frame adds to its plaintext.
    public static let overhead = nonceSize + tagSize

    /// The nonce for `plaintext` (see the type's comment).
    static func nonce(for plaintext: UnsafeRawBufferPointer, purpose: Purpose, key: ContentKey) -> [UInt8] {
        var input = purpose.label
        input.append(0)
        input.append(contentsOf: plaintext)
        return input.withUnsafeBytes { Array(key.mac($0).prefix(nonceSize)) }
    }

    /// Seals `plaintext` into `out`, which must hold `plaintext.count + overhead` bytes.
    public static func seal(_ plaintext: UnsafeRawBufferPointer, purpose: Purpose, key: ContentKey, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= plaintext.count + overhead, "no room for the sealed frame")
        let nonce = nonce(for: plaintext, purpose: purpose, key: key)
        out.copyBytes(from: nonce)
        let label = purpose.label
        let body = UnsafeMutableRawBufferPointer(rebasing: out[nonceSize..<nonceSize + plaintext.count])
        let tag = UnsafeMutableRawBufferPointer(rebasing: out[nonceSize + plaintext.count..<nonceSize + plaintext.count + tagSize])
        let ok = ccrypto_aes256gcm_seal(key.bytes, nonce, label, label.count, plaintext.baseAddress, plaintext.count,
                                        body.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                        tag.baseAddress!.assumingMemoryBound(to: UInt8.self))
        precondition(ok == 1, "AES-256-GCM failed")
    }

    /// `plaintext` sealed.
    public static func seal(_ plaintext: [UInt8], purpose: Purpose, key: ContentKey) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: plaintext.count + overhead)
        plaintext.withUnsafeBytes { p in out.withUnsafeMutableBytes { seal(p, purpose: purpose, key: key, into: $0) } }
        return out
    }

    /// Why a sealed frame did not open.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Shorter than a nonce and a tag.
        case tooShort(Int)
        /// GCM authentication failed: the key is not the one it was sealed with, or a byte of
        /// it (or of its purpose) was changed.
        case authenticationFailed

        public var description: String {
            switch self {
            case .tooShort(let n): return "a sealed frame has at least \(SealedFrame.overhead) bytes (nonce and tag), this one \(n)"
            case .authenticationFailed: return "AES-256-GCM authentication failed: the frame was tampered with or the key is not the one it was sealed with"
            }
        }
    }

    /// Opens a sealed frame into `out`, which must hold at least `frame.count - overhead` bytes
    /// (nothing is zero-filled first: the decryption writes every byte); returns the
    /// plaintext's length. Only once the tag verifies may `out` be used; when it does not, this
    /// throws and what `out` holds must be discarded.
    public static func open(_ frame: UnsafeRawBufferPointer, purpose: Purpose, key: ContentKey,
                            into out: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        guard frame.count >= overhead else { throw .tooShort(frame.count) }
        let length = frame.count - overhead
        precondition(out.count >= max(length, 1), "no room for the opened frame")
        let label = purpose.label
        let base = frame.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let result = ccrypto_aes256gcm_open(key.bytes, base, label, label.count, base + nonceSize, length, base + nonceSize + length,
                                            out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        guard result == 1 else { throw .authenticationFailed }
        return length
    }

    /// Deciphers a sealed frame into `out` (at least `frame.count - overhead` bytes) without
    /// checking its tag: GCM's own keystream, a third cheaper than `open` on this kind of CPU
    /// (no GHASH). Only for a frame whose plaintext is then checked against a digest that
    /// authenticated data holds: a chunk against its SHA-256 in the sealed index, whose GCM tag
    /// verified. What it returns is the plaintext only if that check passes. Returns the length.
    public static func decipher(_ frame: UnsafeRawBufferPointer, purpose: Purpose, key: ContentKey,
                                into out: UnsafeMutableRawBufferPointer) throws(Failure) -> Int {
        guard frame.count >= overhead else { throw .tooShort(frame.count) }
        let length = frame.count - overhead
        precondition(out.count >= max(length, 1), "no room for the deciphered frame")
        let base = frame.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard ccrypto_aes256gcm_keystream(key.bytes, base, base + nonceSize, length,
                                          out.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 1 else {
            // Too long for one call (never a chunk, far below 2 GiB), or libcrypto failed:
            // opened, tag and all, which says why if it does not open.
            return try open(frame, purpose: purpose, key: key, into: out)
        }
        return length
    }

    /// The plaintext of a sealed frame, only once its tag verifies; nothing of it otherwise.
    public static func open(_ frame: UnsafeRawBufferPointer, purpose: Purpose, key: ContentKey) throws(Failure) -> [UInt8] {
        guard frame.count >= overhead else { throw .tooShort(frame.count) }
        var failure: Failure?
        let out = [UInt8](unsafeUninitializedCapacity: max(frame.count - overhead, 1)) { buf, count in
            count = 0
            do throws(Failure) { count = try open(frame, purpose: purpose, key: key, into: UnsafeMutableRawBufferPointer(buf)) } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return out
    }

    public static func open(_ frame: [UInt8], purpose: Purpose, key: ContentKey) throws(Failure) -> [UInt8] {
        var result: Result<[UInt8], Failure> = .success([])
        frame.withUnsafeBytes { f in result = Result { () throws(Failure) in try open(f, purpose: purpose, key: key) } }
        return try result.get()
    }
}

extension ByteReader {
    /// The rest of a sealed region (the sealed index, the sealed patch table) after its magic and
    /// version: a reserved u32 that must be 0, the content key's ID (32 bytes), then one sealed
    /// frame that fills the region and holds at least one byte. `region` names it in errors.
    mutating func sealedKeyAndFrame(region: String) throws(PackError) -> (keyID: SHA256Digest, frame: [UInt8]) {
        let reservedAt = offset
        guard try u32() == 0 else { throw .malformed(region, at: reservedAt, "reserved field is not 0") }
        let keyID = SHA256Digest(bytes: try bytes(32))
        let frameAt = offset
        let frame = try bytes(remaining)
        guard frame.count > SealedFrame.overhead else {
            throw .malformed(region, at: frameAt, "the \(region) frame has \(frame.count) bytes, fewer than a nonce, a tag and one byte")
        }
        return (keyID, frame)
    }
}
