import AssetPackFormat
import AssetPackPublishing
import Foundation
import TestSupport
import Testing

/// A few runs of the real `assetpack` binary, for exit codes and messages.
@Suite struct CommandLineTests {
    @Test func keygenPublishVerifyAndTheAttacks() async throws {
        let ws = try workspace()
        let dir = ws.dir.path
        var r = try await Assetpack.run(["keygen", "-o", "key.pem"], in: dir)
        #expect(r.status == 0)
        let publicKey = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(publicKey.hasPrefix("ed25519:"))
        r = try await Assetpack.run(["keygen", "-o", "key.pem"], in: dir)
        #expect(r.status == 1 && r.stderr.contains("already exists"))

        // Selector paths relative to the current directory, as with `assetpack package`.
        try ws.dir.write("Levels/one.bin", patternBytes(1000, seed: 1))
        try ws.dir.write("Level.json", #"{"assetPackID": "Level", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "Levels"}], "platforms": ["iOS"]}"#)
        r = try await Assetpack.run(["publish", "Level.json", "--repo", "repo", "--key", "key.pem", "--expires", "12h"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("catalog version 1"))

        for key in [publicKey, "key.pem.pub"] {
            r = try await Assetpack.run(["verify-catalog", "repo", "--public-key", key, "--json"], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            #expect(json?["version"] as? Int == 1)
            let packs = json?["packs"] as? [[String: Any]]
            #expect(packs?.first?["id"] as? String == "Level")
            #expect(packs?.first?["version"] as? Int == 1)
        }
        r = try await Assetpack.run(["verify-catalog", "repo", "--public-key", publicKey], in: dir)
        #expect(r.status == 0 && r.stdout.contains("Level v1"))

        // Tampered bytes.
        let good = ws.catalogBytes()
        var envelope = try SignedCatalog.parse(good)
        envelope.payload[envelope.payload.count - 3] ^= 0x01
        try Data(envelope.encoded()).write(to: URL(fileURLWithPath: "\(ws.path)/catalog.json"))
        r = try await Assetpack.run(["verify-catalog", "repo", "--public-key", publicKey], in: dir)
        #expect(r.status == 1 && r.stderr.contains("tampered"), "\(r.stderr)")

        // Wrong key.
        try Data(good).write(to: URL(fileURLWithPath: "\(ws.path)/catalog.json"))
        r = try await Assetpack.run(["verify-catalog", "repo", "--public-key", otherKey.publicKey.text], in: dir)
        #expect(r.status == 1 && r.stderr.contains("wrong key"), "\(r.stderr)")

        // Expired: a catalog signed with this key whose expiry has passed.
        let signer = try SigningKey(contentsOf: "\(dir)/key.pem")
        var catalog = try CatalogVerifier(publicKey: signer.publicKey).verify(good, now: nil)
        catalog.expires = Date(timeIntervalSinceNow: -60)
        try Data(try signer.signedCatalog(catalog)).write(to: URL(fileURLWithPath: "\(ws.path)/catalog.json"))
        r = try await Assetpack.run(["verify-catalog", "repo", "--public-key", publicKey], in: dir)
        #expect(r.status == 1 && r.stderr.contains("expired"), "\(r.stderr)")

        // Rollback: an old catalog when version 2 was already seen.
        try Data(good).write(to: URL(fileURLWithPath: "\(ws.path)/catalog.json"))
        r = try await Assetpack.run(["verify-catalog", "repo", "--public-key", publicKey, "--min-version", "2"], in: dir)
        #expect(r.status == 1 && r.stderr.contains("rolled-back"), "\(r.stderr)")
    }

    @Test func checkExitsOneOnLintErrorsAndUsageErrorsExitTwo() async throws {
        let ws = try workspace()
        let dir = ws.dir.path
        try KeyFiles.generate(at: "\(dir)/key.pem")
        try ws.put("Alpha", files: ["same.txt": Array("a".utf8)])
        try ws.put("Beta", files: ["same.txt": Array("b".utf8)])
        var r = try await Assetpack.run(["publish", "Alpha.json", "Beta.json", "--repo", "repo", "--key", "key.pem", "--check"], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr.contains("error: [path-collision] Alpha and Beta both contain 1 path"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: ws.path))
        r = try await Assetpack.run(["publish", "Alpha.json", "--repo", "repo", "--key", "key.pem", "--check", "--limits", "apple"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: ws.path))
        r = try await Assetpack.run(["publish", "Alpha.json", "--repo", "repo", "--key", "key.pem", "--download-allowance", "lots"], in: dir)
        #expect(r.status == 2 && r.stderr.contains("--download-allowance"))
        r = try await Assetpack.run(["publish", "Alpha.json", "--repo", "repo", "--key", "nokey.pem"], in: dir)
        #expect(r.status == 1 && r.stderr.contains("nokey.pem"))
        r = try await Assetpack.run(["verify-catalog", "repo", "--public-key", "ed25519:AAAA"], in: dir)
        #expect(r.status == 1 && r.stderr.contains("32 bytes"))
    }
}

/// `publish` prints the update sizes of what it changed, `diff` the same for the repository as
/// it stands, and `--keep 1` says it made no patches.
@Suite struct DiffCommandTests {
    @Test func publishAndDiffPrintTheUpdateSizeBySource() async throws {
        let ws = try workspace()
        let dir = ws.dir.path
        _ = try await Assetpack.run(["keygen", "-o", "key.pem"], in: dir)
        var db = patternBytes(1 << 20, seed: 4)
        try ws.dir.write("Levels/db.bin", db)
        try ws.dir.write("Level.json", #"{"assetPackID": "Level", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "Levels"}], "platforms": ["iOS"]}"#)
        var r = try await Assetpack.run(["publish", "Level.json", "--repo", "repo", "--key", "key.pem"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        db.replaceSubrange(500_000..<500_016, with: patternBytes(16, seed: 9))
        try ws.dir.write("Levels/db.bin", db)
        r = try await Assetpack.run(["publish", "Level.json", "--repo", "repo", "--key", "key.pem"], in: dir)
        #expect(r.status == 0 && r.stdout.contains("wrote 1 patch file(s)") && r.stdout.contains("update Level v1 → v2: download"), "\(r.stdout)")
        r = try await Assetpack.run(["diff", "--repo", "repo", "--json"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let update = (json?["updates"] as? [[String: Any]])?.first
        #expect(update?["fromVersion"] as? Int == 1 && update?["patchedChunks"] as? Int == 1 && update?["frameChunks"] as? Int == 0)
        #expect((update?["patchBytes"] as? Int ?? .max) < 200 && (update?["withoutPatchesBytes"] as? Int ?? 0) > 60_000)
        r = try await Assetpack.run(["diff", "--repo", "repo", "--from", "1"], in: dir)
        #expect(r.status == 0 && r.stdout.contains("Level v1 → v2: download") && r.stdout.contains("1 patch(es)"), "\(r.stdout)")

        db.replaceSubrange(10..<26, with: patternBytes(16, seed: 10))
        try ws.dir.write("Levels/db.bin", db)
        r = try await Assetpack.run(["publish", "Level.json", "--repo", "repo", "--key", "key.pem", "--keep", "1"], in: dir)
        #expect(r.status == 0 && r.stdout.contains("no patches: --keep 1 keeps no earlier version to patch from"), "\(r.stdout)")
        r = try await Assetpack.run(["diff", "--repo", "repo"], in: dir)
        #expect(r.status == 0 && r.stdout.contains("no pack keeps an earlier version"), "\(r.stdout)")
    }
}
