import Foundation
import TestSupport
import Testing

@Suite struct CLITests {
    @Test func helpAndUsageErrors() async throws {
        let top = try await Assetpack.run(["--help"])
        #expect(top.status == 0)
        for command in ["template", "validate", "package", "inspect", "verify", "extract"] {
            #expect(top.stdout.contains(command))
            let help = try await Assetpack.run([command, "--help"])
            #expect(help.status == 0 && help.stdout.contains("USAGE: assetpack \(command)"), "\(command)")
        }
        #expect(try await Assetpack.run([]).status == 2)
        #expect(try await Assetpack.run(["frobnicate"]).status == 2)
        let unknown = try await Assetpack.run(["inspect", "--bogus", "x.pack"])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown option --bogus"))
        let missing = try await Assetpack.run(["package", "M.json"])
        #expect(missing.status == 2 && missing.stderr.contains("missing required option --output"))
        #expect(try await Assetpack.run(["extract"]).status == 2)
    }

    @Test func templateValidatePackageInspectVerifyExtract() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        #expect(try await Assetpack.run(["template", "-o", "Manifest.json"], in: s.path).status == 0)
        let again = try await Assetpack.run(["template", "-o", "Manifest.json"], in: s.path)
        #expect(again.status == 1 && again.stderr.contains("already exists"))
        // The template's selectors name files that do not exist yet.
        let invalid = try await Assetpack.run(["validate", "Manifest.json"], in: s.path)
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("Manifest.json: error: fileSelectors[0].file: no such file \"Videos/Introduction.m4v\""))
        try s.write("Videos/Introduction.m4v", String(repeating: "frame ", count: 50_000))
        try s.write("Textures/Tutorial/a.png", "png-a")
        try s.write("Textures/Tutorial/run.sh", "#!/bin/sh\n", mode: 0o755)
        let valid = try await Assetpack.run(["validate", "Manifest.json"], in: s.path)
        #expect(valid.status == 0 && valid.stdout.contains("valid — Tutorial, 3 files"))

        let packed = try await Assetpack.run(["package", "Manifest.json", "-o", "Tutorial.pack"], in: s.path)
        #expect(packed.status == 0, "\(packed.stderr)")
        let inspect = try await Assetpack.run(["inspect", "Tutorial.pack", "--json"], in: s.path)
        #expect(inspect.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as! [String: Any]
        #expect(json["assetPackID"] as? String == "Tutorial")
        #expect(json["platforms"] as? [String] == ["iOS", "macOS"])
        #expect(json["installSize"] as? Int == 300_000 + 5 + 10)
        let files = json["files"] as! [[String: Any]]
        #expect(files.map { $0["path"] as! String } == ["Textures/Tutorial/a.png", "Textures/Tutorial/run.sh", "Videos/Introduction.m4v"])
        #expect(files[1]["mode"] as? String == "755")
        let text = try await Assetpack.run(["inspect", "Tutorial.pack"], in: s.path)
        #expect(text.stdout.contains("Policy:         essential (firstInstallation, subsequentUpdate)"))

        #expect(try await Assetpack.run(["verify", "Tutorial.pack"], in: s.path).status == 0)
        #expect(try await Assetpack.run(["extract", "Tutorial.pack", "-o", "out"], in: s.path).status == 0)
        #expect(s.text("out/Videos/Introduction.m4v") == s.text("Videos/Introduction.m4v"))
        let busy = try await Assetpack.run(["extract", "Tutorial.pack", "-o", "out"], in: s.path)
        #expect(busy.status == 1 && busy.stderr.contains("not an empty directory"))
    }

    @Test func validateReportsEveryErrorAsJSON() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try s.write("bad.json", "{\n  \"assetPackID\": \"x\",\n  \"downloadPolicy\": {\"onDemand\": {}},\n  \"fileSelectors\": [{\"file\": \"../x\"}],\n  \"platforms\": [\"iPadOS\"]\n}\n")
        try s.write("broken.json", "{ \"assetPackID\": ")
        let r = try await Assetpack.run(["validate", "--json", "bad.json", "broken.json"], in: s.path)
        #expect(r.status == 1)
        let reports = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [[String: Any]]
        #expect(reports.count == 2)
        let d0 = reports[0]["diagnostics"] as! [[String: Any]]
        #expect(Set(d0.map { $0["keyPath"] as! String }) == ["fileSelectors[0].file", "platforms[0]"])
        #expect(d0.first { $0["keyPath"] as! String == "platforms[0]" }?["line"] as? Int == 5)
        let d1 = reports[1]["diagnostics"] as! [[String: Any]]
        #expect((d1[0]["message"] as! String).contains("invalid JSON"))
    }

    @Test func packageFailsCleanlyOnBadInput() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try s.write("M.json", "{\"assetPackID\": \"p\", \"downloadPolicy\": {\"onDemand\": {}}, \"fileSelectors\": [{\"directory\": \"missing\"}], \"platforms\": [\"iOS\"]}")
        let r = try await Assetpack.run(["package", "M.json", "-o", "p.pack"], in: s.path)
        #expect(r.status == 1)
        #expect(r.stderr.contains("M.json: error: fileSelectors[0].directory: no such directory \"missing\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path) == ["M.json"])
    }

    @Test func verifyNamesTheCorruptChunkAndItsFiles() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try s.write("d/words.txt", String(repeating: "lorem ipsum dolor ", count: 20_000))
        try s.write("M.json", "{\"assetPackID\": \"p\", \"downloadPolicy\": {\"onDemand\": {}}, \"fileSelectors\": [{\"directory\": \"d\"}], \"platforms\": [\"iOS\"]}")
        #expect(try await Assetpack.run(["package", "M.json", "-o", "p.pack"], in: s.path).status == 0)
        var bytes = [UInt8](FileManager.default.contents(atPath: s.path + "/p.pack")!)
        bytes[40] ^= 0xFF   // inside the first chunk's frame
        _ = FileManager.default.createFile(atPath: s.path + "/p.pack", contents: Data(bytes))
        let r = try await Assetpack.run(["verify", "p.pack"], in: s.path)
        #expect(r.status == 1)
        #expect(r.stderr.contains("chunk 0") && r.stderr.contains("d/words.txt"), "\(r.stderr)")
        let x = try await Assetpack.run(["extract", "p.pack", "-o", "out"], in: s.path)
        #expect(x.status == 1 && !s.exists("out"))
        let notAPack = try await Assetpack.run(["inspect", "M.json"], in: s.path)
        #expect(notAPack.status == 1 && notAPack.stderr.contains("not an asset pack"))
    }
}
