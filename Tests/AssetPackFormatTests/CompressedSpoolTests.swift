import Testing
@testable import AssetPackFormat

/// The spool a writer's file table grows in: compressed block by block, given back whole and in
/// order, and the table it holds the same bytes as one encoded from the list at once.
@Suite struct CompressedSpoolTests {
    @Test(arguments: [1, 7, 1000, 1 << 20])
    func givesBackEveryByteInOrder(blockSize: Int) {
        var spool = CompressedSpool(blockSize: blockSize)
        var expected: [UInt8] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for round in 0..<300 {
            // Runs of text-like bytes of varied lengths, some crossing a block's end.
            let length = round % 37 == 0 ? 2 * blockSize % 5000 + 3 : Int(state % 97)
            state = state &* 6_364_136_223_846_793_005 &+ 1
            let piece = (0..<length).map { UInt8(0x61 + ($0 + round) % 13) }
            expected += piece
            spool.add { $0 += piece }
            #expect(spool.count == expected.count && spool.pending.count < blockSize)
        }
        if blockSize == 1000 { #expect(spool.heldBytes < expected.count / 4, "the full blocks are held compressed") }
        var out: [UInt8] = [9]
        spool.expand(into: &out)
        #expect(out == [9] + expected)
        #expect(spool.count == 0 && spool.heldBytes == 0, "an expanded spool is empty")
    }

    @Test(arguments: [UInt32(1), 2])
    func aSpooledTableIsTheTableEncodedFromItsList(version: UInt32) {
        // Over a megabyte of columns: the spooled encoder holds several blocks compressed.
        var files = (0..<40_000).map { i in
            FileEntry(path: "\(i &* 2_654_435_761 % 1_000_003)/level-\(i / 2500)/\(String(repeating: "x", count: i % 23))/item-\(i).json",
                      mode: i % 3 == 0 ? 0o755 : 0o644, size: UInt64(i * 37 % 5000))
        }
        files.sort { PackPath.precedes($0.path, $1.path) }
        var spooled = PackFileTableEncoder(formatVersion: version, spooled: true)
        for file in files {
            var path = file.path
            path.withUTF8 { spooled.add(path: $0, mode: file.mode, size: file.size) }
        }
        #expect(spooled.decodedLength > 1 << 20 && spooled.count == files.count)
        let table = spooled.finish()
        #expect(table == PackIndex.encodedFileTable(PackFiles(files), formatVersion: version))
    }
}
