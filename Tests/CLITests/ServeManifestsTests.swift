import Foundation
import TestSupport
import Testing

/// `serve --manifests … --key` publishes and serves in one step; `verify-catalog` reads the
/// catalog back over HTTP.
@Suite struct ServeManifestsTests {
    @Test func publishesServesAndCleansUp() throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try s.write("Content/a.txt", String(repeating: "alpha ", count: 1000))
        try s.write("M.json", "{\"assetPackID\": \"Alpha\", \"downloadPolicy\": {\"onDemand\": {}}, \"sourceRoot\": \"Content\", \"fileSelectors\": [{\"directory\": \".\"}], \"platforms\": [\"iOS\"]}")
        #expect(try Assetpack.runBlocking(["keygen", "-o", "k"], in: s.path).status == 0)

        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Assetpack.executable())
        p.arguments = ["serve", "--manifests", "M.json", "--key", "k", "--port", "0"]
        p.currentDirectoryURL = URL(fileURLWithPath: s.path)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = s.path
        p.environment = environment
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        // Read until the "Serving … at URL" line.
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("\n") && Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let url = try #require(text.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(url.hasPrefix("http://127.0.0.1:"))
        let temporary = try #require(try FileManager.default.contentsOfDirectory(atPath: s.path).first { $0.hasPrefix("assetpack-serve-") })

        let verified = try Assetpack.runBlocking(["verify-catalog", url, "--public-key", "k.pub", "--json"], in: s.path)
        #expect(verified.status == 0, "\(verified.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(verified.stdout.utf8)) as? [String: Any]
        let packs = json?["packs"] as? [[String: Any]]
        #expect(packs?.first?["id"] as? String == "Alpha")
        let wrongKey = try Assetpack.runBlocking(["keygen", "-o", "other"], in: s.path)
        #expect(wrongKey.status == 0)
        let refused = try Assetpack.runBlocking(["verify-catalog", url, "--public-key", "other.pub"], in: s.path)
        #expect(refused.status == 1 && refused.stderr.contains("key"))

        p.terminate()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: s.path + "/" + temporary), "the temporary repository is removed at exit")
    }

    /// With --apple-base-url, the one-step publish writes the Apple folder, served as Apple's
    /// convention: a Linux ba-serve from manifests.
    @Test func publishesForAppleDevicesAndServesTheManifest() throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try s.write("Content/a.txt", String(repeating: "alpha ", count: 1000))
        try s.write("M.json", "{\"assetPackID\": \"Alpha\", \"downloadPolicy\": {\"onDemand\": {}}, \"sourceRoot\": \"Content\", \"fileSelectors\": [{\"directory\": \".\"}], \"platforms\": [\"iOS\"]}")
        #expect(try Assetpack.runBlocking(["keygen", "-o", "k"], in: s.path).status == 0)
        let bad = try Assetpack.runBlocking(["serve", "--manifests", "M.json", "--key", "k", "--apple-base-url", "https://h/x?y"], in: s.path)
        #expect(bad.status == 2 && bad.stderr.contains("--apple-base-url"), "\(bad.stderr)")
        let p = try Assetpack.start(["serve", "s", "--manifests", "M.json", "--key", "k", "--port", "0", "--apple-base-url", "https://devbox.example/assets"],
                                    in: s.path, output: s.file("out.txt"), error: s.file("err.txt"))
        defer { if p.isRunning { p.terminate(); p.waitUntilExit() } }
        try blockingWaitUntil("serve prints its URL", timeout: .seconds(60), interval: .milliseconds(50)) {
            s.text("out.txt")?.contains("Apple devices:") == true || !p.isRunning
        }
        let out = try #require(s.text("out.txt"))
        let url = try #require(out.split(separator: "\n").first { $0.hasPrefix("Serving ") }?.split(separator: " ").last.map(String.init))
        let fetched = try Assetpack.runBlocking(["fetch", url + "manifest?platform=ios", "-o", "manifest.json"], in: s.path)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(s.contents("manifest.json") == s.contents("s/apple/manifests/ios.json"))
        #expect(s.text("manifest.json")?.contains("\"url\":\"https://devbox.example/assets/Alpha\"") == true)
        let archive = try Assetpack.runBlocking(["fetch", url + "assets/Alpha", "-o", "Alpha.aar"], in: s.path)
        #expect(archive.status == 0, "\(archive.stderr)")
        let list = try Assetpack.runBlocking(["aar", "list", "Alpha.aar"], in: s.path)
        #expect(list.status == 0 && list.stdout.contains("Contents/a.txt"), "\(list.stdout)")
    }

    @Test func needsAKeyWithManifests() throws {
        let r = try Assetpack.runBlocking(["serve", "--manifests", "M.json"])
        #expect(r.status == 2 && r.stderr.contains("--manifests needs --key"))
        let none = try Assetpack.runBlocking(["serve"])
        #expect(none.status == 2)
    }
}
