import AssetPackFormat
@testable import AssetPackPackaging
import Foundation
import Testing
import TestSupport
import TestRepositories

/// The index patch of a patch file (docs/FORMAT.md, "Patch file"): the new index made from the
/// old one through their expanded forms, in a few bytes, and trusted only when the result is the
/// pack the catalog pins.
@Suite struct IndexPatchTests {
    /// 600 small JSON-like files in nested folders; `edited` changes three of them, removes one
    /// and adds one.
    func files(edited: Bool) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for i in 0..<600 { files["levels/\(i / 50)/obj\(1000 + i).json"] = textBytes(200 + (i * 37) % 1800, seed: UInt64(i)) }
        if edited {
            for i in [17, 250, 511] { files["levels/\(i / 50)/obj\(1000 + i).json"] = textBytes(300 + i, seed: UInt64(9000 + i)) }
            files["levels/3/obj1160.json"] = nil
            files["levels/3/obj1160b.json"] = textBytes(999, seed: 77)
        }
        return files
    }

    /// Both versions packed in `dir`, as readers.
    func versions(_ dir: TemporaryDirectory, configure: (inout PackWriter) -> Void = { _ in }) throws -> (PackReader, PackReader) {
        for (name, edited) in [("v1", false), ("v2", true)] {
            for (path, bytes) in files(edited: edited) { try dir.write("\(name)/\(path)", bytes) }
        }
        let m = { (v: String) in """
            { "assetPackID": "P", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [ { "directory": "." } ], "platforms": ["iOS"], "sourceRoot": "\(v)" }
            """ }
        let (old, _) = try packManifest(m("v1"), in: dir, output: "v1.pack", configure: configure)
        let (new, _) = try packManifest(m("v2"), in: dir, output: "v2.pack", configure: configure)
        return (try PackReader(path: old), try PackReader(path: new))
    }

    @Test func anIndexExpandsToItsDecompressedTableAndContractsToItsOwnBytes() throws {
        let dir = try TemporaryDirectory("index-expand"); defer { dir.remove() }
        let (old, _) = try versions(dir)
        let bytes = try old.indexBytes()
        let expanded = try ExpandedIndex.expand(bytes, indexOffset: old.trailer.indexOffset)
        let table = try ExpandedIndex.locate(expanded, base: 0, context: "expanded index", expanded: true)
        #expect(UInt64(expanded.count - table.payloadOffset) == table.tableLength)
        #expect(expanded.count > bytes.count)
        #expect(try ExpandedIndex.contract(expanded) == bytes)
        // The store's copy (the table compressed at level 1) expands to the same bytes.
        #expect(try ExpandedIndex.expand(old.index.encodedForStore(), indexOffset: 0) == expanded)
    }

    @Test func anIndexPatchMakesTheNewIndexFromTheOldInAFewBytes() throws {
        let dir = try TemporaryDirectory("index-patch"); defer { dir.remove() }
        let (old, new) = try versions(dir)
        let made = try #require(try PatchWriter().write(old: old, new: new, to: dir.file("p.patch")))
        let patch = try #require(made.table.indexPatch)
        let newIndex = try new.indexBytes()
        #expect(made.table.formatVersion == PatchLayout.indexPatchFormatVersion)
        #expect(patch.frame.count * 10 < newIndex.count, "index patch of \(patch.frame.count) bytes for an index of \(newIndex.count)")
        let file = try #require(dir.contents("p.patch"))
        #expect(Array(file[8..<12]) == [3, 0, 0, 0], "the header declares the table's version")
        let table = try PatchTable.decode(Array(file[Int(made.tableOffset)...]), tableOffset: made.tableOffset)
        #expect(table == made.table)
        for previous in [try old.indexBytes(), old.index.encodedForStore()] {
            #expect(try patch.apply(to: previous, previousOffset: old.trailer.indexOffset, digest: new.digest) == newIndex)
        }
    }

    @Test func aLargeIndexIsPatchedAtLevel16AndStillMakesTheNewIndex() throws {
        #expect(PatchWriter.indexPatchLevel(bytes: 2 << 20) == 19)
        #expect(PatchWriter.indexPatchLevel(bytes: (2 << 20) + 1) == 16)
        let dir = try TemporaryDirectory("index-patch-16"); defer { dir.remove() }
        let (old, new) = try versions(dir)
        var writer = PatchWriter()
        writer.level = PatchWriter.indexPatchLevel(bytes: (2 << 20) + 1)
        let patch = try #require(try writer.indexPatch(old: old, new: new))
        let newIndex = try new.indexBytes()
        #expect(patch.frame.count * 10 < newIndex.count, "index patch of \(patch.frame.count) bytes for an index of \(newIndex.count)")
        #expect(try patch.apply(to: old.indexBytes(), previousOffset: old.trailer.indexOffset, digest: new.digest) == newIndex)
    }

    @Test func anIndexPatchAppliedToAnotherIndexOrDamagedGivesNothing() throws {
        let dir = try TemporaryDirectory("index-patch-bad"); defer { dir.remove() }
        let (old, new) = try versions(dir)
        let patch = try #require(try PatchWriter().indexPatch(old: old, new: new))
        let oldIndex = try old.indexBytes(), offset = old.trailer.indexOffset
        func failure(_ p: IndexPatch, previous: [UInt8], digest: SHA256Digest? = nil) -> IndexPatch.Failure? {
            do { _ = try p.apply(to: previous, previousOffset: offset, digest: digest ?? new.digest); return nil } catch { return error }
        }
        // Against the new index instead of the old one: the frame decodes, to other bytes.
        #expect(failure(patch, previous: try new.indexBytes()) != nil)
        // The right bytes checked against another digest: refused by the digest.
        guard case .digestMismatch = failure(patch, previous: oldIndex, digest: old.digest) else { Issue.record("a wrong digest was accepted"); return }
        // A damaged frame, a cut one, a bomb that declares more than the expanded length.
        var damaged = patch
        damaged.frame[damaged.frame.count / 2] ^= 0x40
        var cut = patch
        cut.frame.removeLast(5)
        var bomb = patch
        bomb.expandedLength -= 1
        for p in [damaged, cut, bomb] { #expect(failure(p, previous: oldIndex) != nil) }
        // A previous index that is not one: every prefix of it is refused with an offset, never a crash.
        for length in stride(from: 0, to: oldIndex.count, by: 97) {
            guard case .previousIndex(let e) = failure(patch, previous: Array(oldIndex.prefix(length))) else {
                Issue.record("a \(length)-byte prefix of the index was not refused as the previous index"); continue
            }
            #expect("\(e)".contains("at byte"), "\(e)")
        }
    }

    /// A pack whose file table another zstd compressed (here: level 1) gives the publisher no
    /// index patch: the client could not make that pack's index, so it fetches it.
    @Test func aFileTableThisZstdDoesNotReproduceGetsNoIndexPatch() throws {
        let dir = try TemporaryDirectory("index-patch-other-zstd"); defer { dir.remove() }
        let (old, new) = try versions(dir)
        let other = new.index.encodedForStore()
        #expect(other != (try new.indexBytes()))
        var pack = Array(try #require(dir.contents("v2.pack")).prefix(Int(new.trailer.indexOffset)))
        pack += other
        func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        pack += le(new.trailer.indexOffset) + le(UInt64(other.count)) + SHA256Digest.hash(other).bytes + le(UInt32(2)) + le(UInt32(0)) + PackLayout.trailerMagic
        let rebuilt = try PackReader(path: try dir.write("v2-other.pack", pack))
        #expect(try PatchWriter().indexPatch(old: old, new: rebuilt) == nil)
        // It expands like the pack's own index, and contracts to the pack's own, not to it.
        let expanded = try ExpandedIndex.expand(other, indexOffset: 0)
        #expect(expanded == (try ExpandedIndex.expand(try new.indexBytes(), indexOffset: new.trailer.indexOffset)))
        #expect(try ExpandedIndex.contract(expanded) == (try new.indexBytes()))
    }

    @Test func aVersionOnePackGetsNoIndexPatch() throws {
        let dir = try TemporaryDirectory("index-patch-v1"); defer { dir.remove() }
        let (old, new) = try versions(dir) { $0.formatVersion = 1 }
        #expect(try PatchWriter().indexPatch(old: old, new: new) == nil)
        let made = try #require(try PatchWriter().write(old: old, new: new, to: dir.file("p.patch")))
        #expect(made.table.formatVersion == PatchLayout.formatVersion && made.table.indexPatch == nil)
        #expect { try ExpandedIndex.expand(try old.indexBytes(), indexOffset: 40) } throws: { "\($0)".contains("index version 1 has no compressed file table") }
    }
}
