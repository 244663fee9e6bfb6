import AppleArchive
import AssetPackFormat
import AssetPackPackaging
import Foundation
import Testing
import TestSupport

/// `ApplePackArchiver` writes ba-package's layout; the independent reader
/// (scripts/aar-oracle.py) reads it back.
@Suite struct ApplePackArchiverTests {
    /// Nested folders, modes, an empty file, a name that sorts between a folder and its
    /// contents (`a.txt` between `a` and `a/…`), non-ASCII names, a file larger than a block.
    static func makeTree(_ dir: TemporaryDirectory) throws {
        try dir.write("src/a/x.json", textBytes(3_000, seed: 1))
        try dir.write("src/a.txt", "between")
        try dir.write("src/a/deep/er/model.bin", patternBytes(150_000, seed: 2))
        try dir.write("src/bin/tool.sh", "#!/bin/sh\necho hi\n", mode: 0o755)
        try dir.write("src/readonly.txt", "ro", mode: 0o444)
        try dir.write("src/empty", [UInt8]())
        try dir.write("src/ünïcode/名前.txt", "name")
        try dir.write("Manifest.json", """
            { "assetPackID": "Levels", "downloadPolicy": { "onDemand": {} },
              "fileSelectors": [ { "directory": "." } ], "platforms": ["iOS"], "sourceRoot": "src" }
            """)
    }

    @Test(arguments: [AppleArchiveCompression.lzfse, .zlib, .lzma, .none])
    func theArchiveHoldsTheSelectedFilesUnderContents(_ codec: AppleArchiveCompression) throws {
        let dir = try TemporaryDirectory("apple-pack")
        try Self.makeTree(dir)
        let archive = dir.file("Levels.aar")
        let summary = try ApplePackArchiver(compression: codec, blockSize: 64 << 10, threads: 2)
            .write(manifestAt: dir.file("Manifest.json"), baseDirectory: dir.path, to: archive)
        let listing = try AppleArchiveOracle.read(archive, extractingTo: dir.file("out"))

        let source = snapshot(dir.file("src")), extracted = snapshot(dir.file("out/Contents"))
        #expect(source.keys.sorted() == extracted.keys.sorted())
        for (path, (bytes, mode)) in source {
            #expect(extracted[path]?.0 == bytes, "\(path) differs")
            #expect(extracted[path]?.1 == mode, "\(path) mode differs")
        }
        // Only `Contents/…` entries; each folder once, before what it holds.
        let paths = listing.entries.map(\.path)
        #expect(paths.first == "Contents")
        #expect(paths.allSatisfy { $0 == "Contents" || $0.hasPrefix("Contents/") })
        #expect(Set(paths).count == paths.count)
        let folders = listing.entries.filter { $0.type == "D" }.map(\.path)
        #expect(Set(folders) == ["Contents", "Contents/a", "Contents/a/deep", "Contents/a/deep/er", "Contents/bin", "Contents/ünïcode"])
        for (i, path) in paths.enumerated() {
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty else { continue }
            #expect(paths[..<i].contains(parent), "\(path) comes before its folder")
        }
        #expect(listing.entries.allSatisfy { $0.uid == 0 && $0.gid == 0 && $0.mtime == 0 && $0.ctime == 0 && $0.flags == 0 })
        #expect(summary.entryCount == listing.entries.count)
        #expect(summary.fileCount == source.count)
        #expect(summary.contentSize == Int64(source.values.map(\.0.count).reduce(0, +)))
        #expect(summary.archiveSize == Int64(readFile(archive).count))
    }

    @Test func ourReaderExtractsTheSameTree() throws {
        let dir = try TemporaryDirectory("apple-pack")
        try Self.makeTree(dir)
        let archive = dir.file("Levels.aar")
        _ = try ApplePackArchiver(compression: .lzma, blockSize: 64 << 10).write(manifestAt: dir.file("Manifest.json"), baseDirectory: dir.path, to: archive)
        let extracted = try AppleArchiveExtractor().extract(archiveAt: archive, to: dir.file("out"))
        #expect(extracted.skipped.isEmpty)
        let source = snapshot(dir.file("src")), tree = snapshot(dir.file("out/Contents"))
        #expect(source.keys.sorted() == tree.keys.sorted())
        for (path, (bytes, mode)) in source {
            #expect(tree[path]?.0 == bytes && tree[path]?.1 == mode, "\(path) differs")
        }
    }

    @Test func theSameManifestGivesTheSameBytesWhateverTheThreads() throws {
        let dir = try TemporaryDirectory("apple-pack")
        try Self.makeTree(dir)
        var outputs: [[UInt8]] = []
        for threads in [1, 3] {
            let archive = dir.file("Levels-\(threads).aar")
            _ = try ApplePackArchiver(compression: .zlib, blockSize: 64 << 10, threads: threads)
                .write(manifestAt: dir.file("Manifest.json"), baseDirectory: dir.path, to: archive)
            outputs.append(readFile(archive))
        }
        #expect(outputs[0].count > 150_000)
        #expect(outputs[0] == outputs[1])
    }

    @Test func aManifestWithAMissingFileWritesNothing() throws {
        let dir = try TemporaryDirectory("apple-pack")
        try Self.makeTree(dir)
        try dir.write("Manifest.json", """
            { "assetPackID": "Levels", "downloadPolicy": { "onDemand": {} },
              "fileSelectors": [ { "file": "a.txt" }, { "file": "missing.bin" } ], "platforms": ["iOS"], "sourceRoot": "src" }
            """)
        let error = #expect(throws: ApplePackError.self) {
            try ApplePackArchiver(compression: .zlib).write(manifestAt: dir.file("Manifest.json"), baseDirectory: dir.path, to: dir.file("Levels.aar"))
        }
        #expect("\(String(describing: error))".contains("missing.bin"))
        #expect(!dir.exists("Levels.aar"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["Manifest.json", "src"])
    }
}
