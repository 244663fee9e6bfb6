import AssetPackPackaging
import Foundation
import Testing
@testable import AssetPackFormat
import TestSupport
import TestRepositories

/// Every way a pack can be damaged must give a precise error, and extraction must leave nothing.
@Suite struct PackCorruptionTests {
    let manifest = """
    { "assetPackID": "Damaged", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [ { "directory": "src" } ], "platforms": ["iOS"] }
    """

    func makePack(_ dir: TemporaryDirectory) throws -> String {
        try dir.write("src/big.bin", patternBytes(700_000, seed: 5))
        try dir.write("src/notes.txt", textBytes(300_000, seed: 6))
        try dir.write("src/a/one.txt", "one")
        try dir.write("src/b/two.txt", "two")
        return try packManifest(manifest, in: dir).0
    }

    func openError(_ path: String) -> String? {
        do { _ = try PackReader(path: path); return nil } catch { return error.description }
    }

    func edit(_ path: String, at offset: Int, _ change: (inout UInt8) -> Void) {
        var bytes = readFile(path)
        change(&bytes[offset < 0 ? bytes.count + offset : offset])
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }

    /// Extraction fails and leaves the target folder absent and no staging behind.
    func expectExtractLeavesNothing(_ pack: String, _ dir: TemporaryDirectory) {
        let before = Set(try! FileManager.default.contentsOfDirectory(atPath: dir.path))
        #expect(throws: (any Error).self) { try PackExtractor(reader: try PackReader(path: pack)).extract(to: dir.path + "/out/deeper/x") }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out"))
        #expect(Set(try! FileManager.default.contentsOfDirectory(atPath: dir.path)) == before)
    }

    @Test func badMagic() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        edit(pack, at: 1) { $0 = UInt8(ascii: "Z") }
        #expect(openError(pack)?.contains("does not start with the pack magic") == true)
        let text = try dir.write("text.pack", String(repeating: "hello\n", count: 40))
        #expect(openError(text)?.contains("not an asset pack") == true)
    }

    @Test func unknownFormatVersion() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        edit(pack, at: 8) { $0 = 9 }
        #expect(openError(pack) == "unsupported pack format version 9 (this tool reads versions 1 to 5)")
        let pack2 = try packManifest(manifest, in: dir, output: "v.pack").0
        edit(pack2, at: -16) { $0 = 6 }
        #expect(openError(pack2)?.contains("unsupported pack format version 6") == true)
    }

    @Test func truncatedPack() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        let bytes = readFile(pack)
        for cut in [10, 100, bytes.count / 2, bytes.count - 1] {
            _ = FileManager.default.createFile(atPath: pack, contents: Data(bytes.prefix(cut)))
            let e = openError(pack)
            #expect(e != nil, "cut at \(cut) was accepted")
            #expect(e?.contains("truncated") == true || e?.contains("fewer than") == true, "\(e ?? "")")
        }
    }

    @Test func indexDigestMismatch() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        let reader = try PackReader(path: pack)
        edit(pack, at: Int(reader.trailer.indexOffset) + 30) { $0 ^= 0x40 }
        #expect(openError(pack)?.hasPrefix("index digest mismatch") == true)
    }

    @Test func indexOffsetsOutOfRange() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        var bytes = readFile(pack)
        // Trailer's index offset points past the end of the file.
        let at = bytes.count - PackLayout.trailerSize
        bytes.replaceSubrange(at..<at + 8, with: withUnsafeBytes(of: UInt64(1 << 40).littleEndian, Array.init))
        _ = FileManager.default.createFile(atPath: pack, contents: Data(bytes))
        #expect(openError(pack)?.contains("malformed trailer") == true)
    }

    @Test func chunkOffsetOutOfRange() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        rewriteIndexModel(of: pack) { $0.chunks[1].offset += 1_000_000 }
        #expect(openError(pack)?.contains("chunk 1 starts at") == true)
    }

    @Test func chunkLongerThanDeclared() throws {
        // The chunk table says chunk 0 is 10 bytes shorter than its frame: the frame is cut
        // short (corrupt) and the following chunk starts inside it.
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        rewriteIndexModel(of: pack) { index in
            index.chunks[0].compressedSize -= 10
            for i in 1..<index.chunks.count { index.chunks[i].offset -= 10 }
        }
        // The chunks now end 10 bytes before the index: the layout check catches it.
        #expect(openError(pack)?.contains("chunks end at") == true)
    }

    @Test func moreDecompressedBytesThanDeclared() throws {
        // A decompression bomb: the frame holds more bytes than the index declares.
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        rewriteIndexModel(of: pack) { index in
            let c = index.sequence.last.map(Int.init)!
            index.chunks[c].uncompressedSize -= 100
            index.editFiles { $0[$0.count - 1].size -= 100 }
        }
        let reader = try PackReader(path: pack)
        #expect {
            try reader.forEachChunk(Array(reader.index.chunks.indices)) { _, _ in }
        } throws: { error in
            "\(error)".contains("more than the") && "\(error)".contains("src/notes.txt")
        }
        expectExtractLeavesNothing(pack, dir)
    }

    @Test(arguments: ["/etc/passwd", "../escape", "a/../../x", "a//b", "./a", "a/\u{1}b"])
    func unsafePathsInTheIndex(_ path: String) throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        rewriteIndexModel(of: pack) { $0.editFiles { $0[0].path = path } }
        let e = openError(pack)
        #expect(e?.contains("malformed file table") == true, "\(e ?? "accepted")")
    }

    @Test func duplicateAndUnsortedPaths() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        rewriteIndexModel(of: pack) { $0.editFiles { $0[1].path = $0[0].path } }
        #expect(openError(pack)?.contains("duplicate path \"src/a/one.txt\"") == true)
        let pack2 = try packManifest(manifest, in: dir, output: "b.pack").0
        rewriteIndexModel(of: pack2) { $0.editFiles { $0.swapAt(0, 1) } }
        #expect(openError(pack2)?.contains("out of order") == true)
    }

    @Test func aPathThatIsBothFileAndDirectory() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        rewriteIndexModel(of: pack) { $0.editFiles { $0.insert(FileEntry(path: "src/a", mode: 0o644, size: 0), at: 0) } }
        #expect(openError(pack)?.contains("both a file and a directory") == true)
    }

    @Test func fileSizesThatDisagreeWithTheChunks() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        rewriteIndexModel(of: pack) { $0.editFiles { $0[0].size += 1 } }
        #expect(openError(pack)?.contains("files hold") == true)
    }

    @Test func sequenceReferenceOutOfRange() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        rewriteIndex(of: pack) { bytes, _ in
            // Find the sequence: after the chunk table. Overwrite its first entry with a huge index.
            var r = 8 + 4
            let metaLength = Int(bytes[r]) | Int(bytes[r + 1]) << 8 | Int(bytes[r + 2]) << 16
            r += 4 + metaLength + 12
            let chunkCount = Int(bytes[r]) | Int(bytes[r + 1]) << 8
            r += 8 + chunkCount * PackLayout.chunkEntrySize + 8
            bytes[r + 3] = 0x7F
        }
        #expect(openError(pack)?.contains("out of range") == true)
    }

    @Test func aCorruptChunkIsNamedWithItsFiles() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let pack = try makePack(dir)
        let reader = try PackReader(path: pack)
        let notes = reader.index.fileIndex(of: "src/notes.txt")!
        let chunk = reader.index.chunks[reader.index.spans(ofFile: notes)[0].chunkIndex]
        edit(pack, at: Int(chunk.offset) + Int(chunk.compressedSize) / 2) { $0 ^= 0x01 }
        let damaged = try PackReader(path: pack)   // the index is intact
        #expect {
            try damaged.forEachChunk(Array(damaged.index.chunks.indices)) { _, _ in }
        } throws: { error in
            guard case let .chunkCorrupt(_, digest, offset, files, _) = error as? PackError else { return false }
            return digest == chunk.digest && offset == chunk.offset && files.contains("src/notes.txt")
        }
        expectExtractLeavesNothing(pack, dir)
    }
}

extension PackIndex {
    /// Changes the files as a list: a decoded index holds them front-coded, in order.
    mutating func editFiles(_ body: (inout [FileEntry]) -> Void) {
        var list = Array(files)
        body(&list)
        files = PackFiles(list)
    }
}
