import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Another process of the same user can write into the repository folder between two publishes:
/// a link planted where a pack's folder was must not make the next publish write elsewhere.
@Suite struct RepositoryLinkTests {
    @Test func aPackFolderReplacedByALinkIsNotWrittenThrough() throws {
        let ws = try workspace()
        try ws.put("Alpha", files: ["big.bin": patternBytes(100_000, seed: 11)])
        _ = try Publisher(key: testKey, options: ws.options()).publish(manifests: ["\(ws.dir.path)/Alpha.json"])
        let before = ws.catalogBytes()

        // Between the runs: packs/Alpha becomes a link to a folder outside the repository.
        let outside = ws.dir.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let folder = ws.path + "/packs/Alpha"
        try FileManager.default.moveItem(atPath: folder, toPath: ws.dir.file("moved-away"))
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: outside)

        try ws.put("Alpha", files: ["big.bin": patternBytes(100_000, seed: 12)])
        let options = ws.options { $0.now = publishedAt.addingTimeInterval(60) }
        var message = ""
        do { _ = try Publisher(key: testKey, options: options).publish(manifests: ["\(ws.dir.path)/Alpha.json"]) } catch { message = "\(error)" }
        #expect(message.contains(folder) && message.contains("symbolic link"), "\(message)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: outside)) ?? []).isEmpty)
        #expect(ws.catalogBytes() == before)
    }

    /// A pack file the next publish would reuse (or describe in place), replaced by a link to an
    /// identical copy outside: the publish reads nothing through it and says which file to remove.
    @Test func aPackFileReplacedByALinkIsNotReadThrough() throws {
        let ws = try workspace()
        try ws.put("Alpha", files: ["big.bin": patternBytes(100_000, seed: 13)])
        let first = try Publisher(key: testKey, options: ws.options()).publish(manifests: ["\(ws.dir.path)/Alpha.json"])
        let before = ws.catalogBytes()
        let path = ws.path + "/" + (first.catalog?.packs.first?.path ?? "")
        let copy = ws.dir.file("copy.pack")
        try FileManager.default.moveItem(atPath: path, toPath: copy)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: copy)

        let options = ws.options { $0.now = publishedAt.addingTimeInterval(60) }
        var message = ""
        do { _ = try Publisher(key: testKey, options: options).publish(manifests: ["\(ws.dir.path)/Alpha.json"]) } catch { message = "\(error)" }
        #expect(message.contains(path) && message.contains("symbolic link") && message.contains("remove it"), "\(message)")
        #expect(ws.catalogBytes() == before)
    }
}
