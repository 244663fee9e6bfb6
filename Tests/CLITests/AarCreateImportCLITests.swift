import AssetPackFormat
import Foundation
import TestSupport
import Testing

/// `assetpack aar create` and `aar import` end to end: what create writes is read by the
/// independent reader (scripts/aar-oracle.py) and by `aar extract`, what import writes by
/// `extract`; bad input is exit 1 (or 2 for usage) with nothing written.
@Suite struct AarCreateImportCLITests {
    func workspace() throws -> TemporaryDirectory {
        let s = try TemporaryDirectory("aar-cli")
        try s.write("src/levels/one.json", textBytes(20_000, seed: 1))
        try s.write("src/levels/two.json", textBytes(90_000, seed: 2))
        try s.write("src/bin/run.sh", "#!/bin/sh\n", mode: 0o755)
        try s.write("src/art.bin", patternBytes(300_000, seed: 3))
        try s.write("M.json", """
            {"assetPackID": "Levels", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "."}], "platforms": ["iOS"], "sourceRoot": "src"}
            """)
        return s
    }

    /// Every regular file under `root`: "path mode" → the SHA-256 of its bytes.
    func tree(_ root: String) -> [String: String] {
        var out: [String: String] = [:]
        for rel in FileManager.default.subpaths(atPath: root) ?? [] {
            var st = stat()
            guard lstat("\(root)/\(rel)", &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            out["\(rel) \(String(st.st_mode & 0o777, radix: 8))"] = SHA256Digest.hash(readFile("\(root)/\(rel)")).hex
        }
        return out
    }

    @Test func createThenExtractAndImportGiveTheSameTree() async throws {
        let s = try workspace()
        let create = try await Assetpack.run(["aar", "create", "M.json", "-o", "Levels.aar", "--threads", "2"], in: s.path)
        #expect(create.status == 0, "\(create.stderr)")
        #expect(create.stdout.contains("Levels.aar: Levels, 4 files in 7 entries"), "\(create.stdout)")
        let listing = try AppleArchiveOracle.read(s.file("Levels.aar"), extractingTo: s.file("oracle"))
        #expect(listing.container == "pbze")
        #expect(tree(s.file("oracle/Contents")) == tree(s.file("src")))
        #expect(tree(s.file("src")).count == 4)

        let extract = try await Assetpack.run(["aar", "extract", "Levels.aar", "-o", "ours"], in: s.path)
        #expect(extract.status == 0, "\(extract.stderr)")
        #expect(tree(s.file("ours/Contents")) == tree(s.file("src")))

        let imported = try await Assetpack.run(["aar", "import", "Levels.aar", "--manifest", "M.json", "-o", "Levels.pack"], in: s.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.isEmpty, "nothing unexpected: \(imported.stderr)")
        let unpacked = try await Assetpack.run(["extract", "Levels.pack", "-o", "unpacked"], in: s.path)
        #expect(unpacked.status == 0, "\(unpacked.stderr)")
        #expect(tree(s.file("unpacked")) == tree(s.file("src")))
    }

    @Test func theBytesDoNotDependOnTheThreadsOrTheRun() async throws {
        let s = try workspace()
        for (name, threads) in [("a.aar", "1"), ("b.aar", "4")] {
            let r = try await Assetpack.run(["aar", "create", "M.json", "-o", name, "--threads", threads, "--block-size", "64KiB"], in: s.path)
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(readFile(s.file("a.aar")).count > 64 << 10)
        #expect(readFile(s.file("a.aar")) == readFile(s.file("b.aar")))
    }

    @Test func aMissingFileIsAnErrorAndNothingIsWritten() async throws {
        let s = try workspace()
        try s.write("M.json", """
            {"assetPackID": "Levels", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"file": "gone.bin"}], "platforms": ["iOS"], "sourceRoot": "src"}
            """)
        let r = try await Assetpack.run(["aar", "create", "M.json", "-o", "Levels.aar"], in: s.path)
        #expect(r.status == 1)
        #expect(r.stderr.contains("M.json") && r.stderr.contains("gone.bin"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path).sorted() == ["M.json", "src"])
    }

    @Test(arguments: [
        (["aar", "create", "M.json", "-o", "x.aar", "--compression", "lz4"], "--compression takes lzfse, zlib, lzma or none, got 'lz4'"),
        (["aar", "create", "M.json", "-o", "x.aar", "--block-size", "1KiB"], "--block-size must be from"),
        (["aar", "create", "M.json", "-o", "x.aar", "--threads", "0"], "--threads must be from 1 to"),
        (["aar", "import", "x.aar", "--manifest", "M.json", "-o", "x.pack", "--threads", "100000"], "--threads must be from 1 to"),
    ])
    func outOfRangeValuesAreUsageErrors(arguments: [String], message: String) async throws {
        let s = try workspace()
        let r = try await Assetpack.run(arguments, in: s.path)
        #expect(r.status == 2, "\(arguments): \(r.stderr)")
        #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path).sorted() == ["M.json", "src"])
    }

    @Test func importRefusesAnArchiveThatIsNotAnAssetPack() async throws {
        let s = try workspace()
        let sparkle = try SharedTestData.path("SparkleTestCodeSignApp.aar", in: "apple-archive")
        let r = try await Assetpack.run(["aar", "import", sparkle, "--manifest", "M.json", "-o", "Sparkle.pack"], in: s.path)
        #expect(r.status == 1)
        #expect(r.stderr.contains("no files under Contents/") && r.stderr.contains("SparkleTestCodeSignApp.app"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path).sorted() == ["M.json", "src"])
    }
}
