import AssetPackFormat

/// A patch file as the client reads it: the input is the file's bytes, the table taken from the
/// offset its last 4 bytes give (little-endian, modulo the length), as the catalog would locate
/// it. `PatchTable.decode` must refuse any table that breaks a rule; for an accepted one, every
/// entry whose frame lies in the input and whose base is at most 1 MiB is applied against a
/// deterministic base: `PatchApplier` must either refuse it or return exactly the chunk's size
/// with the digest the entry names (a bomb, a short frame or a wrong result is always refused).
/// An index patch is applied against the bytes before the table taken as the previous index: it
/// must be refused or give bytes that hash to the table's `to` digest.
enum PatchFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        guard bytes.count >= 4 else { return }
        let body = Array(bytes.dropLast(4))
        let tail = bytes.suffix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        let tableOffset = body.isEmpty ? 0 : tail % body.count
        guard let table = try? PatchTable.decode(Array(body[tableOffset...]), tableOffset: UInt64(tableOffset)) else { return }
        precondition(table.from != table.to, "a table from a version to itself was accepted")
        if let indexPatch = table.indexPatch {
            precondition(table.formatVersion == PatchLayout.indexPatchFormatVersion && !table.isSealed, "an index patch in a table of version \(table.formatVersion)")
            if let made = try? indexPatch.apply(to: Array(body[..<tableOffset]), previousOffset: 0, digest: table.to) {
                precondition(SHA256Digest.hash(made) == table.to, "an index patch's result does not hash to the pack digest")
            }
        }
        let decompressor = ZstdDecompressor()
        for e in table.entries.prefix(8) where e.baseLength <= 1 << 20 {
            precondition(e.frameOffset + UInt64(e.frameSize) <= UInt64(tableOffset), "an accepted frame lies past the table's start")
            let frame = body[Int(e.frameOffset)..<Int(e.frameOffset) + Int(e.frameSize)]
            let base = [UInt8](repeating: 0x41, count: Int(e.baseLength))
            // The base digest as the table gives it: a mismatch must be refused before decoding.
            let made = try? frame.withUnsafeBytes { try PatchApplier.apply($0, base: base, entry: e, chunkDigest: e.chunkDigest, decompressor: decompressor) }
            if let made {
                precondition(made.count == Int(e.chunkSize), "a patch made \(made.count) bytes, \(e.chunkSize) declared")
                precondition(SHA256Digest.hash(made) == e.chunkDigest, "a patch's result does not hash to its chunk")
            }
            var matching = e
            matching.baseDigest = SHA256Digest.hash(base)
            let again = try? frame.withUnsafeBytes { try PatchApplier.apply($0, base: base, entry: matching, chunkDigest: e.chunkDigest, decompressor: decompressor) }
            if let again { precondition(again.count == Int(e.chunkSize) && SHA256Digest.hash(again) == e.chunkDigest, "a wrong patch result was returned") }
        }
    }
}
