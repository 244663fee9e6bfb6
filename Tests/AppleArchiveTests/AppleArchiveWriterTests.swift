import AppleArchive
import AssetPackFormat
import Foundation
import Testing
import TestSupport

/// What `AppleArchiveWriter` writes, read back by the independent reader (scripts/aar-oracle.py:
/// Python's zlib and lzma, the reference LZFSE binding).
@Suite struct AppleArchiveWriterTests {
    /// A small tree: folders, a symlink, an empty file, files on each side of the `DATA`/`DATB`
    /// line, and one larger than the blocks so that it spans several chunks.
    struct Tree {
        let dir: TemporaryDirectory
        var files: [(path: String, bytes: [UInt8], mode: UInt16)] = []

        init() throws {
            dir = try TemporaryDirectory("aar-writer")
            files = [("Contents/a/empty", [], 0o644),
                     ("Contents/a/text.txt", textBytes(65_535, seed: 1), 0o644),
                     ("Contents/a/tool", textBytes(65_536, seed: 2), 0o755),
                     ("Contents/b/noise.bin", patternBytes(200_000, seed: 3), 0o600),
                     ("Contents/b/large.txt", textBytes(300_000, seed: 4), 0o644)]
            for f in files { try dir.write("src/\(f.path)", f.bytes, mode: Int(f.mode)) }
        }

        /// Writes the tree as an archive at `name`.
        func write(_ name: String, compression: AppleArchiveCompression, threads: Int = 2, blockSize: Int = 64 << 10) throws -> String {
            let path = dir.file(name)
            let writer = try AppleArchiveWriter(path: path, compression: compression, blockSize: blockSize, threads: threads)
            try writer.addDirectory("Contents")
            try writer.addDirectory("Contents/a")
            try writer.addFile("Contents/a/empty", mode: 0o644, contents: UnsafeRawBufferPointer(start: nil, count: 0))
            for f in files[1...2] {
                try writer.addFile(f.path, mode: f.mode, sourcePath: dir.file("src/\(f.path)"), size: UInt64(f.bytes.count))
            }
            try writer.addSymbolicLink("Contents/a/link", target: "text.txt")
            try writer.addDirectory("Contents/b", mode: 0o700)
            for f in files[3...] {
                try f.bytes.withUnsafeBytes { try writer.addFile(f.path, mode: f.mode, contents: $0) }
            }
            try writer.finish()
            return path
        }

        var expected: [AppleArchiveOracle.Listing.Entry] {
            func entry(_ type: String, _ path: String, _ mode: Int, link: String? = nil, bytes: [UInt8]? = nil) -> AppleArchiveOracle.Listing.Entry {
                var fields = ["TYP1", "PATP"] + (link == nil ? [] : ["LNKP"]) + ["UID2", "GID1", "MOD2", "FLG1", "CTMS", "MTMS"]
                if let bytes { fields.append(bytes.count < 65_536 ? "DATA" : "DATB") }
                return .init(type: type, path: path, fields: fields, mode: mode, uid: 0, gid: 0, flags: 0, mtime: 0, ctime: 0, link: link,
                             size: bytes?.count, sha256: bytes.map { SHA256Digest.hash($0).hex })
            }
            return [entry("D", "Contents", 0o755), entry("D", "Contents/a", 0o755),
                    entry("F", "Contents/a/empty", 0o644, bytes: files[0].bytes),
                    entry("F", "Contents/a/text.txt", 0o644, bytes: files[1].bytes),
                    entry("F", "Contents/a/tool", 0o755, bytes: files[2].bytes),
                    entry("L", "Contents/a/link", 0o755, link: "text.txt"),
                    entry("D", "Contents/b", 0o700),
                    entry("F", "Contents/b/noise.bin", 0o600, bytes: files[3].bytes),
                    entry("F", "Contents/b/large.txt", 0o644, bytes: files[4].bytes)]
        }
    }

    @Test(arguments: [AppleArchiveCompression.lzfse, .zlib, .lzma, .none])
    func theIndependentReaderFindsEveryEntry(_ codec: AppleArchiveCompression) throws {
        let tree = try Tree()
        let listing = try AppleArchiveOracle.read(tree.write("out.aar", compression: codec))
        #expect(listing.container == (codec == .none ? "none" : "pbz\(Character(UnicodeScalar(codec.magicLetter!)))"))
        #expect(listing.entries == tree.expected)
        if codec != .none {
            let chunks = try #require(listing.chunks)
            #expect(listing.blockSize == 64 << 10)
            // Every chunk but the last is a whole block; the noise does not compress and is stored raw.
            #expect(chunks.dropLast().allSatisfy { $0.raw == 64 << 10 })
            #expect(chunks.map(\.raw).reduce(0, +) == listing.streamSize)
            #expect(chunks.contains { $0.stored == $0.raw })
            #expect(chunks.contains { $0.stored < $0.raw })
        }
    }

    @Test(arguments: [AppleArchiveCompression.lzfse, .zlib, .lzma])
    func theBytesDoNotDependOnTheThreads(_ codec: AppleArchiveCompression) throws {
        let tree = try Tree()
        let one = readFile(try tree.write("one.aar", compression: codec, threads: 1))
        let four = readFile(try tree.write("four.aar", compression: codec, threads: 4))
        #expect(!one.isEmpty)
        #expect(one == four)
    }

    @Test func anUnsafeEntryPathWritesNothing() throws {
        let dir = try TemporaryDirectory("aar-writer")
        let path = dir.file("out.aar")
        for bad in ["../escape", "/etc/passwd", "Contents//x", "Contents/./x", ""] {
            let writer = try AppleArchiveWriter(path: path, compression: .zlib)
            #expect(throws: PackWriteError.self, "\(bad)") { try writer.addDirectory(bad) }
            writer.discard()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func aFileThatChangesSizeWritesNothing() throws {
        let dir = try TemporaryDirectory("aar-writer")
        let source = try dir.write("source.bin", textBytes(10_000, seed: 5))
        for claimed: UInt64 in [20_000, 5_000] {
            let writer = try AppleArchiveWriter(path: dir.file("out.aar"), compression: .zlib)
            let error = #expect(throws: PackWriteError.self) { try writer.addFile("Contents/f", mode: 0o644, sourcePath: source, size: claimed) }
            #expect("\(String(describing: error))".contains(source) && "\(String(describing: error))".contains(claimed > 10_000 ? "shrank" : "grew"))
            writer.discard()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["source.bin"])
    }

    @Test func settingsOutOfRangeAreRefused() throws {
        let dir = try TemporaryDirectory("aar-writer")
        for (blockSize, threads, codec) in [(1024, 1, AppleArchiveCompression.zlib), (128 << 20, 1, .zlib), (4 << 20, 0, .zlib), (4 << 20, 1, .lz4)] {
            let error = #expect(throws: PackWriteError.self) {
                _ = try AppleArchiveWriter(path: dir.file("out.aar"), compression: codec, blockSize: blockSize, threads: threads)
            }
            #expect("\(String(describing: error))".contains(codec == .lz4 ? "lz4" : threads == 0 ? "threads" : "block size"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
