import AssetPackPackaging
import Foundation
import Testing
@testable import AssetPackFormat
import TestSupport
import TestRepositories

@Suite struct PackRoundTripTests {
    /// A tree with large and small files, an empty file, duplicates, modes and nested folders.
    func makeTree(_ dir: TemporaryDirectory) throws {
        try dir.write("src/models/weights.bin", patternBytes(3_000_000, seed: 1))
        try dir.write("src/text/book.txt", textBytes(1_500_000, seed: 2))
        try dir.write("src/text/copy-of-book.txt", textBytes(1_500_000, seed: 2))
        for i in 0..<40 { try dir.write("src/small/item\(i).json", textBytes(100 + i * 37, seed: UInt64(i + 10))) }
        try dir.write("src/empty", [UInt8]())
        try dir.write("src/bin/tool.sh", "#!/bin/sh\necho hi\n", mode: 0o755)
        try dir.write("src/readonly.txt", "ro", mode: 0o444)
        try dir.write("src/ünïcode/名前.txt", "name")
    }

    let manifest = """
    { "assetPackID": "RoundTrip", "downloadPolicy": { "prefetch": { "installationEventTypes": ["firstInstallation"] } },
      "fileSelectors": [ { "directory": "." } ], "platforms": ["iOS", "macOS"], "language": "en-GB", "sourceRoot": "src" }
    """

    @Test func extractGivesBackTheSameTreeAndModes() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try makeTree(dir)
        let (pack, summary) = try packManifest(manifest, in: dir)
        #expect(summary.fileCount == 47)
        #expect(summary.reusedChunkCount > 0, "the copied book must reuse chunks")
        let reader = try PackReader(path: pack)
        #expect(reader.index.metadata == PackMetadata(assetPackID: "RoundTrip", downloadPolicy: .prefetch(installationEventTypes: [.firstInstallation]),
                                                      platforms: [.iOS, .macOS], language: "en-GB"))
        #expect(reader.digest == summary.packDigest)
        #expect(reader.fileSize == summary.packSize)
        try PackExtractor(reader: reader).extract(to: dir.path + "/out")
        let original = snapshot(dir.path + "/src"), extracted = snapshot(dir.path + "/out")
        #expect(original.keys.sorted() == extracted.keys.sorted())
        for (path, (bytes, mode)) in original {
            #expect(extracted[path]?.0 == bytes, "\(path) differs")
            #expect(extracted[path]?.1 == mode, "\(path) mode differs")
        }
        // No staging folder is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func theFileDigestIsTakenAsTheFileIsWritten() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try makeTree(dir)
        let (pack, summary) = try packManifest(manifest, in: dir) { $0.digestsFile = true }
        #expect(summary.fileSHA256 == SHA256Digest.hash(readFile(pack)))
        let (_, plain) = try packManifest(manifest, in: dir, output: "plain.pack")
        #expect(plain.fileSHA256 == nil)
    }

    @Test func packingIsDeterministicWhateverTheThreadCount() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try makeTree(dir)
        let (a, _) = try packManifest(manifest, in: dir, output: "a.pack")
        let (b, _) = try packManifest(manifest, in: dir, output: "b.pack") { $0.threads = 1; $0.blockSize = 2 << 20 }
        let (c, _) = try packManifest(manifest, in: dir, output: "c.pack") { $0.threads = 5 }
        #expect(readFile(a) == readFile(b))
        #expect(readFile(a) == readFile(c))
    }

    @Test func identicalContentIsStoredOnce() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        let blob = patternBytes(2_000_000, seed: 9)
        for i in 0..<4 { try dir.write("src/copy\(i).bin", blob) }
        let (pack, summary) = try packManifest(manifest, in: dir)
        #expect(summary.reusedChunkCount == summary.chunkCount * 3)
        #expect(summary.packSize < 2_200_000)
        let reader = try PackReader(path: pack)
        for i in 0..<4 { #expect(try reader.contents(of: "copy\(i).bin") == blob) }
    }

    @Test func readsOneFileByRandomAccess() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try makeTree(dir)
        let (pack, _) = try packManifest(manifest, in: dir)
        let reader = try PackReader(path: pack)
        #expect(try reader.contents(of: "small/item7.json") == textBytes(100 + 7 * 37, seed: 17))
        #expect(try reader.contents(of: "models/weights.bin") == patternBytes(3_000_000, seed: 1))
        #expect(try reader.contents(of: "empty") == [])
        #expect(throws: PackError.self) { _ = try reader.contents(of: "missing") }
        // Small files share chunks; each large file has chunks of its own.
        let small = reader.index.fileIndex(of: "small/item1.json")!
        let other = reader.index.fileIndex(of: "small/item2.json")!
        #expect(reader.index.spans(ofFile: small).first?.chunkIndex == reader.index.spans(ofFile: other).first?.chunkIndex)
        let weights = reader.index.spans(ofFile: reader.index.fileIndex(of: "models/weights.bin")!)
        #expect(weights.first?.offsetInChunk == 0)
        #expect(weights.reduce(0) { $0 + $1.length } == 3_000_000)
    }

    @Test func extractRefusesANonEmptyDestination() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try makeTree(dir)
        let (pack, _) = try packManifest(manifest, in: dir)
        try dir.write("busy/keep.txt", "mine")
        #expect(throws: PackError.self) { try PackExtractor(reader: try PackReader(path: pack)).extract(to: dir.path + "/busy") }
        #expect(readFile(dir.path + "/busy/keep.txt") == Array("mine".utf8))
        // An existing empty directory is fine.
        try FileManager.default.createDirectory(atPath: dir.path + "/empty-dest", withIntermediateDirectories: false)
        try PackExtractor(reader: try PackReader(path: pack)).extract(to: dir.path + "/empty-dest")
        #expect(readFile(dir.path + "/empty-dest/bin/tool.sh") == Array("#!/bin/sh\necho hi\n".utf8))
    }

    @Test func aFileThatChangesWhilePackingFailsAndLeavesNoOutput() throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        try dir.write("src/a.bin", patternBytes(500_000, seed: 4))
        let (m, _) = ManifestDecoder.decode(Array(manifest.utf8), file: "M.json")
        var files = Array(FileSelection.resolve(m!, manifestFile: "M.json", baseDirectory: dir.path).files)
        files[0].size += 10   // as if the file shrank after selection
        #expect(throws: PackWriteError.self) {
            _ = try PackWriter().write(metadata: PackMetadata(m!), files: files, to: dir.path + "/x.pack")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["src"])
    }

    /// Small files are read ahead by several readers, each a share of a run; a file that grew,
    /// shrank or went away since selection is named wherever it lies in a share or a run.
    @Test(arguments: [0, 17, 199, 200, 799])
    func aSmallFileThatChangesWhilePackingIsNamed(position: Int) throws {
        let dir = try TemporaryDirectory("pack"); defer { dir.remove() }
        for i in 0..<800 { try dir.write("src/d\(i / 100)/item\(1000 + i).json", textBytes(300 + i % 50, seed: UInt64(i))) }
        let (m, _) = ManifestDecoder.decode(Array(manifest.utf8), file: "M.json")
        let files = Array(FileSelection.resolve(m!, manifestFile: "M.json", baseDirectory: dir.path).files)
        #expect(files.count == 800)
        let path = files[position].sourcePath
        for (change, reason) in [(3, "shrank while it was packed"), (-3, "grew while it was packed")] {
            var changed = files
            changed[position].size = UInt64(Int(changed[position].size) + change)
            #expect {
                _ = try PackWriter().write(metadata: PackMetadata(m!), files: changed, to: dir.path + "/x.pack")
            } throws: { "\($0)" == "\(PackWriteError.changed(path, reason))" }
        }
        try FileManager.default.removeItem(atPath: path)
        #expect {
            _ = try PackWriter().write(metadata: PackMetadata(m!), files: files, to: dir.path + "/x.pack")
        } throws: { "\($0)" == "\(PackWriteError.read(path, "No such file or directory"))" }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["src"])
    }
}

/// Lists every regular file below `root` with its bytes and permission bits.
func snapshot(_ root: String) -> [String: ([UInt8], Int)] {
    var out: [String: ([UInt8], Int)] = [:]
    let e = FileManager.default.enumerator(atPath: root)!
    while let rel = e.nextObject() as? String {
        let full = root + "/" + rel
        var st = stat()
        guard lstat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
        out[rel] = (readFile(full), Int(st.st_mode & 0o7777))
    }
    return out
}
