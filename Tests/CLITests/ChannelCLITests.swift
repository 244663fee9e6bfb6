import Foundation
import TestRepositories
import TestSupport
import Testing

/// The channel commands through the binary: docs/PUBLISHING.md's worked example (beta → 10 % →
/// 100 % → rollback, with a client following along and an upload to moto that keeps the safe
/// order), the bounds of the percentages, and the report rendered in headless Chromium.
@Suite struct ChannelCLITests {
    let credentials = ["AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"]

    /// A folder with a key and a manifest of one pack whose content `write(seed:)` replaces.
    struct Workspace {
        let dir: TemporaryDirectory
        init() throws {
            dir = try TemporaryDirectory("cli-channels")
            try dir.write("Manifests/Levels.json", Array(#"{"assetPackID": "Levels", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "levels"}], "platforms": ["iOS"]}"#.utf8))
            try dir.write("Manifests/Voices.en.json", Array(#"{"assetPackID": "Voices.en", "downloadPolicy": {"prefetch": {"installationEventTypes": ["firstInstallation"]}}, "fileSelectors": [{"directory": "voices"}], "platforms": ["iOS"], "language": "en"}"#.utf8))
            try dir.write("voices/hello.txt", Array(repeating: UInt8(ascii: "a"), count: 200_000))
        }
        func write(seed: UInt64) throws { try dir.write("levels/world.bin", patternBytes(600_000, seed: seed)) }
        func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
            let result = try await Assetpack.run(arguments, in: dir.path, environment: environment)
            #expect(result.status == 0, "assetpack \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }
        func installedLevels(root: String) throws -> [UInt8]? {
            let store = "\(dir.path)/\(root)/packs/Levels"
            guard let folder = try FileManager.default.contentsOfDirectory(atPath: store).first else { return nil }
            return dir.contents("\(root)/packs/Levels/\(folder)/levels/world.bin")
        }
    }

    /// docs/PUBLISHING.md, "Channels and staged rollouts", as it is written there.
    @Test func theWorkedExampleRuns() async throws {
        let w = try Workspace()
        _ = try await w.run(["keygen", "-o", "signing.pem"])
        let manifests = ["Manifests/Levels.json", "Manifests/Voices.en.json"]
        // Everyone is on version 1.
        try w.write(seed: 1)
        _ = try await w.run(["publish"] + manifests + ["--repo", "site", "--key", "signing.pem"])
        // Two app installs: one in the first 10 %, one outside it.
        for (root, bucket) in [("early", 3), ("late", 70)] {
            _ = try await w.run(["install", "--root", root, "--repo", "site", "--public-key", "signing.pem.pub"])
            _ = try await w.run(["ensure", "--root", root, "Levels"])
            try await setBucket(bucket, root: "\(w.dir.path)/\(root)")
        }
        // 1. The new content goes to the beta channel; testers follow it.
        try w.write(seed: 2)
        let beta = try await w.run(["publish"] + manifests + ["--repo", "site", "--key", "signing.pem", "--channel", "beta"])
        #expect(beta.stdout.contains("channel beta, catalog version 1"))
        _ = try await w.run(["install", "--root", "tester", "--repo", "site", "--public-key", "signing.pem.pub", "--channel", "beta"])
        _ = try await w.run(["ensure", "--root", "tester", "Levels"])
        #expect(try w.installedLevels(root: "tester") == patternBytes(600_000, seed: 2))
        // 2. Promote exactly what was tested to 10 % of everyone.
        let promote = try await w.run(["promote", "--repo", "site", "--key", "signing.pem", "--from", "beta", "--rollout", "10%"])
        #expect(promote.stdout.contains("rollout: 10 % of clients"))
        for root in ["early", "late"] { _ = try await w.run(["update", "--root", root]) }
        #expect(try w.installedLevels(root: "early") == patternBytes(600_000, seed: 2))
        #expect(try w.installedLevels(root: "late") == patternBytes(600_000, seed: 1))
        // 3. All clear: everyone.
        _ = try await w.run(["rollout", "--repo", "site", "--key", "signing.pem", "--percent", "100"])
        for root in ["early", "late"] { _ = try await w.run(["update", "--root", root]) }
        #expect(try w.installedLevels(root: "late") == patternBytes(600_000, seed: 2))
        // 4. It breaks something: back to what catalog version 1 served.
        let rollback = try await w.run(["rollback", "--repo", "site", "--key", "signing.pem", "--to-version", "1"])
        #expect(rollback.stdout.contains("catalog version 3 → 4"), "\(rollback.stdout)")
        for root in ["early", "late"] {
            _ = try await w.run(["update", "--root", root])
            #expect(try w.installedLevels(root: root) == patternBytes(600_000, seed: 1), "\(root)")
        }
        // 5. The report, and the upload in the safe order: packs, channel catalogs, catalog.json.
        _ = try await w.run(["report", "--repo", "site", "-o", "report.html", "--public-key", "signing.pem.pub"])
        let moto = try MotoServer()
        let upload = try await w.run(["upload", "site", "s3://example/site", "--endpoint", moto.endpoint, "--create-bucket"], environment: credentials)
        let uploaded = upload.stdout.split(separator: "\n").filter { $0.hasPrefix("uploaded ") }.map { String($0.split(separator: " ")[1]) }
        let beta1 = try #require(uploaded.firstIndex(of: "site/channels/beta/catalog.json"))
        let main = try #require(uploaded.firstIndex(of: "site/catalog.json"))
        #expect(beta1 < main && main == uploaded.count - 1, "\(uploaded)")
        #expect(uploaded[..<beta1].allSatisfy { $0.hasPrefix("site/packs/") || $0.hasPrefix("site/history/") || $0.hasPrefix("site/channels/beta/history/") }, "\(uploaded)")
    }

    /// The bucket a root drew, replaced so that the example is deterministic.
    func setBucket(_ bucket: Int, root: String) async throws {
        let result = try await ChildProcess.run("/usr/bin/python3", ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("INSERT INTO settings(key, value) VALUES ('rolloutBucket', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (sys.argv[2],))
            db.commit()
            """, "\(root)/state.sqlite", String(bucket)])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func percentagesOutOfRangeAreUsageErrors() async throws {
        let w = try Workspace()
        try w.write(seed: 3)
        _ = try await w.run(["keygen", "-o", "signing.pem"])
        let publish = ["publish", "Manifests/Levels.json", "--repo", "site", "--key", "signing.pem"]
        for (arguments, message) in [(publish + ["--rollout", "101%"], "--rollout must be from 0% to 100%, got 101%"),
                                     (publish + ["--rollout", "ten"], "--rollout takes a whole percentage"),
                                     (["rollout", "--repo", "site", "--key", "signing.pem", "--percent", "150"], "--percent must be from 0% to 100%, got 150%"),
                                     (["rollback", "--repo", "site", "--key", "signing.pem", "--to-version", "0"], "--to-version must be from 1"),
                                     (publish + ["--channel", "Beta!"], "--channel: \"Beta!\" must start with a lowercase letter or a digit")] {
            let result = try await Assetpack.run(arguments, in: w.dir.path)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: w.dir.file("site")), "nothing was written")
        _ = try await w.run(publish)
        let noRollout = try await Assetpack.run(["rollout", "--repo", "site", "--key", "signing.pem", "--percent", "50"], in: w.dir.path)
        #expect(noRollout.status == 1 && noRollout.stderr.contains("has no rollout under way"), "\(noRollout.stderr)")
    }

    @Test func theReportIsSelfContainedAndRendersInHeadlessChromium() async throws {
        let w = try Workspace()
        _ = try await w.run(["keygen", "-o", "signing.pem"])
        try w.write(seed: 4)
        _ = try await w.run(["publish", "Manifests/Levels.json", "Manifests/Voices.en.json", "--repo", "site", "--key", "signing.pem"])
        try w.write(seed: 5)
        _ = try await w.run(["publish", "Manifests/Levels.json", "Manifests/Voices.en.json", "--repo", "site", "--key", "signing.pem", "--channel", "beta"])
        try w.write(seed: 6)
        let published = try await w.run(["publish", "Manifests/Levels.json", "Manifests/Voices.en.json", "--repo", "site", "--key", "signing.pem",
                                          "--rollout", "25%", "--report", "published.html"])
        #expect(published.stdout.contains("report: published.html"))
        let html = String(decoding: try #require(w.dir.contents("published.html")), as: UTF8.self)
        for name in ["Levels", "Voices.en", "Channel <code>default</code>", "Channel <code>beta</code>", "25 % of clients", "Apple's hosting limits",
                     "Sizes per language", "<td>en</td>", "Update sizes", "v1 → v3", "<svg"] {
            #expect(html.contains(name), "the report lacks \(name)")
        }
        // Self-contained: nothing is fetched (the only URL is SVG's XML namespace, a name).
        let withoutNamespace = html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
        for reference in ["http:", "https:", "src=", "href=", "url(", "@import", "<script", "<link"] {
            #expect(!withoutNamespace.contains(reference), "the report references \(reference)")
        }
        let json = try await w.run(["report", "--repo", "site", "-o", "report.json", "--json", "--public-key", "signing.pem.pub"])
        #expect(json.status == 0)
        let decoded = try JSONSerialization.jsonObject(with: Data(try #require(w.dir.contents("report.json")))) as? [String: Any]
        let channels = try #require(decoded?["channels"] as? [[String: Any]])
        #expect(channels.compactMap { $0["name"] as? String } == ["default", "beta"])
        #expect((channels[0]["rollout"] as? [String: Any])?["percent"] as? Int == 25)
        #expect((decoded?["apple"] as? [String: Any])?["warning"] as? Bool == false)

        let shot = try await HeadlessChromium.screenshot(of: w.dir.file("published.html"), in: w.dir)
        #expect(shot.width == 1000 && shot.height == 1200)
        #expect(shot.colours > 20, "the screenshot has \(shot.colours) colours")
        #expect(shot.inkedShare > 0.02, "only \(shot.inkedShare * 100) % of the screenshot is drawn on")
        // A report of a missing repository is an error, and writes nothing.
        let missing = try await Assetpack.run(["report", "--repo", "nowhere", "-o", "none.html"], in: w.dir.path)
        #expect(missing.status == 1 && missing.stderr.contains("holds no catalog"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.dir.file("none.html")))
    }
}

/// `verify-catalog --channel`: what operators run against the CDN after an upload.
@Suite struct VerifyChannelCatalogCLITests {
    @Test func verifyCatalogChecksTheChannelItIsAskedFor() async throws {
        let w = try ChannelCLITests.Workspace()
        _ = try await w.run(["keygen", "-o", "signing.pem"])
        try w.write(seed: 7)
        _ = try await w.run(["publish", "Manifests/Levels.json", "--repo", "site", "--key", "signing.pem"])
        _ = try await w.run(["publish", "Manifests/Levels.json", "--repo", "site", "--key", "signing.pem", "--channel", "beta"])
        let beta = try await w.run(["verify-catalog", "site", "--public-key", "signing.pem.pub", "--channel", "beta"])
        #expect(beta.stdout.contains("Channel:    beta (catalog format 2)"), "\(beta.stdout)")
        let main = try await w.run(["verify-catalog", "site", "--public-key", "signing.pem.pub"])
        #expect(main.stdout.contains("Channel:    default (catalog format 1)"), "\(main.stdout)")
        // beta's catalog where gamma's should be: refused, naming both channels.
        try w.dir.write("site/channels/gamma/catalog.json", try #require(w.dir.contents("site/channels/beta/catalog.json")))
        let swapped = try await Assetpack.run(["verify-catalog", "site", "--public-key", "signing.pem.pub", "--channel", "gamma"], in: w.dir.path)
        #expect(swapped.status == 1 && swapped.stderr.contains("signed for channel 'beta' and was served where channel 'gamma' was expected"), "\(swapped.stderr)")
        let missing = try await Assetpack.run(["verify-catalog", "site", "--public-key", "signing.pem.pub", "--channel", "rc"], in: w.dir.path)
        #expect(missing.status == 1 && missing.stderr.contains("channels/rc/catalog.json: cannot read"), "\(missing.stderr)")
    }
}
