import AppleArchive
import AssetPackFormat
import AssetPackPackaging
import Foundation
import Testing
import TestSupport

/// `ApplePackImporter`: an archive in ba-package's layout becomes a pack with the same tree.
@Suite struct ApplePackImporterTests {
    @Test func thePackExtractsToTheArchivedTree() throws {
        let dir = try TemporaryDirectory("apple-import")
        try ApplePackArchiverTests.makeTree(dir)
        let archive = dir.file("Levels.aar")
        _ = try ApplePackArchiver(compression: .zlib).write(manifestAt: dir.file("Manifest.json"), baseDirectory: dir.path, to: archive)
        let summary = try ApplePackImporter().importArchive(at: archive, manifestAt: dir.file("Manifest.json"), to: dir.file("Levels.pack"))
        #expect(summary.unexpectedEntries.isEmpty)

        let reader = try PackReader(path: dir.file("Levels.pack"))
        #expect(reader.index.metadata.assetPackID == "Levels")
        #expect(reader.index.metadata.downloadPolicy == .onDemand)
        try PackExtractor(reader: reader).extract(to: dir.file("out"))
        let source = snapshot(dir.file("src")), extracted = snapshot(dir.file("out"))
        #expect(summary.pack.fileCount == source.count)
        #expect(source.keys.sorted() == extracted.keys.sorted())
        for (path, (bytes, mode)) in source {
            #expect(extracted[path]?.0 == bytes && extracted[path]?.1 == mode, "\(path) differs")
        }
        // The staging folder is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func entriesTheLayoutDoesNotExpectAreReportedNotPacked() throws {
        let dir = try TemporaryDirectory("apple-import")
        try ApplePackArchiverTests.makeTree(dir)
        let archive = dir.file("Odd.aar")
        let writer = try AppleArchiveWriter(path: archive, compression: .zlib)
        try writer.addDirectory("Contents")
        try text("level one").withUnsafeBytes { try writer.addFile("Contents/level1.json", mode: 0o644, contents: $0) }
        try writer.addSymbolicLink("Contents/latest.json", target: "level1.json")
        try text("<plist/>").withUnsafeBytes { try writer.addFile("Info.plist", mode: 0o644, contents: $0) }
        try writer.finish()

        let summary = try ApplePackImporter().importArchive(at: archive, manifestAt: dir.file("Manifest.json"), to: dir.file("Odd.pack"))
        #expect(summary.unexpectedEntries.map(\.path) == ["Info.plist", "Contents/latest.json"])
        #expect(summary.unexpectedEntries[0].reason.contains("outside Contents/"))
        #expect(summary.unexpectedEntries[1].reason.contains("symbolic link"))
        let reader = try PackReader(path: dir.file("Odd.pack"))
        #expect(reader.index.files.map(\.path) == ["level1.json"])
    }

    @Test func anArchiveWithoutContentsIsRefused() throws {
        let dir = try TemporaryDirectory("apple-import")
        try ApplePackArchiverTests.makeTree(dir)
        // Apple's own archive of an app bundle: a real .aar, but not an asset pack.
        let sparkle = try SharedTestData.path("SparkleTestCodeSignApp.aar", in: "apple-archive")
        let error = #expect(throws: ApplePackError.self) {
            try ApplePackImporter().importArchive(at: sparkle, manifestAt: dir.file("Manifest.json"), to: dir.file("Sparkle.pack"))
        }
        #expect("\(String(describing: error))".contains("no files under Contents/"))
        #expect("\(String(describing: error))".contains("'SparkleTestCodeSignApp.app'"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["Manifest.json", "src"])
    }

    @Test func aHostileArchiveIsRefusedWithItsEntry() throws {
        let dir = try TemporaryDirectory("apple-import")
        try ApplePackArchiverTests.makeTree(dir)
        // Two entries with one path: the reader's error names the second.
        var stream: [UInt8] = []
        for _ in 0..<2 { stream += try AppleArchiveEntryHeader(kind: .directory, path: "Contents", mode: 0o755).encoded() }
        try dir.write("Twice.aar", stream)
        let error = #expect(throws: AppleArchiveError.self) {
            try ApplePackImporter().importArchive(at: dir.file("Twice.aar"), manifestAt: dir.file("Manifest.json"), to: dir.file("Twice.pack"))
        }
        #expect("\(String(describing: error))".contains("entry 1 (Contents)"))
        #expect(!dir.exists("Twice.pack"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func anInvalidManifestWritesNothing() throws {
        let dir = try TemporaryDirectory("apple-import")
        try ApplePackArchiverTests.makeTree(dir)
        let archive = dir.file("Levels.aar")
        _ = try ApplePackArchiver(compression: .none).write(manifestAt: dir.file("Manifest.json"), baseDirectory: dir.path, to: archive)
        try dir.write("Bad.json", #"{ "assetPackID": "", "downloadPolicy": { "onDemand": {} }, "fileSelectors": [], "platforms": ["iOS"] }"#)
        let error = #expect(throws: ApplePackError.self) {
            try ApplePackImporter().importArchive(at: archive, manifestAt: dir.file("Bad.json"), to: dir.file("Levels.pack"))
        }
        #expect("\(String(describing: error))".contains("Bad.json"))
        #expect(!dir.exists("Levels.pack"))
    }
}
