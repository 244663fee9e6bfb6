import AssetPackFormat
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `keygen --root`, `rotate`, `publish --timestamp-key`, `timestamp` and a client pinned with
/// `--root-key`, through the `assetpack` binary: the set-up and the catalog key compromise
/// procedure of docs/PUBLISHING.md, step by step.
@Suite struct KeyRotationCommandTests {
    @Test func setUpThenReplaceALeakedCatalogKey() async throws {
        let repo = try TestRepository()
        let manifest = try repo.put("Pack", files: ["pack.txt": text("content\n", repeating: 10)])
        let run = { (arguments: [String]) in try await Assetpack.run(arguments, in: repo.dir.path) }
        var r = try await run(["keygen", "--root", "-o", "root.key"])
        #expect(r.status == 0 && r.stderr.contains("offline") && r.stderr.contains("assetpack rotate"), "\(r.stderr)")
        for name in ["catalog.key", "timestamp.key", "catalog2.key"] { #expect(try await run(["keygen", "-o", name]).status == 0) }

        // The first publish with a root needs the timestamp key.
        r = try await run(["rotate", "--repo", "repo", "--root-key", "root.key"])
        #expect(r.status == 1 && r.stderr.contains("must name the catalog key"), "\(r.stderr)")
        r = try await run(["rotate", "--repo", "repo", "--root-key", "root.key", "--catalog-key", "catalog.key.pub", "--timestamp-key", "timestamp.key.pub"])
        #expect(r.status == 0 && r.stdout.contains("root version 1"), "\(r.stderr)")
        r = try await run(["publish", manifest, "--repo", "repo", "--key", "catalog.key"])
        #expect(r.status == 1 && r.stderr.contains("--timestamp-key"), "\(r.stderr)")
        r = try await run(["publish", manifest, "--repo", "repo", "--key", "catalog.key", "--timestamp-key", "timestamp.key", "--timestamp-expires", "1h"])
        #expect(r.status == 0 && r.stdout.contains("timestamp version 1"), "\(r.stderr)")

        // A client pinned to the root key.
        let server = try repo.serve()
        let root = repo.dir.file("client")
        r = try await run(["ensure", "Pack", "--repo", server.url, "--root", root, "--root-key", "root.key.pub"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["status", "--root", root])
        #expect(r.status == 0 && r.stderr.contains("repository: root v1, timestamp v1, catalog v1"), "\(r.stderr)")
        // Or pinned with a root file shipped with the app.
        r = try await run(["ensure", "Pack", "--repo", server.url, "--root", repo.dir.file("client2"), "--root-file", "repo/roots/1.root.json"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["ensure", "Pack", "--repo", server.url, "--root", repo.dir.file("client3"), "--root-file", "catalog.key.pub"])
        #expect(r.status == 1 && r.stderr.contains("--root-file") && r.stderr.contains("malformed"), "\(r.stderr)")

        // The catalog key leaks: the root key rotates it out, the old key can no longer publish,
        // the new one publishes, and the client follows.
        r = try await run(["rotate", "--repo", "repo", "--root-key", "root.key", "--catalog-key", "catalog2.key.pub"])
        #expect(r.status == 0 && r.stdout.contains("root version 2"), "\(r.stderr)")
        r = try await run(["publish", manifest, "--repo", "repo", "--key", "catalog.key", "--timestamp-key", "timestamp.key"])
        #expect(r.status == 1 && r.stderr.contains("not a catalog key of root version 2"), "\(r.stderr)")
        r = try await run(["publish", manifest, "--repo", "repo", "--key", "catalog2.key", "--timestamp-key", "timestamp.key"])
        #expect(r.status == 0 && r.stdout.contains("catalog version 2"), "\(r.stderr)")
        r = try await run(["update", "--root", root])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await run(["status", "--root", root])
        #expect(r.status == 0 && r.stderr.contains("repository: root v2, timestamp v2, catalog v2"), "\(r.stderr)")

        // What a pinned client sees, checked by the publisher.
        r = try await run(["verify-catalog", "repo", "--root-key", "root.key.pub"])
        #expect(r.status == 0 && r.stdout.contains("Root:       version 2") && r.stdout.contains("Timestamp:  version 2"), "\(r.stderr)")
        r = try await run(["verify-catalog", server.url, "--root-key", "root.key.pub", "--json"])
        #expect(r.status == 0 && r.stdout.contains("\"version\" : 2"), "\(r.stdout) \(r.stderr)")
        r = try await run(["verify-catalog", "repo", "--root-key", "catalog2.key.pub"])
        #expect(r.status == 1 && r.stderr.contains("forged root"), "\(r.stderr)")
        r = try await run(["verify-catalog", "repo"])
        #expect(r.status == 2, "\(r.stderr)")

        // The cron job re-signs the timestamp alone; the catalog key cannot.
        let previousTimestamp = try #require(repo.contents("timestamp.json"))
        r = try await run(["timestamp", "--repo", "repo", "--key", "timestamp.key", "--expires", "1d"])
        #expect(r.status == 0 && r.stdout.contains("timestamp version 3 for catalog version 2"), "\(r.stderr)")
        r = try await run(["timestamp", "--repo", "repo", "--key", "catalog2.key"])
        #expect(r.status == 1 && r.stderr.contains("not a timestamp key"), "\(r.stderr)")

        r = try await run(["update", "--root", root])
        #expect(r.status == 0, "\(r.stderr)")

        // A mirror that goes back to the previous timestamp is refused, and says so.
        try repo.place("timestamp.json", previousTimestamp)
        r = try await run(["update", "--root", root])
        #expect(r.status == 1 && r.stderr.contains("rolled-back timestamp: version 2 is older than version 3"), "\(r.stderr)")
    }
}
