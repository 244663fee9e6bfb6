import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `publish --encrypt`, `--key-store` and `--rotate-key`: sealed packs, their keys, and the
/// ways a key store can be misplaced or exposed.
@Suite struct PaidPackPublishTests {
    func content(edit: Int) -> [String: [UInt8]] {
        var db = patternBytes(2 << 20, seed: 5)
        for k in 0..<edit * 6 { db.replaceSubrange(k * 300_001 % (db.count - 16)..<k * 300_001 % (db.count - 16) + 16, with: patternBytes(16, seed: UInt64(100 * edit + k))) }
        return ["db.bin": db, "chapter-two-secret-ending.json": textBytes(4000, seed: 3)]
    }

    @Test func anEncryptedPackIsSealedAndItsKeyKeptInA0600Store() throws {
        let repo = try workspace()
        try repo.put("Paid", files: content(edit: 0))
        try repo.put("Free", files: ["free.txt": text("free\n")])
        let store = repo.dir.file("keys.json")
        try repo.publishReport(now: publishedAt) { $0.encrypt = ["Paid"]; $0.keyStorePath = store }
        var st = stat()
        #expect(stat(store, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let keys = try ContentKeyStore.load(store)
        let key = try #require(keys.currentKey(of: "Paid"))
        #expect(keys.currentKey(of: "Free") == nil)
        let catalog = try repo.catalog()
        let paid = try #require(catalog.pack(withID: "Paid"))
        #expect(paid.sealed == CatalogSealing(keyID: key.keyID))
        #expect(catalog.pack(withID: "Free")?.sealed == nil)
        let file = try #require(repo.contents(paid.path))
        #expect(!String(decoding: file, as: UTF8.self).contains("chapter-two-secret-ending"))
        #expect(throws: PackError.contentKeyRequired(keyID: key.keyID)) { try PackReader(path: "\(repo.path)/\(paid.path)") }
        #expect(try PackReader(path: "\(repo.path)/\(paid.path)", keys: [key]).contents(of: "db.bin") == content(edit: 0)["db.bin"])

        // The next publish keeps it sealed under the same key without --encrypt, and an edit
        // gets a sealed patch from the kept version.
        try repo.put("Paid", files: content(edit: 1))
        let report = try repo.publishReport(now: publishedAt) { $0.keyStorePath = store }
        let v2 = try #require(try repo.catalog().pack(withID: "Paid"))
        #expect(v2.sealed?.keyID == key.keyID)
        let patch = try #require(v2.patches?.first)
        #expect(report.patchFiles == [patch.path])
        let update = try #require(report.updates.first { $0.id == "Paid" })
        #expect(update.downloadBytes < 200_000, "an edit of a sealed pack downloads \(update.downloadBytes) bytes")

        // Without the key store the paid pack is not published in clear.
        #expect {
            try repo.publishReport(now: publishedAt)
        } throws: { "\($0)".contains("Paid is sealed (paid) in the current catalog: pass --key-store FILE") }
    }

    @Test func rotatingTheKeySealsEveryChunkAgainAndKeepsTheOldKey() throws {
        let repo = try workspace()
        try repo.put("Paid", files: content(edit: 0))
        let store = repo.dir.file("keys.json")
        try repo.publishReport(now: publishedAt) { $0.encrypt = ["Paid"]; $0.keyStorePath = store }
        let old = try #require(try ContentKeyStore.load(store).currentKey(of: "Paid"))
        let v1 = try #require(try repo.catalog().pack(withID: "Paid"))
        try repo.publishReport(now: publishedAt) { $0.rotateKey = ["Paid"]; $0.keyStorePath = store }
        let keys = try ContentKeyStore.load(store)
        let new = try #require(keys.currentKey(of: "Paid"))
        #expect(new != old && keys.keys(of: "Paid") == [new, old])
        let v2 = try #require(try repo.catalog().pack(withID: "Paid"))
        #expect(v2.version == 2 && v2.sealed?.keyID == new.keyID && v2.digest != v1.digest)
        // No patch across keys: a patch sealed under the new key from content sealed under the old.
        #expect(v2.patches == nil)
        let a = try PackReader(path: "\(repo.path)/\(v1.path)", keys: [old]), b = try PackReader(path: "\(repo.path)/\(v2.path)", keys: [new])
        let fa = readFile(a.path), fb = readFile(b.path)
        for (c, e) in a.index.chunks.enumerated() {
            let f = b.index.chunks[c]
            #expect(e.digest == f.digest)
            #expect(fa[Int(e.offset)..<Int(e.offset) + 64] != fb[Int(f.offset)..<Int(f.offset) + 64])
        }
    }

    @Test func aKeyStoreInsideTheRepositoryOrOpenToOthersIsRefused() throws {
        let repo = try workspace()
        try repo.put("Paid", files: content(edit: 0))
        #expect {
            try repo.publishReport(now: publishedAt) { $0.encrypt = ["Paid"]; $0.keyStorePath = "\(repo.path)/keys.json" }
        } throws: { "\($0)".contains("would lie inside the repository") }
        let store = try repo.dir.write("keys.json", "{\"format\":\"assetpack-key-store\",\"version\":1,\"packs\":{}}", mode: 0o644)
        #expect {
            try repo.publishReport(now: publishedAt) { $0.encrypt = ["Paid"]; $0.keyStorePath = store }
        } throws: { "\($0)".contains("has mode 0644, so others may read the content keys") }
        #expect(!FileManager.default.fileExists(atPath: "\(repo.path)/catalog.json"))
        #expect {
            try repo.publishReport(now: publishedAt) { $0.encrypt = ["Paid"] }
        } throws: { "\($0)".contains("need --key-store FILE") }
        #expect {
            try repo.publishReport(now: publishedAt) { $0.encrypt = ["Nope"]; $0.keyStorePath = repo.dir.file("k.json") }
        } throws: { "\($0)".contains("--encrypt/--rotate-key Nope: no manifest of this publish has that pack ID") }
    }
}
