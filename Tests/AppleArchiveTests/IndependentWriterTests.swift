import AppleArchive
import Foundation
import TestSupport
import Testing

/// Containers written by Python's zlib and lzma and the lz4 module around the sample's AA01
/// stream, in one chunk and in many, with stored chunks: each extracts to the tar's tree.
@Suite struct IndependentWriterTests {
    static let layouts: [(blockSize: Int, storeEvery: Int)] = [(4 << 20, 0), (65_536, 0), (100_000, 3)]

    @Test(arguments: ["z", "x", "4"] as [Character])
    func extractsEveryLayoutOfTheCodec(_ codec: Character) throws {
        let folder = try TemporaryDirectory("aar-writer"); defer { folder.remove() }
        let tar = try SparkleSample.tarTree(in: folder)
        let expected: AppleArchiveCompression = codec == "z" ? .zlib : codec == "x" ? .lzma : .lz4
        for (n, layout) in Self.layouts.enumerated() {
            let archive = folder.file("sample-\(n).aar")
            try IndependentContainerWriter.write(codec: codec, blockSize: layout.blockSize, storeEvery: layout.storeEvery,
                                                 input: try SparkleSample.path("raw.aa"), output: archive)
            let reader = try AppleArchiveReader(path: archive)
            #expect(reader.compression == expected && reader.container.blockSize == layout.blockSize)
            let out = folder.file("out-\(n)")
            try AppleArchiveExtractor().extract(reader, to: out)
            let ours = try TreeSnapshot(out)
            #expect(ours == tar, "pbz\(codec) block \(layout.blockSize): \(ours.differences(from: tar))")
        }
    }

    @Test func oneThreadAndManyGiveTheSameEntries() throws {
        let folder = try TemporaryDirectory("aar-threads"); defer { folder.remove() }
        let archive = folder.file("sample.aar")
        try IndependentContainerWriter.write(codec: "z", blockSize: 16_384, input: try SparkleSample.path("raw.aa"), output: archive)
        func paths(threads: Int) throws -> [String] {
            let reader = try AppleArchiveReader(path: archive, threads: threads)
            var out: [String] = []
            while let e = try reader.nextEntry() { out.append("\(e.path) \(e.size)") }
            return out
        }
        let one = try paths(threads: 1)
        #expect(one.count == 227)
        #expect(try paths(threads: 4) == one)
    }
}
