import AssetPackPackaging
import Foundation
import Testing
@testable import AssetPackFormat
import TestSupport

/// `PackWriter.write(manifestAt:to:)` packs while the selection walks the tree: it must give the
/// same bytes as packing the resolved list, whatever order the walk finds the files in, and
/// write nothing when the selection finds an error.
@Suite struct PackWhileSelectingTests {
    /// Several top folders of small and large files, two levels deep, and names that sort
    /// between a folder and its contents ("a" then "a.txt" then "a/…" in pack order).
    private func makeTree(_ dir: TemporaryDirectory, ordered: Bool) throws {
        for top in 0..<5 {
            for sub in 0..<3 {
                for i in 0..<30 { try dir.write("src/t\(top)/s\(sub)/f\(i).json", textBytes(50 + i * 13, seed: UInt64(top * 1000 + sub * 100 + i))) }
            }
            try dir.write("src/t\(top)/big.bin", patternBytes(400_000, seed: UInt64(top)))
        }
        try dir.write("src/top.txt", "top\n")
        if !ordered {
            try dir.write("src/a/inner.txt", "inner\n")
            try dir.write("src/a.txt", "beside\n")
        }
    }

    private func manifest(_ selectors: String) -> String {
        """
        { "assetPackID": "Streamed", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [ \(selectors) ],
          "platforms": ["iOS"], "sourceRoot": "src" }
        """
    }

    private func bothWays(_ manifestText: String, ordered: Bool) throws -> (streamed: [UInt8], listed: [UInt8], files: Int) {
        let dir = try TemporaryDirectory("stream"); defer { dir.remove() }
        try makeTree(dir, ordered: ordered)
        let manifestPath = try dir.write("Manifest.json", manifestText)
        let (resolved, summary) = try PackWriter().write(manifestAt: manifestPath, baseDirectory: dir.path, to: dir.file("streamed.pack"))
        #expect(resolved.isValid, "\(resolved.diagnostics)")
        let listed = ResolvedManifest(path: manifestPath, baseDirectory: dir.path)
        _ = try PackWriter().write(metadata: PackMetadata(listed.manifest!), files: listed.files, to: dir.file("listed.pack"))
        #expect(summary?.fileCount == listed.files.count)
        let streamed = try #require(FileManager.default.contents(atPath: dir.file("streamed.pack")))
        let reference = try #require(FileManager.default.contents(atPath: dir.file("listed.pack")))
        return ([UInt8](streamed), [UInt8](reference), listed.files.count)
    }

    @Test func aTreeWalkedSideBySideGivesTheSameBytes() throws {
        let r = try bothWays(manifest(#"{ "directory": "." }"#), ordered: true)
        #expect(r.files == 5 * 3 * 30 + 5 + 1)
        #expect(r.streamed == r.listed)
    }

    @Test func filesFoundOutOfPackOrderArePackedSorted() throws {
        // "a.txt" sorts before "a/inner.txt" but the walk lists folder "a" first; and two
        // selectors hand their files one selector after the other.
        let r1 = try bothWays(manifest(#"{ "directory": "." }"#), ordered: false)
        #expect(r1.streamed == r1.listed)
        let r2 = try bothWays(manifest(#"{ "directory": "t3" }, { "directory": "t1" }, { "file": "top.txt" }"#), ordered: true)
        #expect(r2.files == 2 * (3 * 30 + 1) + 1)
        #expect(r2.streamed == r2.listed)
    }

    /// One selector streams: each folder is walked in pack order ("a-b.txt" and "a.txt" before
    /// the folder "a", "a" itself after "a/…"'s namesake file), so nothing falls back to a second
    /// walk (the streamed selection keeps no list), and the bytes are those of the sorted list.
    @Test func aFolderBesideFilesThatSortAroundItStreamsInPackOrder() throws {
        let dir = try TemporaryDirectory("stream"); defer { dir.remove() }
        try makeTree(dir, ordered: false)
        for name in ["a-b.txt", "a0", "t1.json", "t1-x/deep.txt", "a/b/c.txt", "a/b.txt"] { try dir.write("src/" + name, name) }
        let manifestPath = try dir.write("Manifest.json", manifest(#"{ "directory": "." }"#))
        let (resolved, summary) = try PackWriter().write(manifestAt: manifestPath, baseDirectory: dir.path, to: dir.file("streamed.pack"))
        #expect(resolved.isValid, "\(resolved.diagnostics)")
        #expect(resolved.files.isEmpty, "the selection fell back to a whole list")
        let listed = ResolvedManifest(path: manifestPath, baseDirectory: dir.path)
        _ = try PackWriter().write(metadata: PackMetadata(listed.manifest!), files: listed.files, to: dir.file("listed.pack"))
        #expect(summary?.fileCount == listed.files.count)
        #expect(FileManager.default.contents(atPath: dir.file("streamed.pack")) == FileManager.default.contents(atPath: dir.file("listed.pack")))
    }

    /// The case check of a streamed selection (the paths case folding changes, and their folded
    /// forms looked for on disk) warns as the check of the whole list does.
    @Test func aStreamedSelectionWarnsAboutCaseAsTheListDoes() throws {
        let dir = try TemporaryDirectory("stream"); defer { dir.remove() }
        for name in ["b", "B", "z", "Z", "é.txt", "É.txt", "e.txt", "Sub/x", "sub/x", "sub/y", "Only/one", "MIXED", "Mixed", "mixed"] {
            try dir.write("src/d/" + name, name)
        }
        let manifestPath = try dir.write("Manifest.json", manifest(#"{ "directory": "d" }"#))
        let (resolved, summary) = try PackWriter().write(manifestAt: manifestPath, baseDirectory: dir.path, to: dir.file("streamed.pack"))
        #expect(summary != nil)
        let listed = ResolvedManifest(path: manifestPath, baseDirectory: dir.path)
        #expect(listed.diagnostics.count == 6, "\(listed.diagnostics)")
        #expect(resolved.diagnostics.map(\.message) == listed.diagnostics.map(\.message))
    }

    @Test func aSelectionErrorWritesNothing() throws {
        let dir = try TemporaryDirectory("stream"); defer { dir.remove() }
        try makeTree(dir, ordered: true)
        // A link out of the source root, found deep in the walk while packing is under way.
        try dir.write("outside/secret.txt", "secret\n")
        try FileManager.default.createSymbolicLink(atPath: dir.file("src/t4/s2/escape.txt"), withDestinationPath: dir.file("outside/secret.txt"))
        let manifestPath = try dir.write("Manifest.json", manifest(#"{ "directory": "." }"#))
        let (resolved, summary) = try PackWriter().write(manifestAt: manifestPath, baseDirectory: dir.path, to: dir.file("out.pack"))
        #expect(summary == nil)
        #expect(!resolved.isValid)
        #expect(resolved.diagnostics.contains { $0.description.contains("t4/s2/escape.txt") && $0.description.contains("outside the source root") },
                "\(resolved.diagnostics)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.pack")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.contains(".pack") })
    }

    @Test func aManifestThatDoesNotDecodeWritesNothing() throws {
        let dir = try TemporaryDirectory("stream"); defer { dir.remove() }
        let manifestPath = try dir.write("Manifest.json", #"{ "assetPackID": 7 }"#)
        let (resolved, summary) = try PackWriter().write(manifestAt: manifestPath, baseDirectory: dir.path, to: dir.file("out.pack"))
        #expect(summary == nil)
        #expect(resolved.diagnostics.hasErrors)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.pack")))
    }
}
