import AssetPackFormat
import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing
@testable import AssetPackServer

/// `assetpack serve` as a stand-in for `ba-serve`: Apple's `/manifest` and `/assets/<id>` from
/// what `publish --apple-base-url` wrote.
@Suite struct AppleConventionTests {
    /// A repository published for Apple devices: alpha on iOS, beta on macOS, gamma everywhere.
    static func applePublished(channel: String? = nil) throws -> TestRepository {
        let repo = try TestRepository("apple-serve")
        try repo.put("alpha", platforms: [.iOS], files: ["a.bin": patternBytes(300_000, seed: 1)])
        try repo.put("beta", platforms: [.macOS], files: ["b.bin": patternBytes(4000, seed: 2)])
        try repo.put("gamma", platforms: [.iOS, .macOS, .tvOS], files: ["g.bin": patternBytes(2000, seed: 3)])
        try repo.publishReport { o in
            o.appleBaseURL = "https://127.0.0.1:8443/assets"
            o.appleCompression = .zlib
            o.channel = channel
        }
        return repo
    }

    static func ids(_ response: RawResponse) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return try #require(object["assetPacks"] as? [[String: Any]]).compactMap { $0["id"] as? String }
    }

    @Test func answersTheManifestFilteredByPlatform() throws {
        let repo = try Self.applePublished()
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        let all = try c.request("/manifest")
        #expect(all.status == 200)
        #expect(all.body == repo.contents("apple/manifest.json"))
        #expect(all.header("Content-Type") == "application/json")
        #expect(all.header("Cache-Control") == "public, no-cache")
        #expect(try Self.ids(all) == ["alpha", "beta", "gamma"])
        #expect(try Self.ids(c.request("/manifest?platform=iOS")) == ["alpha", "gamma"])
        #expect(try Self.ids(c.request("/manifest?platform=ios")) == ["alpha", "gamma"])
        #expect(try Self.ids(c.request("/manifest?v=2&platform=MACOS&x")) == ["beta", "gamma"])
        #expect(try Self.ids(c.request("/manifest?platform=visionOS")).isEmpty)
        // Unknown parameters, and a platform that is none, are ignored: the whole manifest.
        #expect(try Self.ids(c.request("/manifest?foo=bar")) == ["alpha", "beta", "gamma"])
        #expect(try Self.ids(c.request("/manifest?platform=watchOS")) == ["alpha", "beta", "gamma"])
        let head = try c.request("/manifest?platform=iOS", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("Content-Length") == String(repo.contents("apple/manifests/ios.json")!.count))
    }

    @Test func servesArchivesWithRangesAndETags() throws {
        let repo = try Self.applePublished()
        let archive = try #require(repo.contents("apple/assets/alpha"))
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        let whole = try c.request("/assets/alpha")
        #expect(whole.status == 200 && whole.body == archive)
        #expect(whole.header("Content-Type") == "application/octet-stream")
        #expect(whole.header("Cache-Control") == "public, no-cache")
        #expect(whole.header("Accept-Ranges") == "bytes")
        let etag = try #require(whole.header("ETag"))
        let range = try c.request("/assets/alpha", headers: ["Range": "bytes=100-1099"])
        #expect(range.status == 206 && range.body == Array(archive[100...1099]))
        #expect(range.header("Content-Range") == "bytes 100-1099/\(archive.count)")
        let multi = try c.request("/assets/alpha", headers: ["Range": "bytes=0-9,200-209"])
        #expect(multi.status == 206)
        #expect(multi.header("Content-Type")?.hasPrefix("multipart/byteranges; boundary=") == true)
        #expect(try c.request("/assets/alpha", headers: ["If-None-Match": etag]).status == 304)
        let resumed = try c.request("/assets/alpha", headers: ["Range": "bytes=-10", "If-Range": etag])
        #expect(resumed.status == 206 && resumed.body == Array(archive.suffix(10)))
        #expect(try c.request("/assets/nothing").status == 404)
        #expect(try c.request("/assets/../catalog.json").status == 403)
        #expect(try c.request("/assets/%2e%2e/catalog.json").status == 403)
        #expect(try c.request("/assets/.hidden").status == 404)
        // A link in the assets folder that leads out is refused.
        try FileManager.default.createSymbolicLink(atPath: repo.path + "/apple/assets/escape", withDestinationPath: "/etc/hostname")
        #expect(try c.request("/assets/escape").status == 403)
    }

    @Test func channelsAnswerUnderTheirPath() throws {
        let repo = try Self.applePublished(channel: "beta")
        let server = try repo.serve()
        let c = try RawHTTPConnection(port: server.port)
        #expect(try Self.ids(c.request("/channels/beta/manifest?platform=tvOS")) == ["gamma"])
        #expect(try c.request("/channels/beta/assets/beta").body == repo.contents("channels/beta/apple/assets/beta"))
        #expect(try c.request("/manifest").status == 404)
    }

    @Test func faultsApplyToArchivesAsToPacks() throws {
        let repo = try Self.applePublished()
        let server = try repo.serve { $0.failRate = 1 }
        let c = try RawHTTPConnection(port: server.port)
        #expect(try c.request("/assets/alpha").status == 503)
        #expect(try c.request("/manifest").status == 200)
    }

    @Test func servesOverHTTPSWithTheLocalCA() throws {
        let repo = try Self.applePublished()
        let tlsDir = repo.dir.file("tls")
        let tls = try TLSDirectory.prepare(at: tlsDir, host: "127.0.0.1", serving: repo.path)
        let server = try repo.serve(tls: tls.identity)
        let manifest = try ChildProcess.runBlocking("/usr/bin/curl", ["-sS", "--fail", "--cacert", tlsDir + "/ca.pem", server.url + "manifest?platform=iOS"])
        #expect(manifest.status == 0, "\(manifest.stderr)")
        #expect(Array(manifest.output) == repo.contents("apple/manifests/ios.json"))
        let archive = try #require(repo.contents("apple/assets/beta"))
        let range = try ChildProcess.runBlocking("/usr/bin/curl", ["-sS", "--fail", "--cacert", tlsDir + "/ca.pem", "-r", "10-99", server.url + "assets/beta"])
        #expect(Array(range.output) == Array(archive[10...99]))
    }
}
