import AssetPackFormat
import AssetPackPackaging
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A repository of many packs: a publish past the packs a repository may hold is refused before
/// anything is read or written, naming the limit; a republish after one pack changed packages
/// that pack alone and reads nothing of the packs it reuses but what the publish cache holds.
@Suite struct ManyPacksPublishTests {
    @Test func morePacksThanARepositoryHoldsAreRefusedNamingTheLimit() throws {
        let ws = try workspace()
        // The manifests need not exist: the count alone is refused, before any is read.
        let manifests = (0...Catalog.maximumPacks).map { ws.dir.file("Pack\($0).json") }
        #expect(manifests.count == 10_001)
        #expect {
            try Publisher(key: testKey, options: ws.options()).publish(manifests: manifests)
        } throws: { error in
            "\(error)" == "10001 manifests, more than the 10000 packs a repository may hold (a catalog lists at most 10000); nothing was published"
        }
        #expect(!FileManager.default.fileExists(atPath: ws.path))
        // At the limit the count is no obstacle: the publish goes on to read the manifests (and
        // here fails on the first missing one).
        #expect {
            try Publisher(key: testKey, options: ws.options()).publish(manifests: Array(manifests.dropLast()))
        } throws: { error in
            guard case PublishError.invalidManifests(let diagnostics) = error else { return false }
            return diagnostics.first?.file == manifests[0]
        }
        #expect(!FileManager.default.fileExists(atPath: ws.path))
    }

    @Test func aRepublishAfterOneChangePackagesThatPackAndReadsNoOtherPackFile() async throws {
        let ws = try workspace()
        let count = 40
        for i in 0..<count { try ws.put(String(format: "Pack%02d", i), files: [String(format: "f%02d.txt", i): Array("pack \(i)\n".utf8)]) }
        await settle(ws)
        let first = try Publisher(key: testKey, options: ws.options()).publish(manifests: ws.manifestPaths)
        #expect(first.builds.filter(\.reused).isEmpty && first.builds.allSatisfy(\.cached))

        try ws.put("Pack07", files: ["f07.txt": Array("pack 7, changed\n".utf8)])
        await settle(ws)
        let second = try Publisher(key: testKey, options: ws.options { $0.now += 60 }).publish(manifests: ws.manifestPaths)
        #expect(second.builds.filter { !$0.reused }.map(\.id) == ["Pack07"])
        #expect(second.indexesRead == 0, "the 39 reused pack files were looked at by their stamps alone")
        #expect(second.changes.filter { $0.kind != .unchanged }.map(\.id) == ["Pack07"])

        // A reused pack file written to since (here with its own bytes: its ctime moved) is
        // checked by its index again, then recorded with its new stamp.
        let pack3 = try #require(second.catalog?.pack(withID: "Pack03"))
        let path = "\(ws.path)/\(pack3.path)"
        let bytes = try #require(FileManager.default.contents(atPath: path))
        try bytes.write(to: URL(fileURLWithPath: path))
        let third = try Publisher(key: testKey, options: ws.options { $0.now += 120 }).publish(manifests: ws.manifestPaths)
        #expect(third.indexesRead == 1)
        let thirdReused = third.builds.allSatisfy { $0.reused }
        #expect(thirdReused)
        let fourth = try Publisher(key: testKey, options: ws.options { $0.now += 180 }).publish(manifests: ws.manifestPaths)
        let fourthReused = fourth.builds.allSatisfy { $0.reused }
        #expect(fourth.indexesRead == 0 && fourthReused)
    }

    /// nginx's ETag and every server's Last-Modified are the mtime in whole seconds (and the
    /// size): publishes within one second must still change them, or a client asking
    /// conditionally would be told that nothing changed.
    @Test func everyPublishMovesTheCatalogToALaterSecond() throws {
        let ws = try workspace()
        try ws.put("Pack", files: ["a.txt": Array("a\n".utf8)])
        func mtime(_ relative: String) throws -> Int {
            var st = stat()
            guard stat("\(ws.path)/\(relative)", &st) == 0 else { throw TestSupportError("no \(relative)") }
            return st.st_mtim.tv_sec
        }
        for channel in [nil, "beta"] {
            let path = ChannelName.catalogPath(channel)
            var seconds: [Int] = []
            for k in 0..<3 {
                _ = try Publisher(key: testKey, options: ws.options { $0.channel = channel; $0.now += Double(k) }).publish(manifests: ws.manifestPaths)
                seconds.append(try mtime(path))
            }
            #expect(zip(seconds, seconds.dropFirst()).allSatisfy { $0 < $1 }, "\(path): \(seconds)")
        }
    }
}
