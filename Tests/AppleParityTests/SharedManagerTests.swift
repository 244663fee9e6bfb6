import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// How `AssetPackManager.shared` finds its configuration (`ConfigurationLookup`): missing,
/// malformed, the environment's file first, `AssetPacks.json` and Info.plist beside the
/// executable; and the shared manager itself, configured through the environment.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SharedManagerTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory("shared-manager") }

    func lookup(_ environment: [String: String] = [:], executable: String = "app") -> AssetPackManager.ConfigurationLookup {
        AssetPackManager.ConfigurationLookup(environment: environment, executableDirectory: dir.file(executable), applicationName: "Game")
    }

    func reason(_ body: () throws -> Void) -> String {
        do { try body(); return "no error" } catch AssetPackManagerError.invalidConfiguration(let why) { return why } catch { return "other: \(error)" }
    }

    let key = "ed25519:8ogjuvnAdbFHmAn/v5561qrfDSsZd3GzwYoM7fx33TE="

    @Test func missingConfigurationIsATypedErrorOnFirstUse() async throws {
        try FileManager.default.createDirectory(atPath: dir.file("app"), withIntermediateDirectories: true)
        let why = reason { _ = try lookup().load() }
        #expect(why.contains("found no configuration") && why.contains(dir.file("app/AssetPacks.json")), "\(why)")

        // The manager made from it does not trap: each call throws why, the rest answer "nothing".
        let manager = AssetPackManager.configured(by: lookup())
        await #expect(throws: AssetPackManagerError.self) { _ = try await manager.manifest }
        #expect(throws: AssetPackManagerError.self) { _ = try manager.contents(at: "a.txt") }
        #expect(manager.assetPackIsAvailableLocally(withID: "Levels") == false)
        #expect(await manager.localStatus(ofAssetPackWithID: "Levels") == [])
        do {
            _ = try await manager.manifest
            Issue.record("expected an error")
        } catch AssetPackManagerError.invalidConfiguration(let why) {
            #expect(why.contains("found no configuration"))
        }
    }

    @Test func malformedFilesNameTheFileAndTheKey() throws {
        let cases: [(String, String)] = [
            ("{not json", "is not JSON"),
            ("[1, 2]", "is not a dictionary"),
            ("{\"publicKey\": \"\(key)\"}", "key \"repositoryURLs\": is missing"),
            ("{\"repositoryURLs\": \"http://x/\", \"publicKey\": \"\(key)\"}", "key \"repositoryURLs\": must be a list of strings"),
            ("{\"repositoryURLs\": [\"http://x/\"]}", "key \"publicKey\": is missing"),
            ("{\"repositoryURLs\": [\"http://x/\"], \"publicKey\": \"ed25519:AAAA\"}", "key \"publicKey\""),
            ("{\"repositoryURLs\": [\"http://x/\"], \"publicKey\": \"\(key)\", \"downloadAllowance\": -5}", "key \"downloadAllowance\": must be a whole number"),
            ("{\"repositoryURLs\": [\"http://x/\"], \"publicKey\": \"\(key)\", \"delivery\": \"carrier pigeon\"}", "key \"delivery\""),
            ("{\"repositoryURLs\": [\"http://x/\"], \"publicKey\": \"\(key)\", \"primaryLanguage\": \"!!\"}", "key \"primaryLanguage\""),
        ]
        for (i, (json, expected)) in cases.enumerated() {
            let file = try dir.write("bad\(i)/app/AssetPacks.json", Array(json.utf8))
            let why = reason { _ = try lookup(executable: "bad\(i)/app").load() }
            #expect(why.contains(file) && why.contains(expected), "\(json): \(why)")
        }
    }

    @Test func theEnvironmentVariableComesFirstThenTheFileBesideTheExecutable() throws {
        try dir.write("app/AssetPacks.json", Array("""
            {"repositoryURLs": ["http://beside.example/"], "publicKey": "\(key)", "storageRoot": "data", "downloadAllowance": 1000}
            """.utf8))
        let beside = try lookup().load()
        #expect(beside.repositoryURLs == ["http://beside.example/"])
        #expect(beside.storageRoot == dir.file("app/data"))   // relative to the file's folder
        #expect(beside.downloadAllowance == 1000)

        let named = try dir.write("elsewhere/config.json", Array("""
            {"repositoryURLs": ["http://env.example/"], "rootKey": "\(key)", "allowedDomains": ["*.example"], "delivery": "automatic"}
            """.utf8))
        let fromEnvironment = try lookup([AssetPackManager.ConfigurationLookup.environmentVariable: named]).load()
        #expect(fromEnvironment.repositoryURLs == ["http://env.example/"])
        #expect(fromEnvironment.rootKey != nil && fromEnvironment.allowedDomains == ["*.example"] && fromEnvironment.delivery == .automatic)
        #expect(fromEnvironment.storageRoot.hasSuffix("AssetPacks/Game"))

        let why = reason { _ = try lookup([AssetPackManager.ConfigurationLookup.environmentVariable: dir.file("nope.json")]).load() }
        #expect(why.contains("ASSETPACKS_CONFIGURATION") && why.contains("does not exist"), "\(why)")
    }

    @Test func infoPlistKeysBesideTheExecutable() throws {
        let plist: [String: Any] = [
            "AssetPacksRepositoryURLs": ["https://cdn.example.com/game/"],
            "AssetPacksPublicKey": key,
            "AssetPacksStorageRoot": "/var/lib/game",
            "BAInitialDownloadRestrictions": ["BADownloadAllowance": 2_000, "BADownloadDomainAllowList": ["cdn.example.com"]],
            "BAMaxInstallSize": 9_000,
        ]
        try dir.write("plist/app/Info.plist", Array(try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)))
        let configuration = try lookup(executable: "plist/app").load()
        #expect(configuration.repositoryURLs == ["https://cdn.example.com/game/"])
        #expect(configuration.storageRoot == "/var/lib/game")
        #expect(configuration.downloadAllowance == 2_000 && configuration.maxInstallSize == 9_000)
        #expect(configuration.allowedDomains == ["cdn.example.com"])
    }

    /// `AssetPackManager.shared` itself, configured by the file the environment names: the only
    /// test that touches it (it is made once per process).
    @Test func sharedManagerReadsTheEnvironmentsFile() async throws {
        let repo = try TestRepository("shared")
        try repo.put("Levels", files: ["level.txt": text("one\n")])
        try repo.publish()
        let server = try repo.serve()
        let file = try dir.write("shared/AssetPacks.json", Array("""
            {"repositoryURLs": ["\(server.url)"], "publicKey": "\(repo.publicKey.text)", "storageRoot": "root"}
            """.utf8))
        setenv(AssetPackManager.ConfigurationLookup.environmentVariable, file, 1)
        defer { unsetenv(AssetPackManager.ConfigurationLookup.environmentVariable) }

        let app = AppAssets()   // the shared manager, as an app uses it
        try await app.download("Levels")
        #expect(try AssetPackManager.shared.contents(at: "level.txt") == Data("one\n".utf8))
        #expect(AssetPackManager.shared.configuration.storageRoot == dir.file("shared/root"))
    }
}
