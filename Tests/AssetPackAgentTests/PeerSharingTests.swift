import AssetPackAgent
import AssetPackFormat
@testable import AssetPacks
import AssetPackTransport
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `assetpack agent --share` and clients given `--peer`: a second client installs a pack from the
/// first one's agent and the origin (nginx, its access log read) sends almost nothing; the share
/// answers only well-formed hashes of chunks it holds and verifies, and stays up under a flood.
@Suite(.serialized) struct PeerSharingTests {
    static let big = patternBytes(1_500_000, seed: 141)
    static let small = Array("shared over the LAN\n".utf8)

    /// A repository on nginx (the origin) and a root that installed its pack, shared by an agent.
    final class Sharing: @unchecked Sendable {
        let fixture: AgentFixture
        let origin: NginxServer
        let agent: AgentService
        var peerURL: String { "http://127.0.0.1:\(agent.sharePort!)" }

        init(requestsPerSecond: Int = 2000) async throws {
            fixture = try AgentFixture()
            try fixture.put("Course", files: ["video.bin": PeerSharingTests.big, "notes.txt": PeerSharingTests.small])
            let fixture = self.fixture
            _ = try await offPool { try fixture.repository.publish() }
            origin = try NginxServer(root: fixture.repository.path, accessLog: true)
            try RootSettings(repositoryURLs: [origin.url("/")], publicKey: fixture.key.publicKey.text).save(root: fixture.root)
            let install = try await Assetpack.run(["ensure", "Course", "--root", fixture.root])
            #expect(install.status == 0, "\(install.stderr)")
            let root = fixture.root
            agent = try await offPool {
                try AgentService(configuration: AgentConfiguration(root: root, acceptsInheritedSocket: false,
                                                                   share: ShareConfiguration(port: 0, requestsPerSecond: requestsPerSecond)))
            }
            // Ready once its first snapshot of the installed chunks is taken (a busy machine can
            // take longer than a client's peer timeout for that).
            let first = try chunkDigests(fixture.repository, "Course")[0]
            let url = "http://127.0.0.1:\(agent.sharePort!)/chunks/\(first.hex)"
            let transport = try CurlTransport()
            try await waitUntil("the share serves the pack's first chunk", timeout: .seconds(60), interval: .milliseconds(50)) {
                (try? transport.send(HTTPRequest(url: url)).status) == 200
            }
        }

        /// Body bytes the origin sent for pack files since `mark` lines of its log.
        func originPackBytes(after mark: Int) -> UInt64 {
            origin.accessLog().dropFirst(mark).filter { $0.first?.hasPrefix("/packs/") == true }.reduce(0) { $0 + (UInt64($1[2]) ?? 0) }
        }

        func stop() async { await agent.stopped() }
    }

    @Test func aSecondClientInstallsFromTheFirstOnesAgentAndTheOriginSendsAlmostNothing() async throws {
        let sharing = try await Sharing()
        let pack = try #require(try sharing.fixture.repository.catalog().pack(withID: "Course"))
        let mark = sharing.origin.accessLog().count
        let second = sharing.fixture.dir.file("second")
        let result = try await Assetpack.run(["ensure", "Course", "--root", second, "--repo", sharing.origin.url("/"),
                                              "--public-key", sharing.fixture.key.publicKey.text, "--peer", sharing.peerURL])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: try installedPath(second, "Course", "video.bin")) == Data(Self.big))
        #expect(FileManager.default.contents(atPath: try installedPath(second, "Course", "notes.txt")) == Data(Self.small))
        // Only the index came from the origin: every chunk came from the peer.
        let fromOrigin = sharing.originPackBytes(after: mark)
        #expect(fromOrigin < pack.size / 20, "the origin sent \(fromOrigin) of a \(pack.size)-byte pack")
        #expect(fromOrigin <= pack.index.length, "the origin sent \(fromOrigin) bytes, the index is \(pack.index.length)")
        // The root remembers its peer.
        #expect(try RootSettings.load(root: second).peers == [sharing.peerURL])
        await sharing.stop()
    }

    @Test func theShareAnswersOnlyWellFormedHashesOfChunksItHolds() async throws {
        let sharing = try await Sharing()
        let transport = try CurlTransport()
        let base = sharing.peerURL
        // A chunk it holds: the bytes hash to the name. (The first chunk starts with notes.txt,
        // the first file of the stream.)
        let notes = try #require(try chunkDigests(sharing.fixture.repository, "Course").first)
        let held = try transport.send(HTTPRequest(url: base + "/chunks/" + notes.hex))
        #expect(held.status == 200 && SHA256Digest.hash(held.body) == notes)
        #expect(held.body.starts(with: Self.small))
        #expect(try transport.send(HTTPRequest(.head, url: base + "/chunks/" + notes.hex)).status == 200)
        // A hash it does not have.
        let absent = SHA256Digest.hash(Array("not in any pack".utf8)).hex
        #expect(try transport.send(HTTPRequest(url: base + "/chunks/" + absent)).status == 404)
        // Paths instead of hashes, and listings: 400 under /chunks/, 404 elsewhere.
        for path in ["/chunks/", "/chunks/video.bin", "/chunks/..%2Fcatalog.json", "/chunks/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
                     "/chunks/" + notes.hex + "/x", "/chunks/" + String(notes.hex.dropLast()), "/chunks/" + notes.hex + "0",
                     "/chunks/" + String(repeating: "g", count: 64)] {
            let r = try transport.send(HTTPRequest(url: base + path))
            #expect(r.status == 400, "\(path): \(r.status)")
        }
        for path in ["/", "/packs/", "/catalog.json", "/Course/notes.txt"] {
            #expect(try transport.send(HTTPRequest(url: base + path)).status == 404, "\(path)")
        }
        // Read-only.
        #expect(try transport.send(HTTPRequest(.put, url: base + "/chunks/" + notes.hex, body: .bytes([1]))).status == 405)
        #expect(try transport.send(HTTPRequest(.delete, url: base + "/chunks/" + notes.hex)).status == 405)
        // Bytes changed in the store since the install are not passed on: the chunk verified a
        // moment ago may still be sent from memory (its bytes, which hash to its name), and once
        // the few seconds it is kept have passed, nothing is.
        let installed = try installedPath(sharing.fixture.root, "Course", "notes.txt")
        chmod(installed, 0o644)
        try Data("tampered in the store\n".utf8).write(to: URL(fileURLWithPath: installed))
        try await waitUntil("the share stops serving the changed chunk", timeout: .seconds(60), interval: .milliseconds(100)) {
            let answer = try transport.send(HTTPRequest(url: base + "/chunks/" + notes.hex))
            #expect(answer.status == 404 || (answer.status == 200 && SHA256Digest.hash(answer.body) == notes), "\(answer.status)")
            return answer.status == 404
        }
        await sharing.stop()
    }

    @Test func aFloodOfAThousandRequestsIsBoundedAndTheShareStaysUp() async throws {
        let sharing = try await Sharing(requestsPerSecond: 5)
        let transport = try CurlTransport()
        let url = sharing.peerURL + "/chunks/" + (try #require(try chunkDigests(sharing.fixture.repository, "Course").first)).hex
        let statuses = StatusTally()
        // 1,000 requests from 50 threads at once, new connections and kept-alive ones.
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    _ = try? await offPool {
                        for _ in 0..<20 {
                            do {
                                let r = try transport.send(HTTPRequest(url: url, connectTimeout: .seconds(10), timeout: .seconds(30)))
                                statuses.add(r.status)
                            } catch {
                                statuses.add(0)  // a connection over the limits, closed at once
                            }
                        }
                    }
                }
            }
        }
        let tally = statuses.counts
        #expect(tally.values.reduce(0, +) == 1000, "\(tally)")
        // Past the burst the client address is limited; nothing failed on the server's side.
        #expect((tally[429] ?? 0) > 0, "\(tally)")
        #expect((tally[200] ?? 0) > 0, "\(tally)")
        #expect(tally.keys.allSatisfy { [0, 200, 429].contains($0) }, "\(tally)")
        // Once the bucket refills, the share answers again.
        try await waitUntil("the share answers after the flood", timeout: .seconds(30), interval: .milliseconds(100)) {
            (try? transport.send(HTTPRequest(url: url)).status) == 200
        }
        await sharing.stop()
    }

    @Test func aClientOfAnotherRepositoryGetsNothingFromThePeerAndInstallsFromItsOrigin() async throws {
        let sharing = try await Sharing()
        let other = try AgentFixture()
        let otherBytes = patternBytes(400_000, seed: 142)
        try other.put("Other", files: ["other.bin": otherBytes])
        _ = try await offPool { try other.repository.publish() }
        let otherOrigin = try NginxServer(root: other.repository.path, accessLog: true)
        let root = other.dir.file("client")
        var configuration = AssetPackManager.Configuration(repositoryURLs: [otherOrigin.url("/")], publicKey: other.key.publicKey, storageRoot: root)
        configuration.peers = [sharing.peerURL]
        let manager = try AssetPackManager(configuration: configuration)
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Other"))
        #expect(try manager.contents(at: "other.bin") == Data(otherBytes))
        #expect(await manager.peerBytes == 0)
        let pack = try #require(try other.repository.catalog().pack(withID: "Other"))
        let sent = otherOrigin.accessLog().filter { $0.first == "/" + pack.path }.reduce(UInt64(0)) { $0 + (UInt64($1[2]) ?? 0) }
        #expect(sent >= pack.size - pack.index.length, "the origin sent \(sent) of \(pack.size)")
        await sharing.stop()
    }
}

/// The digests of pack `id`'s chunks, in stream order, read from its index in the repository.
func chunkDigests(_ repository: TestRepository, _ id: String) throws -> [SHA256Digest] {
    let pack = try #require(try repository.catalog().pack(withID: id))
    let bytes = try #require(repository.contents(pack.path))
    let index = try PackIndex.decode(Array(bytes[Int(pack.index.offset)..<Int(pack.index.offset + pack.index.length)]), indexOffset: pack.index.offset)
    return index.sequence.map { index.chunks[Int($0)].digest }
}

/// The installed copy of `name` in pack `id` under `root`.
private func installedPath(_ root: String, _ id: String, _ name: String) throws -> String {
    let packs = root + "/packs/" + id
    let versions = try FileManager.default.contentsOfDirectory(atPath: packs)
    return "\(packs)/\(try #require(versions.first))/\(name)"
}

private final class StatusTally: @unchecked Sendable {
    private let lock = NSLock()
    private var tally: [Int: Int] = [:]
    func add(_ status: Int) { lock.withLock { tally[status, default: 0] += 1 } }
    var counts: [Int: Int] { lock.withLock { tally } }
}
