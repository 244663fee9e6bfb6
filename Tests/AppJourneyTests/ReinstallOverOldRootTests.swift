import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The app is reinstalled over a storage root an older build left: packs of an older version,
/// staging folders of downloads nobody will resume, an installed folder the store never
/// recorded — or a root whose packs came from another repository, signed with another key, which
/// is refused before any byte moves (the root belongs to that repository).
@Suite struct ReinstallOverOldRootTests {
    static let big = patternBytes(300_000, seed: 51)
    static func files(_ version: Int) -> [String: [UInt8]] { ["core/big.bin": big, "core/version.txt": text("version \(version)\n")] }

    @Test(arguments: Client.allCases)
    func anOldRootWithLeftoversIsCleanedAndUpdatedByDelta(_ client: Client) async throws {
        let repo = try TestRepository()
        try repo.put("Core", policy: .essential(installationEventTypes: [.firstInstallation, .subsequentUpdate]), files: Self.files(1))
        try repo.publish()
        let server = try repo.serve()
        let app = App(client, repo: repo, urls: [server.url])
        let old = await app.install()
        try #require(old.succeeded, "\(old.error ?? "")")
        app.quit()

        // What an older build (or a crash) left behind.
        let leftovers = "root-\(client.rawValue)/"
        try repo.dir.write(leftovers + "staging/Core-00112233445566778899aabbccddeeff/files/core/big.bin", patternBytes(1000, seed: 1))
        try repo.dir.write(leftovers + "staging/Levels-ffeeddccbbaa99887766554433221100/index", [1, 2, 3])
        try repo.dir.write(leftovers + "packs/Ghost/1-0011223344556677/ghost.txt", text("boo\n"))

        // The new build: version 2 changes one small file.
        try repo.put("Core", policy: .essential(installationEventTypes: [.firstInstallation, .subsequentUpdate]), files: Self.files(2))
        let v2 = try #require(try repo.publish().pack(withID: "Core"))
        let reinstall = await app.install()
        #expect(reinstall.succeeded, "\(reinstall.error ?? "")")
        for (path, bytes) in Self.files(2) { #expect(await app.read(path) == bytes, "\(path)") }
        // One version of Core, no ghost, no stale staging.
        let installed = tree(app.root + "/packs")
        #expect(Set(installed.keys) == ["Core/\(v2.version)-\(v2.digest.hex.prefix(16))/core/big.bin", "Core/\(v2.version)-\(v2.digest.hex.prefix(16))/core/version.txt"],
                "\(installed.keys.sorted())")
        #expect(tree(app.root + "/staging").isEmpty)
        // By delta: the big file, unchanged, was not fetched again.
        #expect(reinstall.fetchedBytes < UInt64(Self.big.count) / 2, "fetched \(reinstall.fetchedBytes)")
    }

    @Test(arguments: Client.allCases)
    func aRootFilledFromAnotherRepositoryAndKey(_ client: Client) async throws {
        let other = try TestRepository("other")
        try other.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["core/version.txt": text("from the other repository\n")])
        try other.put("Extra", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["extra.txt": text("extra\n")])
        // Published several times: its catalog's version is ahead of ours.
        for _ in 0..<3 { try other.publish() }
        let otherServer = try other.serve()
        let repo = try TestRepository()
        try repo.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: Self.files(1))
        try repo.publish()
        let server = try repo.serve()

        let root = repo.dir.file("root-\(client.rawValue)")
        let before = App(client, repo: other, root: root, urls: [otherServer.url])
        let old = await before.install()
        try #require(old.succeeded, "\(old.error ?? "")")
        before.quit()

        let app = App(client, repo: repo, root: root, urls: [server.url])
        let refused = await app.install()
        #expect(refused.status == 1)
        let error = refused.error ?? ""
        #expect(error.contains("holds another repository's catalog") && error.contains(other.publicKey.keyID) && error.contains(repo.publicKey.keyID)
                && error.contains("a root of its own"), "\(error)")
        // Refused before any byte moved; what the root held is as it was.
        #expect(server.requests().isEmpty)
        #expect(await app.read("extra.txt") == text("extra\n"))
        #expect(await app.read("core/version.txt") == text("from the other repository\n"))

        // A root of its own installs cleanly.
        let fresh = App(client, repo: repo, root: root + "-own", urls: [server.url])
        let installed = await fresh.install()
        #expect(installed.succeeded, "\(installed.error ?? "")")
        for (path, bytes) in Self.files(1) { #expect(await fresh.read(path) == bytes, "\(path)") }
        #expect(await fresh.read("extra.txt") == nil)
    }
}
