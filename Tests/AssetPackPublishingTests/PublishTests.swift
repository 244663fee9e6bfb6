import AssetPackFormat
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

@Suite struct PublishTests {
    @Test func catalogDescribesThePackFilesExactly() throws {
        let ws = try workspace()
        try ws.put("Alpha", policy: .essential(installationEventTypes: [.firstInstallation, .subsequentUpdate]),
                    files: ["big.bin": patternBytes(200_000, seed: 1), "small.txt": Array("hi".utf8)])
        try ws.put("Beta", language: "en", files: ["words.txt": Array(repeating: 0x61, count: 50_000)])
        let options = ws.options()
        let report = try Publisher(key: testKey, options: options).publish(manifests: ["\(ws.dir.path)/Alpha.json", "\(ws.dir.path)/Beta.json"])

        let catalog = try CatalogVerifier(publicKey: testKey.publicKey).verify(ws.catalogBytes(), now: options.now)
        #expect(catalog == report.catalog)
        #expect(catalog.version == 1)
        #expect(catalog.published == options.now)
        #expect(catalog.expires == options.now.addingTimeInterval(30 * 86_400))
        #expect(catalog.packs.map(\.id) == ["Alpha", "Beta"])
        #expect(report.changes.map(\.kind) == [.added, .added])
        for pack in catalog.packs {
            let path = "\(ws.path)/\(pack.path)"
            let reader = try PackReader(path: path)
            let bytes = [UInt8](FileManager.default.contents(atPath: path)!)
            #expect(pack.path == "packs/\(pack.id)/\(reader.digest.hex).pack")
            #expect(pack.version == 1)
            #expect(pack.size == UInt64(bytes.count) && pack.size == reader.fileSize)
            #expect(pack.downloadSize == pack.size)
            #expect(pack.installSize == reader.index.installSize)
            #expect(pack.sha256 == SHA256Digest.hash(bytes))
            #expect(pack.digest == reader.digest)
            #expect(pack.chunking == reader.index.chunking)
            #expect(pack.downloadPolicy == reader.index.metadata.downloadPolicy)
            #expect(pack.language == reader.index.metadata.language)
            // One Range request for offset..<offset+length yields the index, which hashes to the digest.
            let index = bytes[Int(pack.index.offset)..<Int(pack.index.offset + pack.index.length)]
            #expect(SHA256Digest.hash(Array(index)) == pack.index.sha256)
            #expect(pack.index.sha256 == pack.digest)
        }
        #expect(catalog.packs[0].installSize == 200_002)
        #expect(catalog.packs[0].downloadPolicy == .essential(installationEventTypes: [.firstInstallation, .subsequentUpdate]))
        #expect(catalog.packs[1].language == "en")
        // Nothing but the catalog, its history copy and the pack files: no staging left behind.
        #expect(Set(ws.snapshot().keys) == Set(["catalog.json", "packs/", "packs/Alpha/", "packs/Beta/", "history/", "history/1.catalog.json"] + catalog.packs.map(\.path)))
    }

    @Test func packFilesAreDeterministic() throws {
        let a = try workspace(), b = try workspace()
        for ws in [a, b] {
            try ws.put("Alpha", files: ["x.bin": patternBytes(300_000, seed: 9), "y.txt": Array("y".utf8)])
            _ = try Publisher(key: testKey, options: ws.options()).publish(manifests: ["\(ws.dir.path)/Alpha.json"])
        }
        let packsA = a.snapshot().filter { $0.key.hasSuffix(".pack") }
        #expect(packsA.count == 1)
        #expect(packsA == b.snapshot().filter { $0.key.hasSuffix(".pack") })
    }

    @Test func secondPublishBumpsOnlyTheChangedPack() throws {
        let ws = try workspace()
        let alpha = try ws.put("Alpha", files: ["a.txt": Array("alpha".utf8)])
        let beta = try ws.put("Beta", files: ["b.txt": Array("beta 1".utf8), "c.txt": Array("same".utf8)])
        let first = try Publisher(key: testKey, options: ws.options()).publish(manifests: [alpha, beta]).catalog!
        try ws.dir.write("content/Beta/b.txt", "beta 2")
        let report = try Publisher(key: testKey, options: ws.options { $0.now += 60 }).publish(manifests: [alpha, beta])
        let second = report.catalog!
        #expect(second.version == first.version + 1)
        #expect(second.pack(withID: "Alpha") == first.pack(withID: "Alpha"))
        #expect(second.pack(withID: "Beta")!.version == 2)
        #expect(second.pack(withID: "Beta")!.digest != first.pack(withID: "Beta")!.digest)
        #expect(report.changes == [PackChange(id: "Alpha", kind: .unchanged, previousVersion: 1, version: 1),
                                   PackChange(id: "Beta", kind: .updated, previousVersion: 1, version: 2)])
        // The old Beta file stays for clients mid-download, listed as retired.
        let oldBeta = first.pack(withID: "Beta")!
        #expect(FileManager.default.fileExists(atPath: "\(ws.path)/\(oldBeta.path)"))
        #expect(second.retired == [RetiredPackFile(id: "Beta", version: 1, path: oldBeta.path, size: oldBeta.size, sha256: oldBeta.sha256, retiredIn: 2)])
        // Unchanged input, published again: same packs, catalog version + 1.
        let third = try Publisher(key: testKey, options: ws.options()).publish(manifests: [alpha, beta]).catalog!
        #expect(third.version == 3 && third.packs == second.packs)
    }

    @Test func packsNoLongerGivenLeaveTheCatalog() throws {
        let ws = try workspace()
        let alpha = try ws.put("Alpha", files: ["a.txt": Array("alpha".utf8)])
        let beta = try ws.put("Beta", files: ["b.txt": Array("beta".utf8)])
        let first = try Publisher(key: testKey, options: ws.options()).publish(manifests: [alpha, beta]).catalog!
        let report = try Publisher(key: testKey, options: ws.options()).publish(manifests: [alpha])
        #expect(report.catalog!.packs.map(\.id) == ["Alpha"])
        #expect(report.changes.contains(PackChange(id: "Beta", kind: .removed, previousVersion: 1, version: nil)))
        #expect(report.catalog!.removed == [RemovedPack(id: "Beta", version: 1, removedIn: 2)])
        let betaPath = first.pack(withID: "Beta")!.path
        // Kept for one more publish (keep 2), then deleted.
        #expect(FileManager.default.fileExists(atPath: "\(ws.path)/\(betaPath)"))
        let next = try Publisher(key: testKey, options: ws.options()).publish(manifests: [alpha])
        #expect(next.deletedFiles == [betaPath])
        #expect(!FileManager.default.fileExists(atPath: "\(ws.path)/\(betaPath)"))
        #expect(!FileManager.default.fileExists(atPath: "\(ws.path)/packs/Beta"))
        // Coming back, the pack continues its version sequence rather than restarting at 1.
        let back = try Publisher(key: testKey, options: ws.options()).publish(manifests: [alpha, beta]).catalog!
        #expect(back.pack(withID: "Beta")!.version == 2)
        #expect(back.removed.isEmpty)
    }

    @Test(arguments: [1, 2, 3])
    func keepPrunesOldPackFiles(_ keep: Int) throws {
        let ws = try workspace()
        let beta = try ws.put("Beta", files: ["b.txt": Array("v1".utf8)])
        var paths: [String] = []
        for v in 1...4 {
            try ws.dir.write("content/Beta/b.txt", "v\(v)")
            let catalog = try Publisher(key: testKey, options: ws.options { $0.keep = keep }).publish(manifests: [beta]).catalog!
            paths.append(catalog.pack(withID: "Beta")!.path)
            #expect(catalog.pack(withID: "Beta")!.version == v)
        }
        let onDisk = Set(ws.snapshot().keys.filter { $0.hasSuffix(".pack") })
        #expect(onDisk == Set(paths.suffix(keep)))
        let catalog = try CatalogVerifier(publicKey: testKey.publicKey).verify(ws.catalogBytes(), now: nil)
        #expect(catalog.retired.filter { $0.path.hasSuffix(".pack") }.map(\.version) == Array((5 - keep)..<4))
        // A retired version keeps the patch files that led to it, one from each version kept when
        // it was published (versions before 1 there were none).
        #expect(catalog.retired.filter { $0.path.hasSuffix(".patch") }.map(\.version)
                == Array((5 - keep)..<4).flatMap { v in Array(repeating: v, count: min(keep - 1, v - 1)) })
    }

    @Test func contentThatChangesBackReusesItsFile() throws {
        let ws = try workspace()
        let beta = try ws.put("Beta", files: ["b.txt": Array("A".utf8)])
        let v1 = try Publisher(key: testKey, options: ws.options()).publish(manifests: [beta]).catalog!
        try ws.dir.write("content/Beta/b.txt", "B")
        _ = try Publisher(key: testKey, options: ws.options()).publish(manifests: [beta])
        try ws.dir.write("content/Beta/b.txt", "A")
        let v3 = try Publisher(key: testKey, options: ws.options()).publish(manifests: [beta]).catalog!
        let pack = v3.pack(withID: "Beta")!
        #expect(pack.version == 3)
        #expect(pack.path == v1.pack(withID: "Beta")!.path)
        #expect(pack.sha256 == v1.pack(withID: "Beta")!.sha256)
        #expect(!v3.retired.contains { $0.path == pack.path })
    }

    @Test func stagingLeftByAKilledPublishIsRemoved() throws {
        let ws = try workspace()
        let alpha = try ws.put("Alpha", files: ["a.txt": Array("alpha".utf8)])
        try ws.dir.write("repo/.assetpack-staging-1-2/0.pack", "half a pack")
        _ = try Publisher(key: testKey, options: ws.options()).publish(manifests: [alpha])
        #expect(!ws.snapshot().keys.contains { $0.hasPrefix(".assetpack-staging") })
    }

    @Test func checkWritesNothing() throws {
        let ws = try workspace()
        let alpha = try ws.put("Alpha", policy: .prefetch(installationEventTypes: [.firstInstallation]), files: ["a.txt": Array("alpha".utf8)])
        let report = try Publisher(key: testKey, options: ws.options { $0.checkOnly = true; $0.lint.downloadAllowance = 1 << 20 }).publish(manifests: [alpha])
        #expect(report.catalog == nil && report.findings.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: ws.path))
    }

    @Test func expiresOptionSetsTheExpiry() throws {
        let ws = try workspace()
        let alpha = try ws.put("Alpha", files: ["a.txt": Array("alpha".utf8)])
        let options = ws.options { $0.expiresIn = 12 * 3600 }
        let catalog = try Publisher(key: testKey, options: options).publish(manifests: [alpha]).catalog!
        #expect(catalog.expires.timeIntervalSince(catalog.published) == 43_200)
    }
}

@Suite struct FailedPublishTests {
    /// A repository with one publish in it, and the two manifests of that publish.
    private func publishedWorkspace() throws -> (TestRepository, String, String) {
        let ws = try workspace()
        let alpha = try ws.put("Alpha", policy: .prefetch(installationEventTypes: [.firstInstallation]),
                                files: ["a.bin": patternBytes(100_000, seed: 3)])
        let beta = try ws.put("Beta", files: ["b.txt": Array("beta".utf8)])
        _ = try Publisher(key: testKey, options: ws.options()).publish(manifests: [alpha, beta])
        try ws.dir.write("content/Alpha/a.bin", patternBytes(100_000, seed: 4))
        try ws.dir.write("content/Beta/b.txt", "beta changed")
        return (ws, alpha, beta)
    }

    @Test func invalidSecondManifestLeavesRepositoryUnchanged() throws {
        let (ws, alpha, _) = try publishedWorkspace()
        try ws.dir.write("Broken.json", #"{"assetPackID": "Broken", "downloadPolicy": {"onDemand": {}}, "platforms": ["iOS"]"#)
        let before = ws.snapshot()
        #expect(throws: PublishError.self) {
            try Publisher(key: testKey, options: ws.options()).publish(manifests: [alpha, "\(ws.dir.path)/Broken.json"])
        }
        #expect(ws.snapshot() == before)
    }

    @Test func lintFailureAfterPackagingLeavesRepositoryUnchanged() throws {
        let (ws, alpha, beta) = try publishedWorkspace()
        let before = ws.snapshot()
        do {
            _ = try Publisher(key: testKey, options: ws.options { $0.lint.downloadAllowance = 1000 }).publish(manifests: [alpha, beta])
            Issue.record("a pack above the download allowance was published")
        } catch PublishError.lintFailed(let findings) {
            #expect(findings.map(\.rule) == [.downloadAllowance])
        }
        #expect(ws.snapshot() == before)
    }

    @Test func failureJustBeforeTheCatalogLeavesRepositoryUnchanged() throws {
        let (ws, alpha, beta) = try publishedWorkspace()
        let before = ws.snapshot()
        struct Injected: Error {}
        var placed: Set<String> = []
        let options = ws.options { o in
            o.beforeCatalogCommit = { [repo = ws.path] in
                // The new pack files really are in place at this point.
                placed = Set((FileManager.default.enumerator(atPath: repo)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".pack") })
                throw Injected()
            }
        }
        #expect(throws: Injected.self) { try Publisher(key: testKey, options: options).publish(manifests: [alpha, beta]) }
        #expect(placed.count == 4)
        #expect(ws.snapshot() == before)
    }

    @Test func failedFirstPublishLeavesNoRepository() throws {
        let ws = try workspace()
        let alpha = try ws.put("Alpha", files: ["a.txt": Array("alpha".utf8)])
        struct Injected: Error {}
        #expect(throws: Injected.self) {
            try Publisher(key: testKey, options: ws.options { $0.beforeCatalogCommit = { throw Injected() } }).publish(manifests: [alpha])
        }
        #expect(!FileManager.default.fileExists(atPath: ws.path))
    }

    @Test func catalogSignedByAnotherKeyIsNotReplaced() throws {
        let (ws, alpha, beta) = try publishedWorkspace()
        let before = ws.snapshot()
        do {
            _ = try Publisher(key: otherKey, options: ws.options()).publish(manifests: [alpha, beta])
            Issue.record("published over a catalog signed by another key")
        } catch PublishError.existingCatalog(_, let error) {
            #expect(error == .wrongKey(expected: otherKey.publicKey.keyID, found: [testKey.publicKey.keyID]))
        }
        #expect(ws.snapshot() == before)
    }

    @Test func unwritableRepositoryFails() throws {
        let ws = try workspace()
        let alpha = try ws.put("Alpha", files: ["a.txt": Array("alpha".utf8)])
        try ws.dir.write("repo", "a file where the repository folder should be")
        let before = ws.snapshot()
        #expect(throws: PublishError.self) { try Publisher(key: testKey, options: ws.options()).publish(manifests: [alpha]) }
        #expect(ws.snapshot() == before)
        #expect(String(decoding: FileManager.default.contents(atPath: ws.path)!, as: UTF8.self).hasPrefix("a file"))
    }
}
