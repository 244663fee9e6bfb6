@testable import AssetPackPackaging
import Foundation
import Testing
@testable import AssetPackFormat
import TestSupport
import TestRepositories

/// The patch table of a sealed pack's patch file (patch format version 2): sealed under the
/// pack's content key like the index, so it names no changed chunk in plaintext; opened only with
/// that key, only as a patch table, and never accepted in plaintext for a sealed pack.
@Suite struct SealedPatchTableTests {
    let manifest = """
    { "assetPackID": "Paid", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [ { "directory": "src" } ], "platforms": ["iOS"] }
    """

    /// Two versions of a sealed pack under `key` (16-byte edits scattered over a 1 MiB file in
    /// v2) and the patch file between them.
    func sealedPatch(_ dir: TemporaryDirectory, key: ContentKey) throws -> (old: PackReader, new: PackReader, patch: PatchWriter.Result, bytes: [UInt8]) {
        var db = patternBytes(1 << 20, seed: 5)
        try dir.write("src/db.bin", db)
        try dir.write("src/notes.txt", textBytes(100_000, seed: 6))
        let v1 = try PackReader(path: try packManifest(manifest, in: dir, output: "v1.pack") { $0.sealing = key; $0.threads = 2 }.0, keys: [key])
        for k in 0..<6 { db.replaceSubrange(k * 170_000 + 9..<k * 170_000 + 25, with: patternBytes(16, seed: UInt64(50 + k))) }
        try dir.write("src/db.bin", db)
        let v2 = try PackReader(path: try packManifest(manifest, in: dir, output: "v2.pack") { $0.sealing = key; $0.threads = 2 }.0, keys: [key])
        var writer = PatchWriter()
        writer.threads = 2
        let made = try #require(try writer.write(old: v1, new: v2, to: dir.file("v1-v2.patch")))
        return (v1, v2, made, readFile(dir.file("v1-v2.patch")))
    }

    func region(_ r: (old: PackReader, new: PackReader, patch: PatchWriter.Result, bytes: [UInt8])) -> [UInt8] {
        Array(r.bytes[Int(r.patch.tableOffset)...])
    }

    @Test func aSealedPacksPatchTableIsSealedAndNamesNoChangedChunk() throws {
        let dir = try TemporaryDirectory()
        let key = ContentKey.generate()
        let made = try sealedPatch(dir, key: key)
        let file = Data(made.bytes)
        // Patch format version 2 in the header, a sealed table region after the frames.
        #expect(Array(made.bytes[8..<12]) == [2, 0, 0, 0])
        let table = region(made)
        #expect(SealedPatchTable.isSealed(table))
        #expect(UInt64(table.count) == made.patch.tableLength && SHA256Digest.hash(table) == made.patch.tableDigest)
        // Neither the changed chunks' digests, their bases' digests nor the two pack digests
        // appear anywhere in the file.
        #expect(!made.patch.table.entries.isEmpty)
        for e in made.patch.table.entries {
            #expect(file.range(of: Data(e.chunkDigest.bytes)) == nil)
            #expect(file.range(of: Data(e.baseDigest.bytes)) == nil)
        }
        #expect(file.range(of: Data(made.new.digest.bytes)) == nil && file.range(of: Data(made.old.digest.bytes)) == nil)
        #expect(file.range(of: Data(PatchLayout.tableMagic)) == nil)
        // Opened with the key: the table the writer made, a version-2 one, whose patches make
        // the new version's chunks.
        let opened = try PatchTable.decode(table, tableOffset: made.patch.tableOffset, contentKey: key)
        #expect(opened == made.patch.table && opened.isSealed)
        let decompressor = ZstdDecompressor()
        for e in opened.entries {
            let base = try PatchWriter.streamBytes(made.old, e.baseOffset..<e.baseOffset + UInt64(e.baseLength), decompressor: decompressor)
            let frame = made.bytes[Int(e.frameOffset)..<Int(e.frameOffset) + Int(e.frameSize)]
            let chunk = try frame.withUnsafeBytes { try PatchApplier.apply($0, base: base, entry: e, chunkDigest: e.chunkDigest, decompressor: decompressor, key: key) }
            #expect(SHA256Digest.hash(chunk) == e.chunkDigest)
        }
    }

    @Test func aTamperedSealedPatchTableIsRefusedNamingTheRegion() throws {
        let dir = try TemporaryDirectory()
        let key = ContentKey.generate()
        let made = try sealedPatch(dir, key: key)
        let table = region(made)
        let offset = made.patch.tableOffset
        for position in [SealedPatchTable.headerSize, SealedPatchTable.headerSize + 20, table.count - 1] {
            var tampered = table
            tampered[position] ^= 0x01
            #expect {
                try PatchTable.decode(tampered, tableOffset: offset, contentKey: key)
            } throws: { "\($0)" == "malformed sealed patch table at byte \(offset + 48): AES-256-GCM authentication failed: the frame was tampered with or the key is not the one it was sealed with" }
        }
        // Another key, or a region that names another key.
        let other = ContentKey.generate()
        #expect(throws: PackError.wrongContentKey(expected: key.keyID, given: other.keyID)) {
            try PatchTable.decode(table, tableOffset: offset, contentKey: other)
        }
        // A reserved field or version changed in the public part.
        var version = table
        version[8] = 1
        #expect { try PatchTable.decode(version, tableOffset: offset, contentKey: key) } throws: { "\($0)".contains("unsupported sealed patch table version 1") }
        // Too short to hold a frame.
        #expect { try PatchTable.decode(Array(table.prefix(60)), tableOffset: offset, contentKey: key) } throws: {
            "\($0)".contains("the sealed patch table frame has 12 bytes")
        }
    }

    @Test func aPlaintextTableForASealedPackOrASealedOneForAnUnsealedPackIsRefused() throws {
        let dir = try TemporaryDirectory()
        let key = ContentKey.generate()
        let made = try sealedPatch(dir, key: key)
        let offset = made.patch.tableOffset
        // The opened table stored in plaintext, as version 2 or relabelled version 1.
        var plain = made.patch.table
        for claimed in [true, false] {
            plain.isSealed = claimed
            #expect {
                try PatchTable.decode(plain.encoded(), tableOffset: offset, contentKey: key)
            } throws: { "\($0)".contains("the pack is sealed but its patch table is not: a sealed pack's patch table is never stored in plaintext") }
        }
        // Version 2 in plaintext is refused even where no key is at hand.
        #expect {
            try PatchTable.decode(made.patch.table.encoded(), tableOffset: offset, contentKey: nil)
        } throws: { "\($0)".contains("declares version 2 (a sealed pack's) but is stored in plaintext") }
        // A sealed table for a pack the catalog says is not sealed.
        #expect {
            try PatchTable.decode(region(made), tableOffset: offset, contentKey: nil)
        } throws: { "\($0)".contains("the patch table is sealed but the pack is not") }
        // A sealed table that holds a version-1 table.
        plain.isSealed = false
        var w = ByteWriter()
        w.append(SealedPatchTable.magic)
        w.append(PatchLayout.sealedFormatVersion)
        w.append(UInt32(0))
        w.append(key.keyID.bytes)
        w.append(SealedFrame.seal(plain.encoded(), purpose: .patchTable, key: key))
        #expect {
            try PatchTable.decode(w.bytes, tableOffset: offset, contentKey: key)
        } throws: { "\($0)".contains("the sealed table holds a version-1 table") }
    }

    @Test func aSealedIndexOrPatchFrameCannotStandInForAPatchTable() throws {
        let dir = try TemporaryDirectory()
        let key = ContentKey.generate()
        let made = try sealedPatch(dir, key: key)
        let tableBytes = made.patch.table.encoded()
        // The same plaintext sealed for another purpose, under the table region's header.
        for purpose in [SealedFrame.Purpose.index, .patch, .chunk] {
            var w = ByteWriter()
            w.append(Array(region(made).prefix(SealedPatchTable.headerSize)))
            w.append(SealedFrame.seal(tableBytes, purpose: purpose, key: key))
            #expect {
                try PatchTable.decode(w.bytes, tableOffset: made.patch.tableOffset, contentKey: key)
            } throws: { "\($0)".contains("AES-256-GCM authentication failed") }
        }
        // The sealed index region in the table's place.
        let pack = readFile(made.new.path)
        let index = Array(pack[Int(made.new.trailer.indexOffset)..<Int(made.new.trailer.indexOffset + made.new.trailer.indexLength)])
        #expect {
            try PatchTable.decode(index, tableOffset: made.patch.tableOffset, contentKey: key)
        } throws: { "\($0)".contains("its patch table is not") }
    }
}
