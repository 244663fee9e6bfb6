import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Localized variants: the install step takes the one variant that best fits the user's
/// languages, and the namespace resolves a shared path to the best installed variant.
@Suite struct LocalizedVariantTests {
    static let languages = ["en", "de", "fr-CA", "fr"]

    func repository(_ languages: [String]) throws -> TestRepository {
        let repo = try TestRepository()
        for language in languages {
            try repo.put("Voices.\(language)", policy: .essential(installationEventTypes: [.firstInstallation]), language: language,
                         files: ["voices/hello.txt": text("hello in \(language)\n"), "voices/data.bin": patternBytes(10_000, seed: UInt64(language.unicodeScalars.map(\.value).reduce(0, +)))])
        }
        try repo.put("Music", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["music.txt": text("la la\n")])
        try repo.publish()
        return repo
    }

    @Test func installStepTakesTheBestVariantOnly() async throws {
        let repo = try repository(["en", "de", "fr-CA"])
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server) { $0.preferredLanguages = ["fr-FR"] }
        try await manager.handleInstallationEvent(.firstInstallation).value
        var installed: [String] = []
        for id in ["Voices.en", "Voices.de", "Voices.fr-CA", "Music"] where manager.assetPackIsAvailableLocally(withID: id) {
            installed.append(id)
        }
        #expect(installed == ["Voices.fr-CA", "Music"])
        #expect(try manager.contents(at: "voices/hello.txt") == Data(text("hello in fr-CA\n")))
        #expect(!server.packRequests().contains { $0.path.contains("Voices.en") || $0.path.contains("Voices.de") })

        // No preferred language matches: the app's primary language.
        let other = try repo.manager(root: repo.dir.file("root-ja"), server: server) {
            $0.preferredLanguages = ["ja-JP"]
            $0.primaryLanguage = "de"
        }
        try await other.handleInstallationEvent(.firstInstallation).value
        #expect(other.assetPackIsAvailableLocally(withID: "Voices.de"))
        #expect(!other.assetPackIsAvailableLocally(withID: "Voices.en"))
    }

    @Test func namespaceResolvesToTheBestInstalledVariant() async throws {
        let repo = try repository(Self.languages)
        let server = try repo.serve()
        let root = repo.dir.file("root")
        do {
            let installer = try repo.manager(root: root, server: server)
            try await installer.ensureLocalAvailability(of: Set(installer.catalogPacks))
        }

        func reader(_ preferred: [String], primary: String = "en") throws -> AssetPackManager {
            try repo.manager(root: root, server: server) { $0.preferredLanguages = preferred; $0.primaryLanguage = primary }
        }
        func hello(_ preferred: [String], primary: String = "en") async throws -> String {
            String(decoding: try reader(preferred, primary: primary).contents(at: "voices/hello.txt"), as: UTF8.self)
        }
        // The exact tag first.
        #expect(try await hello(["fr-CA"]) == "hello in fr-CA\n")
        #expect(try await hello(["fr"]) == "hello in fr\n")
        // The same language in another region: the plain language before another region.
        #expect(try await hello(["fr-BE"]) == "hello in fr\n")
        #expect(try await hello(["de-AT"]) == "hello in de\n")
        // Preferred languages in order: a near match of the first beats an exact match of the second.
        #expect(try await hello(["de-CH", "fr-CA"]) == "hello in de\n")
        // None matches: the primary language.
        #expect(try await hello(["ja"]) == "hello in en\n")
        #expect(try await hello(["ja"], primary: "de") == "hello in de\n")
        // A pack named explicitly wins; a path of a pack in no language resolves to it.
        #expect(try reader(["en"]).contents(at: "voices/hello.txt", searchingInAssetPackWithID: "Voices.de") == Data(text("hello in de\n")))
        #expect(try reader(["fr-CA"]).contents(at: "voices/data.bin") == Data(patternBytes(10_000, seed: UInt64("fr-CA".unicodeScalars.map(\.value).reduce(0, +)))))
        #expect(try reader(["de"]).contents(at: "music.txt") == Data(text("la la\n")))
        #expect(try reader(["en"]).url(for: "voices/hello.txt").path.contains("/packs/Voices.en/"))
        let entry = try await reader(["en"]).namespace().first { $0.path == "voices/hello.txt" }
        #expect(entry?.packIDs == ["Voices.de", "Voices.en", "Voices.fr", "Voices.fr-CA"])
        // The listing `assetpack ls` prints, built from the store's rows, says the same.
        let namespace = try await reader(["en"]).namespace()
        let listing = String(decoding: try await reader(["en"]).namespaceListing(), as: UTF8.self)
        #expect(listing == namespace.map { "\($0.path)\t\($0.packIDs.joined(separator: ","))\n" }.joined())
        #expect(listing.contains("voices/hello.txt\tVoices.de,Voices.en,Voices.fr,Voices.fr-CA\n"))
        // Handed out in pieces of whole lines (here as soon as 8 bytes are waiting, so that lines
        // go out while a later row could still extend the one being built), the same text.
        var pieces: [[UInt8]] = []
        try await reader(["en"]).mergedNamespace.listing(piece: 8) { pieces.append(Array($0)) }
        #expect(pieces.count > 1)
        #expect(pieces.allSatisfy { $0.last == UInt8(ascii: "\n") })
        #expect(String(decoding: Array(pieces.joined()), as: UTF8.self) == listing)
    }

    /// The namespace's rows of a pack go with it, found by the paths its stored index lists:
    /// a removal keeps the rows of the other variants that share those paths, and an update
    /// drops a path the new version no longer has and keeps the ones it still has.
    @Test func removalAndUpdateChangeOnlyThatPacksRows() async throws {
        let repo = try repository(["en", "de", "fr"])
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let manager = try repo.manager(root: root, server: server)
        try await manager.ensureLocalAvailability(of: Set(manager.catalogPacks))
        let store = try ClientStore(path: root + "/state.sqlite")
        #expect(try store.packs(holding: "voices/hello.txt") == ["Voices.de", "Voices.en", "Voices.fr"])

        try await manager.remove(assetPackWithID: "Voices.de")
        #expect(try store.packs(holding: "voices/hello.txt") == ["Voices.en", "Voices.fr"])
        #expect(try store.packs(holding: "voices/data.bin") == ["Voices.en", "Voices.fr"])
        #expect(try store.packs(holding: "music.txt") == ["Music"])

        try repo.put("Voices.en", policy: .essential(installationEventTypes: [.firstInstallation]), language: "en",
                     files: ["voices/hello.txt": text("hello again in en\n"), "voices/data.bin": patternBytes(100, seed: 3)])
        try repo.put("Music", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["tune.txt": text("da da\n")])
        try repo.publish()
        let (updated, _) = try await manager.installUpdates()
        #expect(Set(updated.map(\.id)) == ["Voices.en", "Music"])
        #expect(try store.packs(holding: "voices/hello.txt") == ["Voices.en", "Voices.fr"])
        #expect(try store.packs(holding: "music.txt").isEmpty)
        #expect(try store.packs(holding: "tune.txt") == ["Music"])
        let rows = try SQLiteDatabase(path: root + "/state.sqlite").query("SELECT count(*) FROM namespace").first?.first?.int
        #expect(rows == 5, "hello and data of en and fr, tune: \(rows ?? -1) rows")
    }

    @Test func resolverRanks() {
        let resolver = LanguageResolver(preferred: ["fr-BE", "de"], primary: "en")
        let expected = ["fr-BE", "fr", "fr-CA", "de", "de-AT", "en", "en-GB", "ja"]
        // Strictly better one after the other: no ties left to the order of the candidates.
        for (better, worse) in zip(expected, expected.dropFirst()) {
            #expect(resolver.rank(better) < resolver.rank(worse), "\(better) before \(worse)")
        }
        let script = LanguageResolver(preferred: ["zh-Hant-TW"], primary: "en")
        #expect(script.rank("zh-Hant") < script.rank("zh") && script.rank("zh") < script.rank("zh-Hans"))
        #expect(resolver.rank(nil) > resolver.rank("ja"))
        #expect(resolver.rank("FR-be") == resolver.rank("fr-BE"))
    }
}
