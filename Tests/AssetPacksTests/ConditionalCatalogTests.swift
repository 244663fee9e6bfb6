@testable import AssetPacks
import AssetPackFormat
import Foundation
import TestRepositories
import TestSupport
import Testing

/// An update with nothing new costs a few hundred bytes whatever the number of packs: the client
/// asks for the catalog with the `ETag` it was given (`If-None-Match`), nginx and `assetpack
/// serve` answer `304 Not Modified`, and the catalog held is verified again as if it had been
/// sent (docs/FORMAT.md, "Conditional catalog requests"). A repository of 150 packs (a format-3
/// catalog) stands for a large one: the bytes, not the time, are asserted.
@Suite(.serialized) struct ConditionalCatalogTests {
    static let packCount = 150

    /// A repository of `packCount` one-file packs, published.
    static func manyPacks() throws -> TestRepository {
        let repo = try TestRepository("many-packs")
        for i in 0..<packCount {
            try repo.put(String(format: "Pack%03d", i), files: [String(format: "file%03d.txt", i): Array("pack \(i)\n".utf8)])
        }
        try repo.publish()
        return repo
    }

    /// Runs one `installUpdates` of a manager of its own for `root`, as `assetpack update` does.
    static func update(_ repo: TestRepository, root: String, url: String, now: (@Sendable () -> Date)? = nil) async throws -> (updated: [AssetPack], removed: [String]) {
        let manager = try repo.manager(root: root, urls: [url]) { if let now { $0.now = now } }
        return try await manager.installUpdates()
    }

    @Test func nothingNewFromNginxCostsTheHeaders() async throws {
        let repo = try Self.manyPacks()
        let catalogSize = try #require(repo.contents("catalog.json")).count
        #expect(try SignedCatalog.parse(repo.catalogBytes()).format == CatalogFormat.compressed)
        let nginx = try NginxServer(root: repo.path, accessLog: true)
        let root = repo.dir.file("root")
        let catalogLines = { nginx.accessLog().filter { $0.first == "/catalog.json" } }

        _ = try await Self.update(repo, root: root, url: nginx.url("/"))
        try await waitUntil("nginx logs the first catalog request") { catalogLines().count == 1 }
        #expect(catalogLines()[0][1] == "200" && catalogLines()[0][2] == String(catalogSize))
        let before = nginx.accessLog().count

        let result = try await Self.update(repo, root: root, url: nginx.url("/"))
        #expect(result.updated.isEmpty && result.removed.isEmpty)
        try await waitUntil("nginx logs the second catalog request") { catalogLines().count == 2 }
        #expect(catalogLines()[1][1] == "304")
        let sent = nginx.accessLog().dropFirst(before).reduce(0) { $0 + (Int($1[2]) ?? 0) }
        #expect(sent <= 64 << 10, "\(sent) bytes for an update with nothing new")

        // A republish is seen at once: the catalog changed, so did its ETag.
        try repo.put("Pack007", files: ["file007.txt": Array("pack 7, version 2\n".utf8)])
        try repo.publish()
        let manager = try repo.manager(root: root, urls: [nginx.url("/")])
        #expect(try await manager.catalogPack(withID: "Pack007").version == 2)
        try await waitUntil("nginx logs the third catalog request") { catalogLines().count == 3 }
        #expect(catalogLines()[2][1] == "200")
    }

    @Test func nothingNewFromServeCostsTheHeaders() async throws {
        let repo = try Self.manyPacks()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let catalogRequests = { server.requests().filter { $0.path == "/catalog.json" } }
        // One pack installed, as a client would have: an update also looks at what it holds.
        try await repo.install("Pack001", root: root, server: server)
        #expect(catalogRequests().map(\.status) == [200])
        let before = server.requests().count

        _ = try await Self.update(repo, root: root, url: server.url)
        try await waitUntil("serve logs the second catalog request") { catalogRequests().count == 2 }
        #expect(catalogRequests().map(\.status).sorted() == [200, 304])
        let sent = server.requests().dropFirst(before).reduce(0) { $0 + $1.bytes }
        #expect(sent <= 64 << 10, "\(sent) bytes for an update with nothing new")
    }

    @Test func nothingNewInRootModeCostsTheRootAndTheTimestamp() async throws {
        let repo = try TestRepository("many-packs-root")
        for i in 0..<Self.packCount {
            try repo.put(String(format: "Pack%03d", i), files: [String(format: "file%03d.txt", i): Array("pack \(i)\n".utf8)])
        }
        let keys = try TestRootKeys()
        try repo.startRoot(keys)
        try repo.publish(keys)
        let nginx = try NginxServer(root: repo.path, accessLog: true)
        let root = repo.dir.file("root")
        func update() async throws {
            let manager = try repo.manager(root: root, urls: [nginx.url("/")]) { $0.rootKey = keys.root.publicKey }
            _ = try await manager.installUpdates()
        }
        try await update()
        try await waitUntil("nginx logs the catalog request") { nginx.accessLog().contains { $0.first == "/catalog.json" } }
        let before = nginx.accessLog().count
        try await update()
        try await waitUntil("nginx logs the timestamp request") { nginx.accessLog().dropFirst(before).contains { $0.first == "/timestamp.json" } }
        let lines = nginx.accessLog().dropFirst(before)
        #expect(!lines.contains { $0.first == "/catalog.json" }, "\(lines)")
        let sent = lines.reduce(0) { $0 + (Int($1[2]) ?? 0) }
        #expect(sent <= 64 << 10, "\(sent) bytes for an update with nothing new")
    }

    @Test func aNotModifiedAnswerIsVerifiedAgainLikeTheCatalogItStandsFor() async throws {
        let repo = try TestRepository("conditional-expiry")
        try repo.put("Pack", files: ["a.txt": Array("a\n".utf8)])
        try repo.publish(expiresIn: 3600)
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let clock = TestClock()
        _ = try await Self.update(repo, root: root, url: server.url, now: { clock.now() })
        // Two hours on, the mirror still says "not modified": the catalog that stands for has
        // expired, and the client says so instead of going on with it.
        clock.advance(by: 2 * 3600)
        await #expect {
            _ = try await Self.update(repo, root: root, url: server.url, now: { clock.now() })
        } throws: { error in
            guard case AssetPackManagerError.catalog(.expired) = error else { return false }
            return true
        }
        // (Lines reach the log as connections finish, not in request order.)
        try await waitUntil("serve logs both catalog requests") { server.requests().filter { $0.path == "/catalog.json" }.count == 2 }
        #expect(server.requests().filter { $0.path == "/catalog.json" }.map(\.status).sorted() == [200, 304])
    }

    @Test func aTagIsSentOnlyForTheBytesItWasGivenFor() throws {
        let envelope = Array("catalog bytes".utf8)
        let validator = CatalogValidator(path: "catalog.json", envelope: envelope, entityTag: "\"5f-abc\"")
        #expect(validator.entityTag(for: "catalog.json", holding: envelope) == "\"5f-abc\"")
        #expect(validator.entityTag(for: "channels/beta/catalog.json", holding: envelope) == nil)
        #expect(validator.entityTag(for: "catalog.json", holding: envelope + [0x0a]) == nil)
        #expect(CatalogValidator(text: validator.text) == validator)
        #expect(CatalogValidator(text: "catalog.json\nabc") == nil)
        #expect(!CatalogValidator.isUsable("\"a\"\r\nX-Injected: 1"))
        #expect(CatalogValidator.isUsable("W/\"5f-abc\""))
    }
}
