import AppleArchive
import Foundation
import TestSupport
import Testing

/// Archives made to break the reader or to write outside the output: each is refused with an
/// error naming the entry or chunk and the offset, and nothing is left behind.
@Suite struct HostileArchiveTests {
    typealias B = AA01Builder

    /// Extracts `bytes` and expects a refusal whose message holds every part of `expected`;
    /// the folder holds only the archive afterwards (no output, no staging folder).
    func refused(_ bytes: [UInt8], _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let folder = try TemporaryDirectory("aar-hostile"); defer { folder.remove() }
        let archive = try folder.write("hostile.aar", bytes)
        var message = ""
        do {
            try AppleArchiveExtractor().extract(archiveAt: archive, to: folder.file("out"))
            Issue.record("extracted a hostile archive", sourceLocation: sourceLocation)
        } catch {
            message = "\(error)"
        }
        for part in expected { #expect(message.contains(part), "\(message)", sourceLocation: sourceLocation) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["hostile.aar"], sourceLocation: sourceLocation)
    }

    /// The entries `bytes` lists, or the error that stops the listing.
    func listing(_ bytes: [UInt8]) -> Result<[AppleArchiveEntry], AppleArchiveError> {
        Result { () throws(AppleArchiveError) in
            let reader = try AppleArchiveReader(source: InMemoryArchiveSource(bytes), threads: 2)
            var entries: [AppleArchiveEntry] = []
            while let e = try reader.nextEntry() {
                if e.hasData {
                    do { try reader.readData { _ in } } catch let error as AppleArchiveError { throw error } catch {
                        throw AppleArchiveError(.io, e.region, at: nil, "\(error)")
                    }
                }
                entries.append(e)
            }
            return entries
        }
    }

    @Test func pathsThatLeaveTheOutputAreRefused() throws {
        for (path, why) in [("../escape", "'..' component"), ("a/../../escape", "'..' component"), ("/etc/escape", "absolute path"),
                            ("a//b", "empty component"), ("./a", "'.' component")] {
            var b = B()
            b.directory("a")
            b.file(path, Array("pwned".utf8))
            try refused(b.bytes, ["entry 1 (\(path))", "at offset 24", why])
        }
        var b = B()
        b.file("a\u{0}b", [1])
        try refused(b.bytes, ["entry 0", "PAT", "NUL"])
    }

    @Test func nothingIsWrittenThroughASymlinkTheArchiveMade() throws {
        let outside = try TemporaryDirectory("aar-outside"); defer { outside.remove() }
        var b = B()
        b.symlink("link", to: outside.path)
        b.file("link/planted", Array("pwned".utf8))
        try refused(b.bytes, ["entry 1 (link/planted)", "symbolic link"])
        var c = B()
        c.symlink("target", to: outside.path + "/planted")
        c.file("target", Array("pwned".utf8))
        try refused(c.bytes, ["entry 1 (target)", "the path appears twice"])
        var d = B()
        d.symlink("dir", to: outside.path)
        d.directory("dir/sub")
        try refused(d.bytes, ["entry 1 (dir/sub)", "symbolic link"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
    }

    @Test func duplicatePathsAreRefused() throws {
        var b = B()
        b.file("a.txt", [1])
        b.file("b.txt", [2])
        b.file("a.txt", [3])
        try refused(b.bytes, ["entry 2 (a.txt)", "at offset 74", "appears twice"])
        var d = B()
        d.directory("x")
        d.directory("x")
        try refused(d.bytes, ["entry 1 (x)", "appears twice"])
    }

    @Test func headerSizesThatLieAreRefused() throws {
        let fields = [B.uint("TYP", UInt64(UInt8(ascii: "F"))), B.string("PAT", "a"), B.blob("DAT", size: 2)]
        let length = fields.flatMap { $0 }.count + 6
        var short = B(); short.entry(fields, blobs: [[1, 2]], size: length - 3)
        try refused(short.bytes, ["entry 0 (a)", "at offset 18", "DATB needs 4 bytes", "header size lies"])
        var tiny = B(); tiny.entry(fields, size: 4)
        try refused(tiny.bytes, ["entry 0", "at offset 4", "header size 4"])
        var long = B(); long.entry(fields, blobs: [[1, 2]], size: length + 100)
        try refused(long.bytes, ["entry 0", "at offset 6", "truncated"])
        var mid = B(); mid.entry(fields, blobs: [[1, 2]], size: length + 2)
        try refused(mid.bytes, ["entry 0 (a)", "a field starts 2 bytes before the header's end"])
        var bad = B(); bad.entry([B.key("TYP", "Q")])
        try refused(bad.bytes, ["entry 0", "subtype 'Q'"])
        var magic = B(); magic.entry(fields, blobs: [[1, 2]]); magic.entry(fields, blobs: [[1, 2]], magic: "AA02")
        try refused(magic.bytes, ["entry 1 at offset 28", "'AA02' where an entry header (AA01) starts"])
        var wrong = B(); wrong.entry([B.uint("TYP", 70), B.key("PAT", "1") + [65]])
        try refused(wrong.bytes, ["entry 0", "field PAT has subtype '1'; it takes P"])
        var dataOnFolder = B()
        dataOnFolder.entry([B.uint("TYP", UInt64(UInt8(ascii: "D"))), B.string("PAT", "d"), B.blob("DAT", size: 1)], blobs: [[0]])
        try refused(dataOnFolder.bytes, ["entry 0 (d)", "carries file data"])
        var blobBeyond = B(); blobBeyond.entry([B.uint("TYP", 70), B.string("PAT", "big"), B.blob("DAT", size: 1 << 40, subtype: "C")])
        try refused(blobBeyond.bytes, ["entry 0 (big) data", "truncated"])
    }

    @Test func unknownKeysOfEverySubtypeAreSkippedBySize() throws {
        let values: [(Character, [UInt8])] = [("*", []), ("1", [7]), ("2", [7, 0]), ("4", [7, 0, 0, 0]), ("8", B.le(7, 8)),
                                              ("P", B.le(3, 2) + Array("xyz".utf8)), ("F", [UInt8](repeating: 1, count: 4)),
                                              ("G", [UInt8](repeating: 1, count: 20)), ("H", [UInt8](repeating: 1, count: 32)),
                                              ("I", [UInt8](repeating: 1, count: 48)), ("J", [UInt8](repeating: 1, count: 64)),
                                              ("S", B.le(9, 8)), ("T", B.le(9, 12)), ("A", B.le(5, 2)), ("B", B.le(5, 4)), ("C", B.le(5, 8))]
        for (subtype, value) in values {
            var b = B()
            let isBlob = "ABC".contains(subtype)
            // An unknown blob comes before the data: the reader must skip its 5 bytes to reach it.
            b.entry([B.uint("TYP", UInt64(UInt8(ascii: "F"))), B.string("PAT", "f"), B.key("ZZZ", subtype) + value, B.blob("DAT", size: 3)],
                    blobs: (isBlob ? [Array("junk!".utf8)] : []) + [Array("abc".utf8)])
            b.file("g", Array("next".utf8))
            let entries = try listing(b.bytes).get()
            #expect(entries.map(\.path) == ["f", "g"], "ZZZ\(subtype)")
            #expect(entries.first?.unexpectedKeys == ["ZZZ\(subtype)"])
            let reader = try AppleArchiveReader(source: InMemoryArchiveSource(b.bytes))
            _ = try reader.nextEntry()
            var data: [UInt8] = []
            try reader.readData { data += $0 }
            #expect(data == Array("abc".utf8), "ZZZ\(subtype)")
        }
    }

    @Test func truncationAnywhereIsAnErrorOrAnEarlierEntryBoundary() throws {
        let raw = readFile(try SparkleSample.path("raw.aa"))
        let full = try listing(raw).get()
        let boundaries = Set(full.map(\.offset))
        var refusedCount = 0
        for cut in stride(from: 1, to: raw.count, by: 12_007) {
            switch listing(Array(raw[..<cut])) {
            case .success(let entries):
                #expect(boundaries.contains(UInt64(cut)) && entries.count < full.count, "cut at \(cut)")
            case .failure(let error):
                #expect(error.description.contains(cut < 4 ? "container" : "entry"), "\(error)")
                refusedCount += 1
            }
        }
        #expect(refusedCount > 150)
        // A container cut anywhere but between chunks.
        let folder = try TemporaryDirectory("aar-cut"); defer { folder.remove() }
        let archive = folder.file("z.aar")
        try IndependentContainerWriter.write(codec: "z", blockSize: 200_000, input: try SparkleSample.path("raw.aa"), output: archive)
        let container = readFile(archive)
        for cut in stride(from: 13, to: container.count, by: 7_001) {
            guard case .failure(let error) = listing(Array(container[..<cut])) else {
                Issue.record("a container cut at \(cut) was read whole"); continue
            }
            #expect(error.description.contains("chunk") || error.description.contains("entry"), "\(error)")
        }
    }

    static func container(_ letter: Character = "z", blockSize: UInt64, chunks: [(raw: UInt64, stored: UInt64, bytes: [UInt8])]) -> [UInt8] {
        var out = Array("pbz".utf8) + [UInt8(letter.asciiValue!)] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: blockSize >> (8 * UInt64($0))) }
        for c in chunks {
            for v in [c.raw, c.stored] { out += (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
            out += c.bytes
        }
        return out
    }

    @Test func chunkSizesThatLieAreRefused() throws {
        var b = B()
        b.file("a", [UInt8](repeating: 65, count: 100))
        let stream = b.bytes
        let n = UInt64(stream.count)
        try refused(Self.container(blockSize: 64, chunks: [(n, n, stream)]), ["chunk 0 at offset 12", "more than the block size 64"])
        try refused(Self.container(blockSize: 1 << 20, chunks: [(n, n + 1, stream + [0])]), ["chunk 0 at offset 20", "compressed bytes for"])
        try refused(Self.container(blockSize: 1 << 20, chunks: [(n, n, Array(stream.dropLast(10)))]), ["chunk 0 at offset 20", "truncated"])
        try refused(Self.container(blockSize: 1 << 20, chunks: [(n, n, stream), (0, 0, [])]), ["chunk 1 at offset \(12 + 16 + n)", "0 uncompressed bytes"])
        try refused(Self.container(blockSize: 1 << 20, chunks: [(n, n, stream)]) + [0, 0, 0], ["chunk 1", "chunk header is cut short"])
        try refused(Self.container(blockSize: 0, chunks: []), ["container at offset 4", "block size 0"])
        try refused(Self.container(blockSize: 1 << 20, chunks: [(n, n - 1, Array(stream.dropLast()))]), ["chunk 0 at offset 12", "zlib"])
        try refused(Self.container("4", blockSize: 1 << 20, chunks: [(n, 8, Array("bv41xxxx".utf8))]), ["chunk 0", "bv41 block header"])
        try refused(Self.container("x", blockSize: 1 << 20, chunks: [(n, 8, Array("notxzzzz".utf8))]), ["chunk 0", "xz"])
        for (letter, name) in [("b", "LZBITMAP"), ("m", "LZRaven"), ("q", "unknown codec")] as [(Character, String)] {
            try refused(Self.container(letter, blockSize: 1 << 20, chunks: []), ["container at offset 3", "pbz\(letter)", name, "not supported"])
        }
        try refused(Array("not an archive".utf8), ["container at offset 0", "is not an Apple Archive"])
    }

    @Test func entryTypesThatCannotBeCreatedAreRefused() throws {
        var b = B()
        b.entry([B.uint("TYP", UInt64(UInt8(ascii: "C"))), B.string("PAT", "dev/null")])
        try refused(b.bytes, ["entry 0 (dev/null)", "character-device", "cannot be extracted"])
        var l = B()
        l.entry([B.uint("TYP", UInt64(UInt8(ascii: "L"))), B.string("PAT", "dangling")])
        try refused(l.bytes, ["entry 0 (dangling)", "without a target"])
    }

    @Test func dataIsCheckedAgainstItsSHA256() throws {
        let data = Array("checked".utf8)
        var good = B()
        good.file("f", data, extra: [B.key("SH2", "H") + SHA256Check.digest(data)])
        let folder = try TemporaryDirectory("aar-sha"); defer { folder.remove() }
        try AppleArchiveExtractor().extract(archiveAt: try folder.write("good.aar", good.bytes), to: folder.file("out"))
        #expect(folder.contents("out/f") == data)
        var bad = B()
        bad.file("f", data, extra: [B.key("SH2", "H") + SHA256Check.digest(Array("other".utf8))])
        try refused(bad.bytes, ["entry 0 (f)", "SHA-256"])
    }
}
