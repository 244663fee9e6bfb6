import AssetPackFormat
@testable import AssetPacks
import AssetPackTransport
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The repository behind a real caching proxy: Varnish with the VCL docs/HOSTING.md shows, in
/// front of nginx on loopback. Two clients installing the same pack cost the origin one copy of
/// the pack file; a republished catalog reaches clients within its `Cache-Control` max-age, and
/// not before the edge has to ask again; Range requests are answered through the cache.
@Suite(.serialized) struct CDNEdgeTests {
    static let catalogMaxAge = 3

    struct Edge {
        let repo: TestRepository
        let origin: NginxServer
        let edge: VarnishServer

        init() throws {
            repo = try TestRepository("cdn")
            try repo.put("Pack", files: ["a.bin": patternBytes(700_000, seed: 71), "b.txt": Array("version 1\n".utf8)])
            try repo.publish()
            // The origin sends the headers docs/HOSTING.md's nginx block sends, with a catalog
            // max-age of a few seconds so that the test can outlive it.
            origin = try NginxServer(root: repo.path, locations: """
                location ~ \\.pack$ { add_header Cache-Control "public, max-age=31536000, immutable"; }
                location = /catalog.json { add_header Cache-Control "public, max-age=\(CDNEdgeTests.catalogMaxAge)"; }
                """, accessLog: true)
            edge = try VarnishServer(vcl: try DocumentedBlock.first("vcl", in: "docs/HOSTING.md"), backendPort: "8080", originPort: origin.port)
        }

        /// Origin access-log lines for `path` (`/catalog.json`, `/packs/…`).
        func originRequests(_ path: String) -> [[String]] { origin.accessLog().filter { $0.first == path } }
    }

    @Test func twoClientsCostTheOriginOneCopyOfThePack() async throws {
        let cdn = try Edge()
        let pack = try #require(try cdn.repo.catalog().pack(withID: "Pack"))
        for client in ["one", "two"] {
            let manager = try cdn.repo.manager(root: cdn.repo.dir.file("root-\(client)"), urls: [cdn.edge.url("/")])
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
            #expect(try manager.contents(at: "a.bin") == Data(patternBytes(700_000, seed: 71)), "\(client)")
            #expect(try manager.contents(at: "b.txt") == Data("version 1\n".utf8), "\(client)")
        }
        // Both clients read the index and their parts with Range requests; the origin saw one
        // whole-file request for the pack, and sent it once.
        let packRequests = cdn.originRequests("/" + pack.path)
        #expect(packRequests.count == 1, "\(packRequests)")
        #expect(packRequests.first?[1] == "200" && packRequests.first?[2] == String(pack.size), "\(packRequests)")
    }

    @Test func rangeRequestsAreAnsweredThroughTheCache() throws {
        let cdn = try Edge()
        let pack = try #require(try cdn.repo.catalog().pack(withID: "Pack"))
        let bytes = try #require(cdn.repo.contents(pack.path))
        let transport = try CurlTransport()
        for (first, last) in [(UInt64(1000), UInt64(1999)), (pack.size - 64, pack.size - 1), (0, 15)] {
            let response = try transport.send(HTTPRequest(url: cdn.edge.url("/" + pack.path), range: ByteRange(first: first, last: last)))
            #expect(response.status == 206, "bytes \(first)-\(last)")
            #expect(response.body == Array(bytes[Int(first)...Int(last)]), "bytes \(first)-\(last)")
            #expect(response.headers["Content-Range"] == "bytes \(first)-\(last)/\(pack.size)")
        }
        // A query string does not reach the origin as another object.
        let busted = try transport.send(HTTPRequest(url: cdn.edge.url("/" + pack.path + "?nocache=1"), range: ByteRange(first: 0, last: 15)))
        #expect(busted.status == 206 && busted.body == Array(bytes[0...15]))
        #expect(cdn.originRequests("/" + pack.path).count == 1)
        #expect(cdn.originRequests("/" + pack.path + "?nocache=1").isEmpty)
        // Not GET or HEAD, and hidden files, stop at the edge.
        #expect(try transport.send(HTTPRequest(.post, url: cdn.edge.url("/catalog.json"), body: .bytes([1]))).status == 405)
        #expect(try transport.send(HTTPRequest(url: cdn.edge.url("/.staging/x"))).status == 404)
    }

    @Test func aRepublishedCatalogReachesClientsWithinItsMaxAge() async throws {
        let cdn = try Edge()
        let manager = try cdn.repo.manager(root: cdn.repo.dir.file("root"), urls: [cdn.edge.url("/")]) { $0.catalogMaxAge = .zero }
        #expect(try await manager.catalogPack(withID: "Pack").version == 1)
        // The edge keeps the catalog: asked again at once, it answers from its copy (Varnish names
        // two transactions in X-Varnish on a hit) and the origin is not asked.
        let before = cdn.originRequests("/catalog.json").count
        let again = try CurlTransport().send(HTTPRequest(url: cdn.edge.url("/catalog.json")))
        #expect(again.status == 200 && again.headers["X-Varnish"]?.split(separator: " ").count == 2, "\(again.headers)")
        #expect(cdn.originRequests("/catalog.json").count == before)
        try cdn.repo.put("Pack", files: ["a.bin": patternBytes(700_000, seed: 71), "b.txt": Array("version 2\n".utf8)])
        try cdn.repo.publish()
        let published = ContinuousClock.now
        var fetches = 0
        try await waitUntil("the client sees catalog version 2 through the edge", timeout: .seconds(Self.catalogMaxAge + 20), interval: .milliseconds(100)) {
            fetches += 1
            return try await manager.catalogPack(withID: "Pack").version == 2
        }
        let elapsed = ContinuousClock.now - published
        // Within the max-age the edge answers alone: the origin was asked for the catalog once
        // before the publish and at most once per max-age after it (plus one for the boundary).
        let originFetches = cdn.originRequests("/catalog.json").count
        let bound = 2 + Int((elapsed / .seconds(Self.catalogMaxAge)).rounded(.up))
        #expect(originFetches <= bound, "\(originFetches) origin fetches for \(fetches) client fetches in \(elapsed)")
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"), requireLatestVersion: true)
        #expect(try manager.contents(at: "b.txt") == Data("version 2\n".utf8))
    }
}
