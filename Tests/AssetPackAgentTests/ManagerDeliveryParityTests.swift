import AssetPackFormat
import AssetPacks
import Foundation
import TestSupport
import Testing

/// Apple's 27.x calls run the same in process and through the agent.
extension ManagerDeliveryTests {
    @Test(arguments: Mode.allCases) func progressCancelPausesAndLocalizedReadsLimitTheSearch(_ mode: Mode) async throws {
        let fixture = try AgentFixture()
        let big = patternBytes(3 << 20, seed: 61)
        try fixture.put("Big", files: ["big.bin": big])
        try fixture.put("Voices-en", language: "en", files: ["hello.txt": Array("Hello\n".utf8)])
        try fixture.put("Voices-fr", language: "fr", files: ["hello.txt": Array("Bonjour\n".utf8)])
        try await fixture.publishAndServe(bytesPerSecond: 500_000)
        let subject = try await ManagerUnderTest(mode, fixture)
        let manager = subject.manager

        // Cancelling a `downloading` update's Progress pauses the download; it resumes when asked again.
        let pack = try await manager.catalogPack(withID: "Big")
        let updates = manager.statusUpdates(forAssetPackWithID: "Big")
        let first = Task { try await manager.ensureLocalAvailability(of: pack) }
        var names: [String] = []
        var cancelled = false
        for await update in updates {
            switch update {
            case .began: names.append("began")
            case .downloading(_, let progress):
                if names.last != "downloading" { names.append("downloading") }
                if !cancelled {
                    cancelled = true
                    progress.cancel()
                    progress.cancel()
                }
            case .paused:
                names.append("paused")
                _ = try? await first.value
                Task { try await manager.ensureLocalAvailability(of: pack) }
            case .finished: names.append("finished")
            case .failed(_, let error): names.append("failed: \(error)")
            }
        }
        #expect(names.first == "began" && names.contains("paused") && names.last == "finished", "\(names)")
        #expect(try manager.contents(at: "big.bin") == Data(big))
        #expect(try manager.localVersion(ofAssetPackWithID: "Big") == 1)
        #expect(try await manager.localSize(ofAssetPackWithID: "Big", calculationMethod: .logical) == Int64(big.count))

        // Reads for a language search only the packs localized for it.
        try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Voices-fr"))
        #expect(try manager.contents(at: "hello.txt", asLocalizedFor: Locale.Language(identifier: "fr-CA")) == Data("Bonjour\n".utf8))
        #expect(throws: AssetPackManagerError.self) { try manager.url(for: "hello.txt", asLocalizedFor: Locale.Language(identifier: "en")) }
        #expect(await manager.locallyAvailableLanguages == [Locale.Language(identifier: "fr")])
        await subject.stop()
    }
}

extension ManagerDeliveryTests {
    /// Apple's `checkForUpdates()` returns once removals are done and updates started; the
    /// update then finishes on its own (in process, or in the agent).
    @Test(arguments: Mode.allCases) func checkForUpdatesStartsTheUpdatesAndReturns(_ mode: Mode) async throws {
        let fixture = try AgentFixture()
        try fixture.put("Levels", files: ["level1.bin": patternBytes(200_000, seed: 71)])
        try fixture.put("Old", files: ["old.bin": patternBytes(1000, seed: 72)])
        try await fixture.publishAndServe()
        let subject = try await ManagerUnderTest(mode, fixture)
        let manager = subject.manager
        try await manager.ensureLocalAvailability(of: [try await manager.catalogPack(withID: "Levels"), try await manager.catalogPack(withID: "Old")])

        let changed = patternBytes(200_000, seed: 73)
        try fixture.put("Levels", files: ["level1.bin": changed])
        fixture.drop("Old")
        try await fixture.republish()
        let (updating, removed) = try await manager.checkForUpdates()
        #expect(updating == ["Levels"] && removed == ["Old"])
        #expect(manager.assetPackIsAvailableLocally(withID: "Old") == false)
        try await waitUntil("the update to be installed", timeout: .seconds(60)) {
            (try? manager.localVersion(ofAssetPackWithID: "Levels")) == 2
        }
        #expect(try manager.contents(at: "level1.bin") == Data(changed))
        await subject.stop()
    }
}
