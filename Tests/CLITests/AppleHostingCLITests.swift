import Foundation
import TestSupport
import Testing

/// `publish --apple-base-url` through the binary: usage errors, the files it writes, and the
/// archive read back with `aar list`.
@Suite struct AppleHostingCLITests {
    static func workspace() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory("cli-apple")
        try dir.write("Levels.json", Array(#"{"assetPackID": "Levels", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "levels"}], "platforms": ["iOS"], "userInfo": {"tier": 2}}"#.utf8))
        try dir.write("levels/world.bin", patternBytes(100_000, seed: 4))
        try dir.write("levels/maps/one.txt", Array("map".utf8))
        _ = try Assetpack.runBlocking(["keygen", "-o", "signing.pem"], in: dir.path)
        return dir
    }

    @Test func aBadBaseURLIsAUsageError() throws {
        let dir = try Self.workspace()
        for bad in ["ftp://cdn.example.com/assets", "https://cdn.example.com/assets?v=1", "cdn.example.com/assets", "https://cdn.example.com/a#b"] {
            let r = try Assetpack.runBlocking(["publish", "Levels.json", "--repo", "site", "--key", "signing.pem", "--apple-base-url", bad], in: dir.path)
            #expect(r.status == 2, "\(bad): \(r.stderr)")
            #expect(r.stderr.contains("--apple-base-url"), "\(r.stderr)")
        }
        let rollout = try Assetpack.runBlocking(["publish", "Levels.json", "--repo", "site", "--key", "signing.pem", "--rollout", "10%",
                                                 "--apple-base-url", "https://cdn.example.com/assets"], in: dir.path)
        #expect(rollout.status == 2, "\(rollout.stderr)")
        let codec = try Assetpack.runBlocking(["publish", "Levels.json", "--repo", "site", "--key", "signing.pem", "--apple-compression", "zlib"], in: dir.path)
        #expect(codec.status == 2, "\(codec.stderr)")
        #expect(!dir.exists("site"))
    }

    @Test func publishesTheAppleFolderAndTheArchiveLists() throws {
        let dir = try Self.workspace()
        let r = try Assetpack.runBlocking(["publish", "Levels.json", "--repo", "site", "--key", "signing.pem",
                                           "--apple-base-url", "https://cdn.example.com/assets", "--json"], in: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let out = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        let apple = try #require(out["apple"] as? [String: Any])
        #expect(apple["manifest"] as? String == "apple/manifest.json")
        let manifest = try #require(dir.text("site/apple/manifest.json"))
        let size = try #require(dir.contents("site/apple/assets/Levels")).count
        #expect(manifest == "{\"assetPacks\":[\n{\"id\":\"Levels\",\"url\":\"https://cdn.example.com/assets/Levels\",\"version\":1,\"downloadSize\":\(size),\"downloadPolicy\":{\"onDemand\":{}},\"host\":{\"thirdParty\":{}},\"userInfo\":{\"tier\":2}}\n]}\n")
        let list = try Assetpack.runBlocking(["aar", "list", "site/apple/assets/Levels"], in: dir.path)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Contents/levels/world.bin") && list.stdout.contains("Contents/levels/maps/one.txt"), "\(list.stdout)")
        let extract = try Assetpack.runBlocking(["aar", "extract", "site/apple/assets/Levels", "-o", "out"], in: dir.path)
        #expect(extract.status == 0, "\(extract.stderr)")
        let extracted = dir.contents("out/Contents/levels/world.bin") == patternBytes(100_000, seed: 4)
        #expect(extracted)
    }
}
