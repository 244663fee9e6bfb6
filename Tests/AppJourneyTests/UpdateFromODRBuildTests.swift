import AssetPackFormat
import AssetPackPublishing
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// An update from a build whose content came with the app or from On-Demand Resources: the
/// ODR-tagged project is converted (`assetpack convert odr`) and published; the app's data
/// folder still holds what the old build put there. The new build's first launch (the
/// subsequent-update install step) fetches exactly its essential and prefetch packs, leaves the
/// old files alone, a relaunch fetches nothing, and the code that asked ODR for tags gets them
/// from asset packs (`AssetPackResourceRequest`; the CLI asks for the pack the tag became).
@Suite struct UpdateFromODRBuildTests {
    static let gameApp: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("AssetPackMigrationTests/Fixtures/ODR/GameApp").path

    /// The converted manifests by pack ID, with each one's policy ("essential", "prefetch",
    /// "onDemand"), published to `repo`.
    func convertAndPublish(_ repo: TestRepository) async throws -> [String: String] {
        try FileManager.default.copyItem(atPath: Self.gameApp, toPath: repo.dir.file("GameApp"))
        let converted = try await Assetpack.run(["convert", "odr", "GameApp", "-o", "manifests"], in: repo.dir.path)
        try #require(converted.status == 0, "\(converted.stderr)")
        var policies: [String: String] = [:]
        var paths: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: repo.dir.file("manifests")).sorted() where name != "conversion-summary.json" {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(readFile(repo.dir.file("manifests/" + name)))) as? [String: Any])
            let id = try #require(object["assetPackID"] as? String)
            policies[id] = try #require((object["downloadPolicy"] as? [String: Any])?.keys.first)
            paths.append(repo.dir.file("manifests/" + name))
        }
        let report = try Publisher(key: repo.key, options: repo.publishOptions(now: Date())).publish(manifests: paths)
        try #require(report.catalog != nil, "\(report.diagnostics)")
        return policies
    }

    @Test(arguments: Client.allCases)
    func theFirstLaunchAfterODRFetchesOnlyWhatIsMissingAndTagsStillWork(_ client: Client) async throws {
        let repo = try TestRepository()
        let policies = try await convertAndPublish(repo)
        let plan = Set(policies.filter { $0.value != "onDemand" }.keys)
        let onDemand = Set(policies.filter { $0.value == "onDemand" }.keys)
        try #require(!plan.isEmpty && !onDemand.isEmpty, "\(policies)")
        let server = try repo.serve()
        let app = App(client, repo: repo, urls: [server.url])

        // The old build's files in the app's data folder (it bundled them and copied them there).
        let old = ["Bundled/level1.png": patternBytes(5_000, seed: 61), "Bundled/levels/level2.json": text("{\"old\": true}\n")]
        for (path, bytes) in old { try repo.dir.write("root-\(client.rawValue)/\(path)", bytes) }

        // The first launch of the new build.
        let launch = await app.install(.subsequentUpdate)
        #expect(launch.succeeded, "\(launch.error ?? "")")
        #expect(Set(packIDs(server.packRequests())) == plan)
        for id in plan {
            let manifest = try #require(try JSONSerialization.jsonObject(with: Data(readFile(repo.dir.file("manifests/\(id).json")))) as? [String: Any])
            let installed = try #require(installedFiles(of: id, in: app.root), "\(id) is not installed")
            #expect(!installed.isEmpty)
            // Every installed file is the project's file, byte for byte (paths are relative to the sourceRoot).
            let sourceRoot = try #require(manifest["sourceRoot"] as? String)
            for (path, bytes) in installed { #expect(bytes == readFile(repo.dir.file(sourceRoot + "/" + path)), "\(id): \(path)") }
            #expect(try await app.status(id).get().contains("upToDate"))
        }
        for id in onDemand { #expect(try await app.status(id).get() == ["downloadAvailable"]) }
        // The old files are left as they were; nothing takes them for a pack.
        for (path, bytes) in old { #expect(readFile(app.root + "/" + path) == bytes) }

        // A relaunch fetches nothing.
        app.quit()
        let requestsBefore = server.packRequests().count
        let relaunch = await app.install(.subsequentUpdate)
        #expect(relaunch.succeeded && relaunch.fetchedBytes == 0, "\(relaunch.error ?? "") fetched \(relaunch.fetchedBytes)")
        #expect(server.packRequests().count == requestsBefore)

        // The code that asked ODR for the tag "background" (on demand) gets it from a pack.
        let tagged = "background"
        try #require(onDemand.contains(tagged), "\(policies)")
        switch client {
        case .library:
            let request = AssetPackResourceRequest(tags: [tagged], manager: try app.manager())
            try await request.beginAccessingResources()
            #expect(request.progress.isFinished)
            request.endAccessingResources()
        case .cli:
            let ensured = await app.ensure(tagged)
            #expect(ensured.succeeded, "\(ensured.error ?? "")")
        }
        #expect(Set(packIDs(server.packRequests())) == plan.union([tagged]))
        let files = try #require(installedFiles(of: tagged, in: app.root))
        #expect(!files.isEmpty)
        for (path, bytes) in files { #expect(await app.read(path) == bytes, "\(path)") }
    }

    /// The pack IDs of requests for pack files.
    func packIDs(_ requests: [LoggedRequest]) -> [String] {
        requests.compactMap { $0.path.split(separator: "/").dropFirst().first.map(String.init) }
    }

    /// The files of pack `id`'s installed folder, by path inside the pack; nil when not installed.
    func installedFiles(of id: String, in root: String) -> [String: [UInt8]]? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root + "/packs/" + id)) ?? []
        guard versions.count == 1 else { return nil }
        return tree(root + "/packs/" + id + "/" + versions[0])
    }
}
