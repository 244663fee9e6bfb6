import AssetPackFormat
@testable import AssetPackPackaging
import Testing
import TestSupport
import TestRepositories

/// Patch frames on their own: made against a base with zstd's reference prefix, applied only
/// when base, frame and result all check out (docs/FORMAT.md, "Patch file").
@Suite struct PatchFrameTests {
    let base = patternBytes(300_000, seed: 3)
    /// The base with a few 16-byte records rewritten.
    var chunk: [UInt8] {
        var c = base
        for k in 0..<8 { c.replaceSubrange(k * 30_000..<k * 30_000 + 16, with: patternBytes(16, seed: UInt64(40 + k))) }
        return c
    }

    func entry(_ frame: [UInt8], chunk: [UInt8], base: [UInt8]) -> PatchEntry {
        PatchEntry(chunkDigest: SHA256Digest.hash(chunk), frameOffset: 16, frameSize: UInt32(frame.count), chunkSize: UInt32(chunk.count),
                   baseOffset: 0, baseLength: UInt32(base.count), baseDigest: SHA256Digest.hash(base))
    }

    func frame(_ chunk: [UInt8], against base: [UInt8]) -> [UInt8] {
        chunk.withUnsafeBytes { c in base.withUnsafeBytes { b in ZstdCompressor(level: 19).compress(c, prefix: b, level: 19) } }
    }

    @Test func aPatchMakesTheChunkFromItsBaseInAFewBytes() throws {
        let chunk = chunk, f = frame(chunk, against: base)
        #expect(f.count < 1_000)
        let made = try f.withUnsafeBytes { try PatchApplier.apply($0, base: base, entry: entry(f, chunk: chunk, base: base), chunkDigest: SHA256Digest.hash(chunk), decompressor: ZstdDecompressor()) }
        #expect(made == chunk)
    }

    @Test func aModifiedOrMissingBaseIsRefused() {
        let chunk = chunk, f = frame(chunk, against: base)
        // Another file in its place (same size), a short one, none: the result cannot be the
        // chunk, and the base's digest says why. (A change to base bytes the frame does not refer
        // to still makes the right chunk, verified by its digest.)
        let modified = patternBytes(base.count, seed: 99)
        for wrong in [modified, Array(base.prefix(1000)), []] {
            #expect(throws: PatchApplier.Failure.baseMismatch) {
                try f.withUnsafeBytes { try PatchApplier.apply($0, base: wrong, entry: entry(f, chunk: chunk, base: base), chunkDigest: SHA256Digest.hash(chunk), decompressor: ZstdDecompressor()) }
            }
        }
    }

    @Test func aResultThatDoesNotHashToTheChunkIsRefused() {
        let chunk = chunk, f = frame(chunk, against: base)
        var other = chunk
        other[0] ^= 1
        // The table (and index) name another chunk than the frame makes.
        let e = entry(f, chunk: other, base: base)
        #expect {
            try f.withUnsafeBytes { try PatchApplier.apply($0, base: base, entry: e, chunkDigest: SHA256Digest.hash(other), decompressor: ZstdDecompressor()) }
        } throws: { error in
            if case PatchApplier.Failure.resultMismatch = error { return true }
            return false
        }
    }

    @Test func aTruncatedFrameIsRefused() {
        let chunk = chunk, f = Array(frame(chunk, against: base).dropLast(7))
        #expect {
            try f.withUnsafeBytes { try PatchApplier.apply($0, base: base, entry: entry(f, chunk: chunk, base: base), chunkDigest: SHA256Digest.hash(chunk), decompressor: ZstdDecompressor()) }
        } throws: { error in
            if case PatchApplier.Failure.frame(.corrupt) = error { return true }
            return false
        }
    }

    /// A frame that declares far more output than the chunk: refused from its header, before any
    /// output memory is committed.
    @Test func aBombThatDeclaresMoreThanTheChunkIsRefusedFromItsHeader() {
        let huge = [UInt8](repeating: 0, count: 64 << 20)
        let bomb = frame(huge, against: base)
        #expect(bomb.count < 64 << 10)
        let chunk = chunk
        let e = entry(bomb, chunk: chunk, base: base)
        #expect(throws: PatchApplier.Failure.frame(.tooLarge(declared: 64 << 20, limit: chunk.count))) {
            try bomb.withUnsafeBytes { try PatchApplier.apply($0, base: base, entry: e, chunkDigest: SHA256Digest.hash(chunk), decompressor: ZstdDecompressor()) }
        }
    }

    @Test func theBaseOfAChangedChunkIsTheOldStretchBetweenItsUnchangedNeighbours() throws {
        // Old: A B C; new: A B' C with 4 KiB inserted into B. The base of B' is exactly old B.
        let dir = try TemporaryDirectory("patch-base"); defer { dir.remove() }
        let a = patternBytes(1 << 20, seed: 1), b = patternBytes(1 << 20, seed: 2), c = patternBytes(1 << 20, seed: 3)
        var edited = b
        edited.insert(contentsOf: patternBytes(4096, seed: 9), at: 500_000)
        try dir.write("v1/f.bin", a + b + c)
        try dir.write("v2/f.bin", a + edited + c)
        let m = { (v: String) in """
            { "assetPackID": "P", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [ { "directory": "." } ], "platforms": ["iOS"], "sourceRoot": "\(v)" }
            """ }
        let (old, _) = try packManifest(m("v1"), in: dir, output: "v1.pack")
        let (new, _) = try packManifest(m("v2"), in: dir, output: "v2.pack")
        let oldReader = try PackReader(path: old), newReader = try PackReader(path: new)
        let candidates = PatchWriter().candidates(old: oldReader.index, new: newReader.index)
        #expect(!candidates.isEmpty)
        let oldDigests = Set(oldReader.index.chunks.map(\.digest))
        for cand in candidates {
            #expect(!oldDigests.contains(newReader.index.chunks[cand.chunk].digest))
            let upper: UInt64 = 3 << 20
            #expect(cand.base.upperBound <= upper)
        }
        let written = try PatchWriter().write(old: oldReader, new: newReader, to: dir.file("p.patch"))
        let made = try #require(written)
        // The inserted bytes are all the patches need to carry, give or take frame overhead.
        #expect(made.size < 4096 + 2048)
        let bytes = try #require(dir.contents("p.patch"))
        let table = try PatchTable.decode(Array(bytes[Int(made.tableOffset)...]), tableOffset: made.tableOffset)
        #expect(table == made.table && table.from == oldReader.digest && table.to == newReader.digest)
        for e in table.entries {
            let base = try PatchWriter.streamBytes(oldReader, e.baseOffset..<e.baseOffset + UInt64(e.baseLength), decompressor: ZstdDecompressor())
            let frame = Array(bytes[Int(e.frameOffset)..<Int(e.frameOffset) + Int(e.frameSize)])
            let chunk = try frame.withUnsafeBytes { try PatchApplier.apply($0, base: base, entry: e, chunkDigest: e.chunkDigest, decompressor: ZstdDecompressor()) }
            #expect(SHA256Digest.hash(chunk) == e.chunkDigest)
        }
    }
}

/// The patch table's rules, each a clear error naming the entry and the byte offset.
@Suite struct PatchTableTests {
    let d1 = SHA256Digest.hash([1]), d2 = SHA256Digest.hash([2])

    func entry(_ digest: SHA256Digest, at offset: UInt64, frame: UInt32 = 10) -> PatchEntry {
        PatchEntry(chunkDigest: digest, frameOffset: offset, frameSize: frame, chunkSize: 1000, baseOffset: 0, baseLength: 1000, baseDigest: d1)
    }

    @Test func aTableRoundTrips() throws {
        let table = PatchTable(from: d1, to: d2, entries: [entry(d1, at: 16), entry(d2, at: 26)])
        #expect(try PatchTable.decode(table.encoded(), tableOffset: 36) == table)
    }

    @Test(arguments: [
        ("frames not end to end", [PatchEntry(chunkDigest: SHA256Digest.hash([1]), frameOffset: 17, frameSize: 10, chunkSize: 1000, baseOffset: 0, baseLength: 1000, baseDigest: SHA256Digest.hash([1]))], UInt64(27), "expected 16"),
        ("frame larger than its bound", [PatchEntry(chunkDigest: SHA256Digest.hash([1]), frameOffset: 16, frameSize: 2000, chunkSize: 1000, baseOffset: 0, baseLength: 1000, baseDigest: SHA256Digest.hash([1]))], UInt64(2016), "frame of 2000 bytes"),
        ("empty base", [PatchEntry(chunkDigest: SHA256Digest.hash([1]), frameOffset: 16, frameSize: 10, chunkSize: 1000, baseOffset: 0, baseLength: 0, baseDigest: SHA256Digest.hash([1]))], UInt64(26), "base of 0 bytes"),
        ("table elsewhere", [PatchEntry(chunkDigest: SHA256Digest.hash([1]), frameOffset: 16, frameSize: 10, chunkSize: 1000, baseOffset: 0, baseLength: 1000, baseDigest: SHA256Digest.hash([1]))], UInt64(99), "not where the table starts"),
    ])
    func aBrokenTableIsRefused(_ c: (String, [PatchEntry], UInt64, String)) {
        let bytes = PatchTable(from: d1, to: d2, entries: c.1).encoded()
        #expect { try PatchTable.decode(bytes, tableOffset: c.2) } throws: { "\($0)".contains(c.3) }
    }

    @Test func aTruncatedTableOrAnotherVersionIsRefused() {
        let bytes = PatchTable(from: d1, to: d2, entries: [entry(d1, at: 16)]).encoded()
        #expect { try PatchTable.decode(Array(bytes.dropLast(3)), tableOffset: 26) } throws: { "\($0)".contains("1 entries need 92 bytes, 89 follow") }
        var other = bytes
        other[8] = 4
        #expect { try PatchTable.decode(other, tableOffset: 26) } throws: { "\($0)".contains("unsupported patch format version 4") }
        // Version 3 ends with an index patch: a table without one is cut short.
        other[8] = 3
        #expect { try PatchTable.decode(other, tableOffset: 26) } throws: { "\($0)".contains("1 entries need 92 bytes and the index patch at least 17, 92 follow") }
        // Version 2 is a sealed pack's table: read only out of a sealed table region.
        other[8] = 2
        #expect { try PatchTable.decode(other, tableOffset: 26) } throws: { "\($0)".contains("declares version 2 (a sealed pack's) but is stored in plaintext") }
        #expect { try PatchTable.decode(PatchTable(from: d1, to: d1, entries: []).encoded(), tableOffset: 16) } throws: { "\($0)".contains("to itself") }
    }

    @Test func aTableWithAnIndexPatchRoundTrips() throws {
        for entries in [[entry(d1, at: 16)], []] {
            let table = PatchTable(from: d1, to: d2, entries: entries, indexPatch: IndexPatch(expandedLength: 5000, frame: [1, 2, 3]))
            #expect(table.formatVersion == 3)
            #expect(try PatchTable.decode(table.encoded(), tableOffset: 16 + UInt64(entries.count) * 10) == table)
        }
    }

    /// The index patch's rules: an expanded length of 1 … 2^27 and a frame of at least one byte
    /// that ends the table, each refusal naming the region and the offset.
    @Test func anIndexPatchOutsideItsRulesIsRefused() {
        let preamble = 8 + 4 + 4 + 32 + 32 + 8 + 92
        func table(expanded: UInt64, frame: [UInt8]) -> [UInt8] {
            PatchTable(from: d1, to: d2, entries: [entry(d1, at: 16)], indexPatch: IndexPatch(expandedLength: expanded, frame: frame)).encoded()
        }
        #expect { try PatchTable.decode(table(expanded: 0, frame: [1]), tableOffset: 26) } throws: {
            "\($0)".contains("index patch at byte \(26 + preamble)") && "\($0)".contains("expanded index of 0 bytes is outside 1…134217728")
        }
        #expect { try PatchTable.decode(table(expanded: (1 << 27) + 1, frame: [1]), tableOffset: 26) } throws: { "\($0)".contains("expanded index of 134217729 bytes") }
        var longer = table(expanded: 10, frame: [1, 2])
        longer.append(9)
        #expect { try PatchTable.decode(longer, tableOffset: 26) } throws: {
            "\($0)".contains("index patch at byte \(26 + preamble + 8)") && "\($0)".contains("frame of 2 bytes does not end the table (3 bytes remain)")
        }
        #expect { try PatchTable.decode(Array(table(expanded: 10, frame: [1, 2]).dropLast()), tableOffset: 26) } throws: { "\($0)".contains("frame of 2 bytes does not end the table (1 bytes remain)") }
    }
}
