import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `AppAssets` — code written from Apple's Background Assets documentation with only the import
/// changed — run against a real repository served on loopback, item by item of the parity table
/// in docs/CLIENT.md.
@Suite(.timeLimit(.minutes(3))) struct AppleParityTests {
    let repo: TestRepository
    let level = Data(text("{\"level\": 1}\n", repeating: 50))

    init() throws {
        repo = try TestRepository("apple-parity")
        try repo.put("Levels", userInfo: ["order": 1, "difficulty": "hard"], files: ["Levels/level1.json": Array(level)])
        try repo.put("Voices-en", language: "en", files: ["Voices/hello.txt": text("Hello\n")])
        try repo.put("Voices-fr", language: "fr", files: ["Voices/hello.txt": text("Bonjour\n")])
        // Incompressible, so that its download takes a while on a throttled server.
        try repo.put("Big", files: ["big.bin": patternBytes(3 << 20, seed: 7)])
        try repo.publish()
    }

    /// A manager for a fresh root, as an app would configure it (English first).
    func app(_ server: TestServer, root: String = "root", _ configure: (inout AssetPackManager.Configuration) -> Void = { _ in }) throws -> AppAssets {
        var configuration = AssetPackManager.Configuration(repositoryURLs: [server.url], publicKey: repo.publicKey,
                                                           storageRoot: repo.dir.file(root), preferredLanguages: ["en"], primaryLanguage: "en")
        configure(&configuration)
        return AppAssets(manager: try AssetPackManager(configuration: configuration))
    }

    @Test func assetPackAndManifestHaveApplesShapes() async throws {
        let server = try repo.serve()
        let app = try self.app(server)
        #expect(requireAppleConformances(AssetPack.self))

        let levels = try await app.describe("Levels")
        #expect(levels.id == "Levels" && levels.version == 1 && levels.downloadSize > 0 && levels.text == "Levels v1")
        #expect(levels.language == nil)
        // The manifest's userInfo, carried through the pack and the catalog as canonical JSON.
        #expect(levels.userInfo == Data(#"{"difficulty":"hard","order":1}"#.utf8))
        #expect(try await app.describe("Big").userInfo == nil)
        #expect(try await app.describe("Voices-fr").language == Locale.Language(identifier: "fr"))

        let offered = try await app.offered()
        #expect(offered.all == ["Big", "Levels", "Voices-en", "Voices-fr"])
        #expect(offered.localized == ["Voices-en"])
        #expect(offered.french == ["Voices-fr"])
        #expect(offered.primary == Locale.Language(identifier: "en"))
        #expect(offered.languages == [Locale.Language(identifier: "en"), Locale.Language(identifier: "fr")])
        #expect(offered.levels?.id == "Levels")

        // Code written for 26.x still runs: the manager's own lookups, deprecated in 27.0.
        let before27 = try await app.before27("Levels")
        #expect(before27.one == (try await app.pack("Levels")) && before27.all == Set(offered.all))
    }

    @Test func statusDownloadsAndReads() async throws {
        let server = try repo.serve()
        let app = try self.app(server)
        #expect(await app.offlineStatus("Levels") == [])   // no catalog fetched yet: nothing known, no throw
        #expect(try await app.isReady("Levels") == false)
        #expect(await app.offlineStatus("Levels") == .downloadAvailable)
        #expect(app.canShowLevelsNow() == false)

        try await app.download("Levels")
        #expect(try await app.isReady("Levels"))
        #expect(await app.offlineStatus("Levels") == [.downloaded, .upToDate])
        #expect(app.canShowLevelsNow())

        #expect(try app.level() == level)
        #expect(try app.levelReadIntoMemory() == level)
        #expect(try app.levelBytes(count: 9) == Array(level.prefix(9)))
        #expect(FileManager.default.contents(atPath: try app.levelURL().path) == level)

        let figures = try await app.installedFigures("Levels")
        #expect(figures.version == 1 && figures.logical == Int64(level.count) && figures.allocated >= figures.logical)
        #expect(app.missingFile() == "fileNotFound Levels/missing.json")
        #expect(await app.missingPack() == "assetPackNotFound NoSuchPack")
        // The 27.2 local calls say assetPackNotFound for a pack that is not installed.
        #expect(throws: ManagedBackgroundAssetsError.self) { try app.manager.localVersion(ofAssetPackWithID: "Big") }
        await #expect(throws: ManagedBackgroundAssetsError.self) { try await app.manager.localSize(ofAssetPackWithID: "Big", calculationMethod: .logical) }

        try await app.remove("Levels")
        #expect(app.canShowLevelsNow() == false)
        #expect(await app.offlineStatus("Levels") == .downloadAvailable)
    }

    @Test func batchFailureListsSuccessesAndFailures() async throws {
        let server = try repo.serve()
        // The extension declines the large pack: that one fails, the others install.
        let app = try self.app(server) { $0.downloaderExtension = DownloaderExtension() }
        let outcome = try await app.downloadAll(["Levels", "Voices-en", "Big"])
        #expect(outcome.ok == ["Levels", "Voices-en"])
        #expect(outcome.failed.keys.sorted() == ["Big"])
        #expect(outcome.failed["Big"]?.contains("declined") == true)
        #expect(server.packRequests().allSatisfy { !$0.path.contains("Big") })

        // The default answer of Apple's protocol is yes.
        let other = try self.app(server, root: "root2") { $0.downloaderExtension = DefaultDownloaderExtension() }
        #expect(try await other.downloadAll(["Big"]).ok == ["Big"])
    }

    @Test func progressCancelPausesAndTheDownloadResumes() async throws {
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 500_000 }
        let app = try self.app(server)
        let seen = try await app.downloadWithOnePause("Big")
        #expect(seen.first == "began")
        #expect(seen.contains("paused"))
        #expect(seen.last == "finished", "\(seen)")
        #expect(!seen.contains { $0.hasPrefix("failed") }, "\(seen)")
        #expect(try app.manager.contents(at: "big.bin") == Data(patternBytes(3 << 20, seed: 7)))
        // Resumed, not restarted: fewer bytes than two whole downloads came over the network.
        let fetched = await app.manager.fetchedBytes
        let size = try await app.describe("Big").downloadSize
        #expect(fetched < UInt64(size) * 2, "fetched \(fetched) for a \(size)-byte pack")
    }

    @Test func checkForUpdatesReturnsOnceTheWorkIsRegistered() async throws {
        let server = try repo.serve()
        let app = try self.app(server)
        _ = try await app.downloadAll(["Levels", "Big"])
        // Levels changes, Big goes away.
        let level2 = Data(text("{\"level\": 2}\n", repeating: 50))
        try repo.put("Levels", files: ["Levels/level1.json": Array(level2)])
        repo.drop("Big")
        try repo.publish()

        let watcher = Task { await app.watchAll(untilFinished: 1) }
        let (updating, removed) = try await app.refresh()
        #expect(updating == ["Levels"])
        #expect(removed == ["Big"])
        #expect(app.manager.assetPackIsAvailableLocally(withID: "Big") == false)
        #expect(await watcher.value == ["Levels"])
        #expect(try app.manager.localVersion(ofAssetPackWithID: "Levels") == 2)
        #expect(try app.level() == level2)
    }

    @Test func localizedReadsAndLanguageChoice() async throws {
        let server = try repo.serve()
        let app = try self.app(server)
        _ = try await app.downloadAll(["Voices-en"])
        let english = try app.greeting(in: Locale.Language(identifier: "en-GB"))
        #expect(english.contents == Data("Hello\n".utf8) && english.firstByte == UInt8(ascii: "H"))
        #expect(FileManager.default.contents(atPath: english.url.path) == Data("Hello\n".utf8))
        // No French pack installed: a French read finds nothing (it does not fall back).
        #expect(throws: ManagedBackgroundAssetsError.self) { try app.greeting(in: Locale.Language(identifier: "fr")) }
        #expect(app.manager.resolvedLanguage == Locale.Language(identifier: "en"))

        let languages = try await app.chooseVoiceLanguage(Locale.Language(identifier: "fr"))
        #expect(languages == [Locale.Language(identifier: "en"), Locale.Language(identifier: "fr")])
        #expect(app.manager.resolvedLanguage == Locale.Language(identifier: "fr"))
        #expect(try app.greeting(in: Locale.Language(identifier: "fr")).contents == Data("Bonjour\n".utf8))
        // The merged namespace follows the chosen language.
        #expect(try app.manager.contents(at: "Voices/hello.txt") == Data("Bonjour\n".utf8))
        // Back to the user's preferences.
        app.manager.resolvedLanguage = nil
        #expect(try app.manager.contents(at: "Voices/hello.txt") == Data("Hello\n".utf8))
    }
}
