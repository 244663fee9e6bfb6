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

    @Test func needsAKeyWithManifests() throws {
        let r = try Assetpack.runBlocking(["serve", "--manifests", "M.json"])
        #expect(r.status == 2 && r.stderr.contains("--manifests needs --key"))
        let none = try Assetpack.runBlocking(["serve"])
        #expect(none.status == 2)
    }
}
