import AssetPackPackaging
import Foundation
import Testing
@testable import AssetPackFormat
import TestSupport
import TestRepositories

/// The version-2 file table (front-coded, varints, one zstd frame): it round-trips, every rule of
/// its decoder refuses a table that breaks it with the region and the offset, a version-1 pack
/// still reads, and the index grows with the number of files, not faster.
@Suite struct PackFileTableTests {
    /// One 6-byte chunk at byte 16 (so the index starts at 26) and `files` over it.
    func index(_ files: [FileEntry], version: UInt32 = PackLayout.formatVersion) -> PackIndex {
        PackIndex(metadata: PackMetadata(assetPackID: "T", downloadPolicy: .onDemand, platforms: [.iOS], language: nil),
                  chunking: .default, chunks: [ChunkEntry(digest: SHA256Digest.hash([1]), offset: 16, compressedSize: 10, uncompressedSize: 6)],
                  sequence: [0], files: files, formatVersion: version)
    }

    let files = [FileEntry(path: "a/b/one.json", mode: 0o644, size: 1), FileEntry(path: "a/b/two.json", mode: 0o600, size: 2),
                 FileEntry(path: "a/c", mode: 0o755, size: 0), FileEntry(path: "z/ünï.txt", mode: 0o644, size: 3)]

    /// Where the file table (its file count) starts in encoded index bytes.
    func fileTableStart(_ bytes: [UInt8]) -> Int {
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        var r = 12
        r += 4 + u32(r) + 12
        r += 8 + u32(r) * PackLayout.chunkEntrySize
        r += 8 + u32(r) * 4
        return r
    }

    func u64(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }

    func varints(_ values: [UInt64]) -> [UInt8] {
        var w = ByteWriter()
        for v in values { w.appendVarint(v) }
        return w.bytes
    }

    /// A valid index's bytes with the file table replaced: `count` files, `table` compressed as
    /// one frame (or `frame` as given), `declared` as the table length.
    func indexBytes(count: UInt64, table: [UInt8], declared: UInt64? = nil, frame: [UInt8]? = nil) -> [UInt8] {
        var bytes = index(files).encoded()
        bytes.removeSubrange(fileTableStart(bytes)...)
        let frame = frame ?? table.withUnsafeBytes { ZstdCompressor(level: 3).compress($0) }
        return bytes + u64(count) + u64(declared ?? UInt64(table.count)) + u64(UInt64(frame.count)) + frame
    }

    func decodeError(_ bytes: [UInt8]) -> String? {
        do { _ = try PackIndex.decode(bytes, indexOffset: 26); return nil } catch { return error.description }
    }

    /// A table of paths (shared, suffix), modes and sizes.
    func table(_ paths: [(UInt64, String)], modes: [UInt64], sizes: [UInt64]) -> [UInt8] {
        var out: [UInt8] = []
        for (shared, suffix) in paths { out += varints([shared, UInt64(suffix.utf8.count)]) + Array(suffix.utf8) }
        return out + varints(modes) + varints(sizes)
    }

    @Test(arguments: [UInt32(1), 2])
    func bothVersionsRoundTrip(version: UInt32) throws {
        let original = index(files, version: version)
        let bytes = original.encoded()
        let decoded = try PackIndex.decode(bytes, indexOffset: 26)
        #expect(decoded == original)
        #expect(decoded.formatVersion == version)
        #expect(decoded.encoded() == bytes)
    }

    /// A decoded table holds its paths front-coded, a whole one every `restartInterval`: a file
    /// takes a fraction of its path's bytes, and each is found again by position, by path, in
    /// order, and from any starting point.
    @Test(arguments: [UInt32(1), 2])
    func aDecodedTableHoldsItsPathsFrontCoded(version: UInt32) throws {
        func index(_ files: [FileEntry], version: UInt32) -> PackIndex {
            let total = UInt32(files.reduce(0) { $0 + $1.size })
            return PackIndex(metadata: PackMetadata(assetPackID: "T", downloadPolicy: .onDemand, platforms: [.iOS], language: nil),
                             chunking: .default, chunks: [ChunkEntry(digest: SHA256Digest.hash([1]), offset: 16, compressedSize: 10, uncompressedSize: total)],
                             sequence: [0], files: files, formatVersion: version)
        }
        let many = (0..<20_000).map { FileEntry(path: String(format: "assets/level-%05d/tile.json", $0), mode: $0 % 3 == 0 ? 0o600 : 0o644, size: 1) }
        let decoded = try PackIndex.decode(index(many, version: version).encoded(), indexOffset: 26)
        #expect(Array(decoded.files) == many)
        #expect(decoded.files == PackFiles(many))
        // 20,000 paths of 27 bytes, 540,000 bytes: front-coded with modes and ends, under 26 bytes
        // a file, where the paths alone take 27.
        #expect(decoded.files.heldBytes < 26 * many.count, "\(decoded.files.heldBytes) bytes held")
        for i in [0, 1, 15, 16, 17, 12_345, 19_999] {
            #expect(decoded.files[i] == many[i])
            #expect(decoded.files.withPath(at: i) { Array($0) } == Array(many[i].path.utf8))
            #expect(decoded.files.offset(at: i) == UInt64(i) && decoded.files.size(at: i) == 1 && decoded.files.mode(at: i) == many[i].mode)
            #expect(decoded.fileIndex(of: many[i].path) == i)
            var cursor = PackFiles.Cursor(decoded.files, at: i)
            var seen: [String] = []
            decoded.files.forEachPath(from: i) { k, path in
                #expect(k == cursor.index && cursor.withPath { Array($0) } == Array(path))
                seen.append(String(decoding: path, as: UTF8.self))
                cursor.advance()
                return seen.count < 20
            }
            #expect(seen == many[i..<min(i + 20, many.count)].map(\.path))
        }
        #expect(decoded.fileIndex(of: "assets/level-12345/tile.jso") == nil)
        #expect(decoded.fileIndex(of: "assets/level-12345/tile.jsoo") == nil)
        #expect(decoded.fileIndex(of: "a") == nil && decoded.fileIndex(of: "z") == nil)
        #expect(decoded.fileOffsets.count == many.count && decoded.fileOffsets.last == UInt64(many.count - 1))
        // Longer paths and a last one that shares nothing with the one before it.
        let longer = (0..<20_000).map { FileEntry(path: String(format: "assets/%05d/", $0) + String(repeating: "x", count: 90), mode: 0o644, size: 0) }
        let spread = try PackIndex.decode(index(longer + [FileEntry(path: "z", mode: 0o600, size: 1)], version: version).encoded(), indexOffset: 26)
        #expect(spread.files.map(\.path) == longer.map(\.path) + ["z"])
        #expect(spread.fileIndex(of: "z") == 20_000 && spread.files.last?.mode == 0o600)
        // Front-coding shares prefixes only: each of these paths keeps its last 92 bytes, and
        // takes two length bytes, its mode and its end besides (plus a whole path in 16).
        #expect(spread.files.heldBytes < 106 * spread.files.count, "\(spread.files.heldBytes) bytes held for paths of 103 bytes")
    }

    @Test func theFrontCodedTableIsWhatFormatSays() throws {
        // Paths share what they can with the previous one; then modes, then sizes.
        let bytes = index(files).encoded()
        let expected = table([(0, "a/b/one.json"), (4, "two.json"), (2, "c"), (0, "z/ünï.txt")],
                             modes: [0o644, 0o600, 0o755, 0o644], sizes: [1, 2, 0, 3])
        let start = fileTableStart(bytes)
        #expect(Array(bytes[start..<start + 16]) == u64(4) + u64(UInt64(expected.count)))
        let frame = Array(bytes[(start + 24)...])
        let inflated = try frame.withUnsafeBytes { try ZstdDecompressor().decompress($0, expectedSize: expected.count) }
        #expect(inflated == expected)
    }

    @Test func varintsAreShortestAndBounded() throws {
        for v: UInt64 in [0, 1, 127, 128, 300, 1 << 35, .max] {
            var r = ByteReader(varints([v]), context: "t", base: 0)
            #expect(try r.varint() == v)
            #expect(r.remaining == 0)
        }
        let cases: [([UInt8], String)] = [
            ([0x80, 0x00], "is not in its shortest form"),
            ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02], "overflows 64 bits"),
            ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0x00], "overflows 64 bits"),
            ([0x80], "runs past the end"),
        ]
        for (bytes, message) in cases {
            var r = ByteReader(bytes, context: "t", base: 100)
            #expect(throws: PackError.malformed("t", at: 100, "varint \(message)")) { _ = try r.varint() }
        }
    }

    /// Every rule of the version-2 decoder, each with its region, offset and reason.
    @Test func everyGuardOfTheVersion2DecoderNamesRegionAndOffset() throws {
        let good = table([(0, "a"), (0, "b")], modes: [0o644, 0o644], sizes: [2, 4])
        #expect(decodeError(indexBytes(count: 2, table: good)) == nil)
        let start = UInt64(26 + fileTableStart(index(files).encoded()))
        let frameAt = start + 24
        let region = "malformed file table (decompressed from the frame at byte \(frameAt))"
        let cases: [([UInt8], String)] = [
            (indexBytes(count: 2, table: good, declared: 300 << 20),
             "malformed index at byte \(start + 8): file table length 314572800 exceeds the 268435456-byte limit"),
            (indexBytes(count: 3, table: good), "malformed index at byte \(start): file count 3 does not fit in a file table of 12 bytes"),
            (indexBytes(count: 10_000_001, table: good, declared: 200 << 20),
             "malformed index at byte \(start): file count 10000001 exceeds the 10000000-file limit"),
            (indexBytes(count: 2, table: good) + [0], "malformed index at byte \(start + 16): file table frame of"),
            (indexBytes(count: 2, table: good, frame: [1, 2, 3, 4, 5, 6, 7, 8]), "malformed file table at byte \(frameAt): the frame is not a zstd frame; the index says 12"),
            (indexBytes(count: 2, table: good, declared: 13), "malformed file table at byte \(frameAt): the frame declares 12 bytes; the index says 13"),
            (indexBytes(count: 2, table: good, frame: Array(indexBytes(count: 2, table: good).suffix(from: Int(frameAt - 26)).dropLast(3))),
             "malformed file table at byte \(frameAt): the frame does not decompress: zstd data is corrupt"),
            (indexBytes(count: 2, table: table([(0, "a"), (2, "b")], modes: [0o644, 0o644], sizes: [2, 4])),
             "\(region) at byte 3: file 1 shares 2 bytes with a previous path of 1"),
            (indexBytes(count: 2, table: table([(0, "a"), (1, "")], modes: [0o644, 0o644], sizes: [2, 4])),
             "\(region) at byte 3: file 1 has a duplicate path \"a\""),
            (indexBytes(count: 2, table: table([(0, "ab"), (1, "")], modes: [0o644, 0o644], sizes: [2, 4])),
             "\(region) at byte 4: file 1 has a path of 1 + 0 bytes"),
            (indexBytes(count: 1, table: varints([0, 4097]) + [UInt8](repeating: 0x61, count: 4097) + varints([0o644, 6])),
             "\(region) at byte 0: file 0 has a path of 0 + 4097 bytes"),
            (indexBytes(count: 2, table: table([(0, "ab"), (0, "ac")], modes: [0o644, 0o644], sizes: [2, 4])),
             "\(region) at byte 4: file 1 shares 0 bytes with the previous path but more are equal"),
            (indexBytes(count: 2, table: table([(0, "a"), (0, "b")], modes: [0o644, 0o4755], sizes: [2, 4])),
             "\(region) at byte 8: file 1 has mode 4755; only permission bits 0777 are allowed"),
            (indexBytes(count: 2, table: good + [0]), "\(region) at byte 12: 1 unexpected bytes after the sizes"),
            (indexBytes(count: 2, table: Array(good.dropLast())), "\(region) at byte 11: varint runs past the end"),
            (indexBytes(count: 2, table: table([(0, "b"), (0, "a")], modes: [0o644, 0o644], sizes: [2, 4])),
             "\(region) at byte 3: \"a\" is out of order (paths are sorted byte-wise)"),
            (indexBytes(count: 2, table: table([(0, "a"), (1, "/b")], modes: [0o644, 0o644], sizes: [2, 4])),
             "\(region) at byte 0: \"a\" is both a file and a directory"),
            (indexBytes(count: 2, table: table([(0, "a"), (0, "b/../c")], modes: [0o644, 0o644], sizes: [2, 4])),
             "\(region) at byte 3: path \"b/../c\""),
            (indexBytes(count: 2, table: varints([0, 1]) + [0x61] + varints([0, 1]) + [0xFF] + varints([0o644, 0o644, 2, 4])),
             "\(region) at byte 3: path is not valid UTF-8"),
            (indexBytes(count: 2, table: table([(0, "a"), (0, "b")], modes: [0o644, 0o644], sizes: [2, 5])),
             "malformed index at byte \(start): files hold 7 bytes but the chunks hold 6"),
            // Reported at the size that overflows: the second, after two paths, two modes and a size of ten bytes.
            (indexBytes(count: 2, table: table([(0, "a"), (0, "b")], modes: [0o644, 0o644], sizes: [.max, 7])),
             "\(region) at byte 20: file sizes overflow"),
        ]
        for (bytes, message) in cases {
            let e = decodeError(bytes)
            #expect(e?.hasPrefix(message) == true, "expected \(message)\ngot \(e ?? "accepted")")
        }
    }

    /// Front-coding lets an entry of a few bytes stand for a path of 4,096: the decoder counts
    /// the paths' bytes as they expand, and refuses the entry that takes them past the limit
    /// before it stores that path.
    @Test func expandedPathsAreBoundedTogether() throws {
        let stem = String(repeating: "x", count: 4000)
        let encoded = table([(0, stem + "a"), (4000, "b"), (4000, "c")], modes: [0o644, 0o644, 0o644], sizes: [1, 2, 3])
        let expanded = 3 * 4001
        #expect(encoded.count * 2 < expanded)
        let bytes = indexBytes(count: 3, table: encoded)
        let start = fileTableStart(bytes)
        func decode(limit: Int) throws(PackError) -> [String] {
            var r = ByteReader(Array(bytes[start...]), context: "index", base: UInt64(26 + start))
            return try PackFileTable.decodeVersion2(&r, streamLength: 6, maximumPathBytes: limit).map(\.path)
        }
        #expect(try decode(limit: expanded) == [stem + "a", stem + "b", stem + "c"])
        let entry2 = UInt64(varints([0, 4001]).count + 4001 + varints([4000, 1]).count + 1)
        #expect(throws: PackError.malformed("file table (decompressed from the frame at byte \(26 + start + 24))", at: entry2,
                                            "the paths of files 0…2 take \(expanded) bytes together, more than the \(expanded - 1) bytes a pack's paths may take (the path-bytes limit)")) {
            try decode(limit: expanded - 1)
        }
        // The whole index, at the real limit, decodes.
        #expect(decodeError(bytes) == nil)
    }

    /// A file that is also a folder is found when paths that sort between the two (a byte
    /// below the slash after the file's name) stand between them, at the file's own entry; a
    /// path that only begins with a file's name is no clash.
    @Test func aFileThatIsAlsoAFolderIsFoundPastThePathsBetween() throws {
        let region = "malformed file table (decompressed from the frame at byte \(UInt64(26 + fileTableStart(index(files).encoded())) + 24))"
        let modes: [UInt64] = [0o644, 0o644, 0o644, 0o644]
        let cases: [([(UInt64, String)], String?)] = [
            // a, a.b, a.b/c: "a.b" (at byte 3) holds "a.b/c".
            ([(0, "a"), (1, ".b"), (3, "/c"), (0, "z")], "\(region) at byte 3: \"a.b\" is both a file and a directory"),
            // a, a-b, a-b-c, a/x: "a" (at byte 0) holds "a/x" past two paths that begin with it.
            ([(0, "a"), (1, "-b"), (3, "-c"), (1, "/x")], "\(region) at byte 0: \"a\" is both a file and a directory"),
            // a, a.b, ab/c, b: no file is a folder.
            ([(0, "a"), (1, ".b"), (1, "b/c"), (0, "b")], nil),
        ]
        for (paths, message) in cases {
            let e = decodeError(indexBytes(count: 4, table: table(paths, modes: modes, sizes: [1, 2, 3, 0])))
            if let message { #expect(e?.hasPrefix(message) == true, "expected \(message)\ngot \(e ?? "accepted")") } else { #expect(e == nil) }
        }
    }

    @Test func aVersion1PackStillReadsAndExtracts() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        for i in 0..<30 { try dir.write("src/d\(i % 3)/item\(i).json", textBytes(200 + i * 50, seed: UInt64(i))) }
        let manifest = """
        { "assetPackID": "Old", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [ { "directory": "src" } ], "platforms": ["iOS"] }
        """
        let (old, _) = try packManifest(manifest, in: dir, output: "v1.pack") { $0.formatVersion = 1 }
        let (new, _) = try packManifest(manifest, in: dir, output: "v2.pack")
        let v1 = try PackReader(path: old), v2 = try PackReader(path: new)
        #expect(v1.index.formatVersion == 1 && v1.trailer.formatVersion == 1 && readFile(old)[8] == 1)
        #expect(v2.index.formatVersion == 2 && v2.trailer.formatVersion == 2 && readFile(new)[8] == 2)
        #expect(v1.index.files == v2.index.files && v1.index.chunks == v2.index.chunks, "the same content, chunks and files")
        try PackExtractor(reader: v1).extract(to: dir.path + "/out")
        #expect(readFile(dir.path + "/out/src/d2/item29.json") == textBytes(200 + 29 * 50, seed: 29))
    }

    @Test func headerTrailerAndIndexMustDeclareTheSameVersion() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("src/a.txt", "a")
        let manifest = """
        { "assetPackID": "V", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [ { "directory": "src" } ], "platforms": ["iOS"] }
        """
        let (pack, _) = try packManifest(manifest, in: dir)
        var bytes = readFile(pack)
        bytes[8] = 1
        _ = FileManager.default.createFile(atPath: pack, contents: Data(bytes))
        #expect(throws: PackError.malformed("trailer", at: UInt64(bytes.count - 16), "declares format version 2 but the header declares 1")) {
            _ = try PackReader(path: pack)
        }
    }

    /// Not a timing: 10,000 tiny files in nested folders cost a bounded number of index bytes
    /// each, and ten times the files cost about ten times the bytes.
    @Test func theIndexGrowsLinearlyWithTheFiles() throws {
        func bytesPerFile(_ count: Int) -> Double {
            var files: [FileEntry] = []
            for i in 0..<count {
                // Zero-padded by an offset, so that the paths are in byte order.
                let world = 100 + i / 2500, zone = 100 + (i / 100) % 25
                let path = "levels/world-\(world)/zone-\(zone)/entity-\(100_000 + i).json"
                files.append(FileEntry(path: path, mode: 0o644, size: i % 3 == 0 ? 1 : 0))
            }
            let total = files.reduce(0) { $0 + $1.size }
            let chunk = ChunkEntry(digest: SHA256Digest.hash([2]), offset: 16, compressedSize: 8, uncompressedSize: UInt32(total))
            let index = PackIndex(metadata: PackMetadata(assetPackID: "T", downloadPolicy: .onDemand, platforms: [.iOS], language: nil),
                                  chunking: .default, chunks: [chunk], sequence: [0], files: files)
            let bytes = index.encoded()
            #expect((try? PackIndex.decode(bytes, indexOffset: 24)) == index)
            return Double(bytes.count - fileTableStart(bytes)) / Double(count)
        }
        let small = bytesPerFile(1_000), large = bytesPerFile(10_000)
        #expect(large <= 8, "the file table costs \(large) bytes a file at 10,000 files (version 1: about 50)")
        #expect(large <= small * 1.25, "\(small) bytes a file at 1,000 files but \(large) at 10,000")
    }
}
