import AssetPackFormat

/// A sealed pack's index region, patch table region and sealed frames as a client reads them. The
/// input is a content key (32 bytes), the region's file offset (8 bytes, little-endian) and the
/// region. `SealedIndex.decode` must refuse a malformed region, and `open` must refuse a region
/// sealed under another key, a changed byte or an inner index that breaks a rule; an accepted
/// index is a version-3 index that carries the key. The same region read as a sealed patch table
/// (`PatchTable.decode(_:tableOffset:contentKey:)`) must be refused unless it is one sealed under
/// the key holding a version-2 table that keeps every rule; read without a key it must be refused
/// whenever it is sealed or declares version 2. Independently, the bytes after the key are opened as a
/// sealed chunk frame (only an authentic frame opens: its plaintext must seal back to a frame
/// that opens to it) and deciphered as a client does (GCM's keystream alone: any frame gives as
/// many bytes as it carries, the same as `open` when it opens), and sealing them must round-trip.
enum SealedFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 40, let key = ContentKey(bytes: Array(bytes[0..<32])) else { return }
        let offset = bytes[32..<40].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        let region = Array(bytes[40...])
        if let sealed = try? SealedIndex.decode(region, indexOffset: offset) {
            precondition(sealed.frame.count > SealedFrame.overhead, "a sealed index without a frame was accepted")
            if let index = try? sealed.open(with: key, indexOffset: offset) {
                precondition(index.isSealed && index.contentKey == key, "an opened index is not a sealed one carrying its key")
                precondition(sealed.keyID == key.keyID, "an index opened with a key it does not name")
            }
        }
        if let table = try? PatchTable.decode(region, tableOffset: offset, contentKey: key) {
            precondition(table.isSealed && SealedPatchTable.isSealed(region), "a patch table was accepted for a sealed pack without being sealed")
            precondition((try? SealedPatchTable.decode(region, tableOffset: offset))?.keyID == key.keyID, "a patch table opened with a key it does not name")
            precondition(table.from != table.to, "a table from a version to itself was accepted")
        }
        if let table = try? PatchTable.decode(region, tableOffset: offset, contentKey: nil) {
            precondition(!table.isSealed && !SealedPatchTable.isSealed(region), "a sealed patch table was accepted for an unsealed pack")
        }
        let body = Array(bytes[32...])
        // Any frame deciphers (GCM's keystream, no tag) to as many bytes as it carries; one that
        // opens deciphers to what it opens to.
        let deciphered = decipher(body, key: key)
        precondition((deciphered == nil) == (body.count < SealedFrame.overhead), "a frame of \(body.count) bytes deciphered wrongly")
        if let plain = try? SealedFrame.open(body, purpose: .chunk, key: key) {
            precondition(plain.count == body.count - SealedFrame.overhead, "an opened frame has the wrong length")
            precondition(deciphered == plain, "a frame that opens deciphers to other bytes")
            precondition((try? SealedFrame.open(SealedFrame.seal(plain, purpose: .chunk, key: key), purpose: .chunk, key: key)) == plain,
                         "a resealed frame does not open to its plaintext")
        }
        let resealed = SealedFrame.seal(body, purpose: .patch, key: key)
        precondition((try? SealedFrame.open(resealed, purpose: .patch, key: key)) == body, "sealing did not round-trip")
        precondition(decipher(resealed, key: key) == body, "a sealed frame does not decipher to its plaintext")
        precondition((try? SealedFrame.open(resealed, purpose: .chunk, key: key)) == nil, "a patch frame opened as a chunk frame")
        precondition((try? SealedFrame.open(resealed, purpose: .patchTable, key: key)) == nil, "a patch frame opened as a patch table")
    }

    private static func decipher(_ frame: [UInt8], key: ContentKey) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: max(frame.count, 1))
        let n = frame.withUnsafeBytes { f in
            out.withUnsafeMutableBytes { o in try? SealedFrame.decipher(f, purpose: .chunk, key: key, into: o) }
        }
        guard let n else { return nil }
        return Array(out[0..<n])
    }
}
