import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// An update whose pack file went bad on the server after it was published — bytes flipped in
/// its chunks, the file cut short, its index changed — is refused with an error naming the pack
/// and what failed; nothing of it becomes visible, the installed version stays readable, and
/// once the server has the right bytes again the same call installs the update.
@Suite struct MalformedPackTests {
    static let v1 = ["maps/world.bin": patternBytes(200_000, seed: 41), "maps/names.txt": text("Atlantis\n", repeating: 500)]
    static let v2 = ["maps/world.bin": patternBytes(200_000, seed: 42), "maps/names.txt": text("Lemuria\n", repeating: 500)]

    enum Damage: String, CaseIterable, Sendable { case corruptChunk, truncated, indexMismatch }

    @Test(arguments: Client.allCases, Damage.allCases)
    func aDamagedUpdateIsRefusedAndThePreviousVersionStaysReadable(_ client: Client, _ damage: Damage) async throws {
        let repo = try TestRepository()
        try repo.put("Maps", files: Self.v1)
        try repo.publish()
        let server = try repo.serve()
        let app = App(client, repo: repo, urls: [server.url])
        let first = await app.ensure("Maps")
        try #require(first.succeeded, "\(first.error ?? "")")
        let installedV1 = tree(app.root + "/packs")

        // Version 2 is published, then its file is damaged where it lies on the server. With
        // `--keep 1` there is no patch file, whose index patch would make the new index from the
        // installed one without reading the pack file's.
        try repo.put("Maps", files: Self.v2)
        let pack = try #require(try repo.publishReport { $0.keep = 1 }.catalog?.pack(withID: "Maps"))
        let good = try #require(repo.contents(pack.path))
        var bad = good
        switch damage {
        case .corruptChunk: bad[bad.count / 3] ^= 0xFF
        case .truncated: bad = Array(bad.prefix(bad.count / 2))
        case .indexMismatch: bad[bad.count - 80] ^= 0x01
        }
        try repo.place(pack.path, bad)

        app.quit()
        let refused = await app.ensure("Maps", latest: true)
        #expect(refused.status == 1)
        let error = refused.error ?? ""
        #expect(error.contains(pack.path), "\(damage): \(error)")
        switch damage {
        case .corruptChunk: #expect(error.contains("verification failed") && error.contains("is corrupt") && error.contains("maps/world.bin"), "\(error)")
        case .truncated: #expect(error.contains("verification failed") && error.contains("the file is truncated or is not the one published"), "\(error)")
        case .indexMismatch: #expect(error.contains("verification failed") && error.contains("the index hashes to") && error.contains("the catalog pins"), "\(error)")
        }
        // Nothing of version 2 is visible: the installed tree is version 1's, byte for byte.
        #expect(tree(app.root + "/packs") == installedV1)
        for (path, bytes) in Self.v1 { #expect(await app.read(path) == bytes, "\(path)") }
        #expect(try await app.status("Maps").get().contains("updateAvailable"))

        // The server gets the right bytes back: the same call installs version 2.
        try repo.place(pack.path, good)
        app.quit()
        let fixed = await app.ensure("Maps", latest: true)
        #expect(fixed.succeeded, "\(fixed.error ?? "")")
        for (path, bytes) in Self.v2 { #expect(await app.read(path) == bytes, "\(path)") }
        #expect(tree(app.root + "/packs").keys.allSatisfy { $0.hasPrefix("Maps/\(pack.version)-") })
        #expect(tree(app.root + "/staging").isEmpty)
    }
}
