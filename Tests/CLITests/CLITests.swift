import Foundation
import Testing

@Suite struct CLITests {
    @Test func helpAndUsageErrors() throws {
        let top = try CLI.run(["--help"])
        #expect(top.status == 0)
        for command in ["template", "validate", "package", "inspect", "verify", "extract"] {
            #expect(top.stdout.contains(command))
            let help = try CLI.run([command, "--help"])
            #expect(help.status == 0 && help.stdout.contains("USAGE: assetpack \(command)"), "\(command)")
        }
        #expect(try CLI.run([]).status == 2)
        #expect(try CLI.run(["frobnicate"]).status == 2)
        let unknown = try CLI.run(["inspect", "--bogus", "x.pack"])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown option --bogus"))
        let missing = try CLI.run(["package", "M.json"])
        #expect(missing.status == 2 && missing.stderr.contains("missing required option --output"))
        #expect(try CLI.run(["extract"]).status == 2)
    }

    @Test func templateValidatePackageInspectVerifyExtract() throws {
        let s = Scratch(); defer { s.remove() }
        #expect(try CLI.run(["template", "-o", "Manifest.json"], in: s.path).status == 0)
        let again = try CLI.run(["template", "-o", "Manifest.json"], in: s.path)
        #expect(again.status == 1 && again.stderr.contains("already exists"))
        // The template's selectors name files that do not exist yet.
        let invalid = try CLI.run(["validate", "Manifest.json"], in: s.path)
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("Manifest.json: error: fileSelectors[0].file: no such file \"Videos/Introduction.m4v\""))
        s.write("Videos/Introduction.m4v", String(repeating: "frame ", count: 50_000))
        s.write("Textures/Tutorial/a.png", "png-a")
        s.write("Textures/Tutorial/run.sh", "#!/bin/sh\n", mode: 0o755)
        let valid = try CLI.run(["validate", "Manifest.json"], in: s.path)
        #expect(valid.status == 0 && valid.stdout.contains("valid — Tutorial, 3 files"))

        let packed = try CLI.run(["package", "Manifest.json", "-o", "Tutorial.pack"], in: s.path)
        #expect(packed.status == 0, "\(packed.stderr)")
        let inspect = try CLI.run(["inspect", "Tutorial.pack", "--json"], in: s.path)
        #expect(inspect.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as! [String: Any]
        #expect(json["assetPackID"] as? String == "Tutorial")
        #expect(json["platforms"] as? [String] == ["iOS", "macOS"])
        #expect(json["installSize"] as? Int == 300_000 + 5 + 10)
        let files = json["files"] as! [[String: Any]]
        #expect(files.map { $0["path"] as! String } == ["Textures/Tutorial/a.png", "Textures/Tutorial/run.sh", "Videos/Introduction.m4v"])
        #expect(files[1]["mode"] as? String == "755")
        let text = try CLI.run(["inspect", "Tutorial.pack"], in: s.path)
        #expect(text.stdout.contains("Policy:         essential (firstInstallation, subsequentUpdate)"))

        #expect(try CLI.run(["verify", "Tutorial.pack"], in: s.path).status == 0)
        #expect(try CLI.run(["extract", "Tutorial.pack", "-o", "out"], in: s.path).status == 0)
        #expect(s.read("out/Videos/Introduction.m4v") == s.read("Videos/Introduction.m4v"))
        let busy = try CLI.run(["extract", "Tutorial.pack", "-o", "out"], in: s.path)
        #expect(busy.status == 1 && busy.stderr.contains("not an empty directory"))
    }

    @Test func validateReportsEveryErrorAsJSON() throws {
        let s = Scratch(); defer { s.remove() }
        s.write("bad.json", "{\n  \"assetPackID\": \"x\",\n  \"downloadPolicy\": {\"onDemand\": {}},\n  \"fileSelectors\": [{\"file\": \"../x\"}],\n  \"platforms\": [\"iPadOS\"]\n}\n")
        s.write("broken.json", "{ \"assetPackID\": ")
        let r = try CLI.run(["validate", "--json", "bad.json", "broken.json"], in: s.path)
        #expect(r.status == 1)
        let reports = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [[String: Any]]
        #expect(reports.count == 2)
        let d0 = reports[0]["diagnostics"] as! [[String: Any]]
        #expect(Set(d0.map { $0["keyPath"] as! String }) == ["fileSelectors[0].file", "platforms[0]"])
        #expect(d0.first { $0["keyPath"] as! String == "platforms[0]" }?["line"] as? Int == 5)
        let d1 = reports[1]["diagnostics"] as! [[String: Any]]
        #expect((d1[0]["message"] as! String).contains("invalid JSON"))
    }

    @Test func packageFailsCleanlyOnBadInput() throws {
        let s = Scratch(); defer { s.remove() }
        s.write("M.json", "{\"assetPackID\": \"p\", \"downloadPolicy\": {\"onDemand\": {}}, \"fileSelectors\": [{\"directory\": \"missing\"}], \"platforms\": [\"iOS\"]}")
        let r = try CLI.run(["package", "M.json", "-o", "p.pack"], in: s.path)
        #expect(r.status == 1)
        #expect(r.stderr.contains("M.json: error: fileSelectors[0].directory: no such directory \"missing\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path) == ["M.json"])
    }

    @Test func verifyNamesTheCorruptChunkAndItsFiles() throws {
        let s = Scratch(); defer { s.remove() }
        s.write("d/words.txt", String(repeating: "lorem ipsum dolor ", count: 20_000))
        s.write("M.json", "{\"assetPackID\": \"p\", \"downloadPolicy\": {\"onDemand\": {}}, \"fileSelectors\": [{\"directory\": \"d\"}], \"platforms\": [\"iOS\"]}")
        #expect(try CLI.run(["package", "M.json", "-o", "p.pack"], in: s.path).status == 0)
        var bytes = [UInt8](FileManager.default.contents(atPath: s.path + "/p.pack")!)
        bytes[40] ^= 0xFF   // inside the first chunk's frame
        _ = FileManager.default.createFile(atPath: s.path + "/p.pack", contents: Data(bytes))
        let r = try CLI.run(["verify", "p.pack"], in: s.path)
        #expect(r.status == 1)
        #expect(r.stderr.contains("chunk 0") && r.stderr.contains("d/words.txt"), "\(r.stderr)")
        let x = try CLI.run(["extract", "p.pack", "-o", "out"], in: s.path)
        #expect(x.status == 1 && !s.exists("out"))
        let notAPack = try CLI.run(["inspect", "M.json"], in: s.path)
        #expect(notAPack.status == 1 && notAPack.stderr.contains("not an asset pack"))
    }
}
