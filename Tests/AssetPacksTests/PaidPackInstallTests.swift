@testable import AssetPacks
import AssetPackFormat
import AssetPackServer
import AssetPackTransport
import Foundation
import Synchronization
import TestRepositories
import TestSupport
import Testing

/// Paid (sealed) packs on the client, against a real key server on loopback: an entitlement is
/// asked for before any pack byte moves, every refusal is precise, a wrong key or a tampered
/// frame writes nothing, and updates still fetch only what changed, without the key server.
@Suite struct PaidPackInstallTests {
    /// The decisions a key server logged.
    final class DecisionLog: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    struct Fixture {
        let repo: TestRepository
        let server: TestServer
        let keyServer: KeyServer
        let log: DecisionLog
        let root: StorageRoot
    }

    static let grants = """
    {"format": "assetpack-grants", "version": 1, "tokens": {
      "tok-good": {"packs": ["Paid"]},
      "tok-expired": {"packs": ["Paid"], "expires": "2020-01-01T00:00:00Z"},
      "tok-revoked": {"packs": ["Paid"], "revoked": true},
      "tok-other": {"packs": ["Other"]}}}
    """

    func fixture(frozenClock: Bool = false, files: [String: [UInt8]] = ["level/map.bin": patternBytes(3 << 20, seed: 21), "level/names.txt": textBytes(20_000, seed: 22)]) throws -> Fixture {
        let repo = try TestRepository()
        try repo.put("Paid", files: files)
        try repo.put("Free", files: ["free.txt": text("free\n")])
        try repo.publishReport(now: Date()) { $0.encrypt = ["Paid"]; $0.keyStorePath = repo.dir.file("keys.json") }
        let log = DecisionLog()
        var configuration = KeyServer.Configuration()
        configuration.log = { log.append($0) }
        // The rate limit counts on a clock that does not move: no refill during the test.
        if frozenClock { configuration.monotonicSeconds = { 1000 } }
        let grantsPath = try repo.dir.write("grants.json", Self.grants)
        let keyServer = try KeyServer(keyStorePath: repo.dir.file("keys.json"), check: .grants(try EntitlementGrants.load(grantsPath)),
                                      configuration: configuration)
        return Fixture(repo: repo, server: try repo.serve(), keyServer: keyServer, log: log, root: StorageRoot(path: repo.dir.file("root")))
    }

    func manager(_ f: Fixture, token: String?, keyServer: String? = nil) throws -> AssetPackManager {
        try f.repo.manager(root: f.root.path, server: f.server) { c in
            if let token { c.entitlementProvider = { _ in token } }
            c.keyServerURL = keyServer ?? f.keyServer.url
        }
    }

    @Test func aPaidPackInstallsWithAGrantedTokenAndUpdatesByDeltaWithoutTheKeyServer() async throws {
        var files = ["level/map.bin": patternBytes(3 << 20, seed: 21), "level/names.txt": textBytes(20_000, seed: 22)]
        let f = try fixture(files: files)
        do {
            let manager = try manager(f, token: "tok-good")
            let pack = try await manager.catalogPack(withID: "Paid")
            #expect(pack.requiresEntitlement)
            #expect(try await manager.status(relativeTo: pack).contains(.requiresEntitlement))
            try await manager.ensureLocalAvailability(of: pack)
            #expect(try manager.contents(at: "level/map.bin") == Data(files["level/map.bin"]!))
            #expect(try await manager.status(relativeTo: pack) == [.downloaded, .upToDate])
            // The store keeps the opened index (the pack's own bytes are sealed), decoded without the key.
            let stored = try #require(try f.root.store().installedPack("Paid"))
            #expect(SHA256Digest.hash(stored.indexBytes) != stored.digest)
            #expect(try PackIndex.decode(stored.indexBytes, indexOffset: stored.indexOffset, opened: true).files.count == files.count)
        }
        #expect(f.log.all.count == 1 && f.log.all[0].contains(" 200 granted"))
        #expect(!f.log.all[0].contains("tok-good"), "the log names tokens by fingerprint only")

        // Version 2: a small edit. Same key: no key server, and only the changed chunk moves.
        for i in 0..<64 { files["level/map.bin"]![1_500_000 + i] ^= 0x5A }
        try f.repo.put("Paid", files: files)
        try f.repo.publishReport(now: Date()) { $0.keyStorePath = f.repo.dir.file("keys.json") }
        f.keyServer.stop()
        let down = try RefusingPort()
        let manager = try manager(f, token: "tok-good", keyServer: down.url)
        let (updated, _) = try await manager.installUpdates()
        #expect(updated.map(\.description) == ["Paid v2"])
        let v2 = try await manager.catalogPack(withID: "Paid")
        let fetched = await manager.fetchedBytes
        #expect(fetched * 4 < v2.downloadSize, "the update of a sealed pack fetched \(fetched) bytes of \(v2.downloadSize)")
        #expect(try manager.contents(at: "level/map.bin") == Data(files["level/map.bin"]!))
        #expect(f.log.all.count == 1)
    }

    @Test func withoutAnEntitlementNothingOfThePackIsDownloaded() async throws {
        let f = try fixture()
        let manager = try manager(f, token: nil)
        let pack = try await manager.catalogPack(withID: "Paid")
        await #expect {
            try await manager.ensureLocalAvailability(of: pack)
        } throws: { error in
            guard case AssetPackManagerError.entitlementRequired(let p) = error else { return false }
            return p.id == "Paid" && "\(error)".contains("nothing was downloaded")
        }
        #expect(f.server.packRequests().isEmpty)
        #expect(f.root.stagingEntries.isEmpty && f.root.installedVersions("Paid").isEmpty)
        // Free packs are unaffected.
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Free"))
    }

    @Test(arguments: [("tok-wrong", "unknown token"), ("tok-expired", "the token expired at 2020-01-01T00:00:00Z"),
                      ("tok-revoked", "the token is revoked"), ("tok-other", "the token does not grant pack Paid")])
    func aRefusedTokenIsRejectedWithTheServersReason(token: String, reason: String) async throws {
        let f = try fixture()
        let manager = try manager(f, token: token)
        let pack = try await manager.catalogPack(withID: "Paid")
        await #expect {
            try await manager.ensureLocalAvailability(of: pack)
        } throws: { error in
            guard case AssetPackManagerError.entitlementRejected(let p, let why) = error else { return false }
            return p.id == "Paid" && why == reason
        }
        #expect(f.server.packRequests().isEmpty)
        #expect(f.root.stagingEntries.isEmpty)
        #expect(f.log.all.count == 1 && f.log.all[0].contains(" 403 refused: \(reason)"))
        #expect(try await manager.status(relativeTo: pack).contains(.requiresEntitlement))
    }

    @Test func aKeyServerThatIsDownIsAClearErrorAndOtherPacksInstall() async throws {
        let f = try fixture()
        let down = try RefusingPort()
        let manager = try manager(f, token: "tok-good", keyServer: down.url)
        await #expect {
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Paid"))
        } throws: { error in
            guard case AssetPackManagerError.keyServer(let p, let why) = error else { return false }
            return p.id == "Paid" && why.contains("cannot be reached")
        }
        #expect(f.server.packRequests().isEmpty)
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Free"))
        #expect(try manager.contents(at: "free.txt") == Data("free\n".utf8))
    }

    /// A key server that answers with another key (a fake: the real one looks keys up by their
    /// ID, so it cannot be made to return a wrong one).
    struct WrongKeyServer: HTTPTransport {
        let inner: any HTTPTransport
        let keyServer: String
        func send(_ request: HTTPRequest, to destination: HTTPBodyDestination, cancellation: CancellationFlag?) throws(TransportError) -> HTTPResponse {
            guard request.url.hasPrefix(keyServer) else { return try inner.send(request, to: destination, cancellation: cancellation) }
            let body = Array("{\"key\": \"\(ContentKey.generate().base64)\"}".utf8)
            return HTTPResponse(status: 200, headers: HTTPHeaders(), body: body, bodyByteCount: UInt64(body.count), url: request.url)
        }
    }

    @Test func aWrongKeyFromTheKeyServerWritesNothing() async throws {
        let f = try fixture()
        let manager = try f.repo.manager(root: f.root.path, server: f.server) { c in
            c.entitlementProvider = { _ in "tok-good" }
            c.keyServerURL = f.keyServer.url
            c.transport = WrongKeyServer(inner: try! CurlTransport(), keyServer: f.keyServer.url)
        }
        await #expect {
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Paid"))
        } throws: { "\($0)".contains("a wrong key is refused before it opens a byte") }
        #expect(f.server.packRequests().isEmpty)
        #expect(f.root.stagingEntries.isEmpty && f.root.installedVersions("Paid").isEmpty)
        #expect(try f.root.store().contentKey(of: "Paid", keyID: try #require(try f.repo.catalog().pack(withID: "Paid")?.sealed?.keyID)) == nil)
    }

    @Test func aTamperedSealedFrameFailsAuthenticationAndInstallsNothing() async throws {
        let f = try fixture()
        let entry = try #require(try f.repo.catalog().pack(withID: "Paid"))
        var bytes = try #require(f.repo.contents(entry.path))
        bytes[PackLayout.headerSize + 1000] ^= 0x01
        try f.repo.place(entry.path, bytes)
        let manager = try manager(f, token: "tok-good")
        await #expect {
            try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Paid"))
        } throws: { error in
            guard case AssetPackManagerError.verification(let why) = error else { return false }
            return why.contains("AES-256-GCM authentication failed")
        }
        #expect(f.root.stagingEntries.isEmpty && f.root.installedVersions("Paid").isEmpty)
        #expect(!manager.assetPackIsAvailableLocally(withID: "Paid"))
    }

    @Test func oneTokenAsking10000TimesIsRateLimited() async throws {
        let f = try fixture(frozenClock: true)
        let keyID = try #require(try f.repo.catalog().pack(withID: "Paid")?.sealed?.keyID)
        let transport = try CurlTransport()
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer tok-good")
        let request = HTTPRequest(.get, url: "\(f.keyServer.url)v1/keys/Paid/\(keyID.hex)", headers: headers)
        var statuses: [Int: Int] = [:]
        var retryAfter: String?
        for _ in 0..<10_000 {
            let response = try transport.send(request)
            statuses[response.status, default: 0] += 1
            if response.status == 429 { retryAfter = response.headers["Retry-After"] }
        }
        // The default limit: a burst of 60 a minute; the rest refused before the grants are read.
        #expect(statuses == [200: 60, 429: 9_940])
        #expect(retryAfter != nil)
        #expect(f.log.all.filter { $0.contains(" 429 refused: rate limited") }.count == statuses[429])
        // Another token is not held back by this one.
        headers.set("Authorization", "Bearer tok-other")
        let other = try transport.send(HTTPRequest(.get, url: request.url, headers: headers))
        #expect(other.status == 403)
    }
}
