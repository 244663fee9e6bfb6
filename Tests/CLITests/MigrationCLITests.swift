import Foundation
import TestSupport
import Testing

/// `assetpack audit` and `assetpack convert` run as a user runs them, on the migration fixtures.
@Suite struct MigrationCLITests {
    // MARK: audit

    @Test func auditPrintsTargetsTagsAndFindings() async throws {
        let r = try await Assetpack.run(["audit", MigrationFixtures.odr])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Targets and migration paths"))
        #expect(r.stdout.contains("Tags\n"))
        for line in ["GameTV               tvOS 26.0        managed", "GameWatch            watchOS 10.0     no-replacement",
                     "GameApp              iOS 15.0         stay-on-odr", "VisionApp            visionOS 2.4     unmanaged"] {
            #expect(r.stdout.contains(line), "\(line)")
        }
        #expect(r.stdout.contains("GameApp/GameApp/Sources/ResourceLoader.swift:40:21: endAccessingResources  (in a comment, not live)"))
        // The malformed project is reported where it breaks; the rest of the tree is still audited.
        #expect(r.stdout.contains("Broken/Broken.xcodeproj/project.pbxproj:9:48: error: [parse-error]"))
    }

    @Test func auditJSONHasTheStableShapeAndTheFixturesFacts() async throws {
        let r = try await Assetpack.run(["audit", MigrationFixtures.odr, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(MigrationFixtures.object(r.stdout))
        let stable: [String: [String]] = [
            "apiUses": ["file", "line", "column", "symbol", "live"],
            "tags": ["name", "definedAt", "requestedAt", "bytes"],
            "buildSettings": ["name", "value", "target", "configuration", "file", "line"],
            "targets": ["name", "platform", "deploymentTarget", "file", "line", "migrationPath"],
            "backgroundAssetsKeys": ["key", "value", "file", "line"],
            "findings": ["kind", "message"],
        ]
        for (key, fields) in stable {
            let entries = try #require(json[key] as? [[String: Any]], "\(key)")
            #expect(!entries.isEmpty, "\(key)")
            for entry in entries {
                #expect(fields.allSatisfy { entry[$0] != nil }, "\(key): \(entry)")
                if let file = entry["file"] as? String {
                    // Relative to DIR, and it is there.
                    #expect(!file.hasPrefix("/") && FileManager.default.fileExists(atPath: MigrationFixtures.odr + "/" + file), "\(file)")
                }
            }
        }
        let uses = try #require(json["apiUses"] as? [[String: Any]])
        let commented = uses.filter { $0["file"] as? String == "GameApp/GameApp/Sources/ResourceLoader.swift" && $0["line"] as? Int == 40 }
        #expect(commented.count == 1)
        #expect(commented.first?["symbol"] as? String == "endAccessingResources")
        #expect(commented.first?["column"] as? Int == 21)
        #expect(commented.first?["live"] as? Bool == false)
        #expect(uses.contains { $0["line"] as? Int == 39 && $0["symbol"] as? String == "endAccessingResources" && $0["live"] as? Bool == true })

        let findings = try #require(json["findings"] as? [[String: Any]])
        let mismatch = try #require(findings.first { $0["kind"] as? String == "tag-case-mismatch" })
        #expect(mismatch["file"] as? String == "GameApp/GameApp/Sources/ResourceLoader.swift")
        #expect(mismatch["line"] as? Int == 24)
        #expect((mismatch["message"] as? String)?.contains("\"Background\"") == true)
        let broken = try #require(findings.first { $0["kind"] as? String == "parse-error" })
        #expect(broken["file"] as? String == "Broken/Broken.xcodeproj/project.pbxproj")
        #expect(broken["line"] as? Int == 9 && broken["column"] as? Int == 48)

        let targets = try #require(json["targets"] as? [[String: Any]])
        let tv = try #require(targets.first { $0["name"] as? String == "GameTV" })
        #expect(tv["migrationPath"] as? String == "managed" && tv["platform"] as? String == "tvOS")
        #expect(tv["deploymentTarget"] as? String == "26.0")
        #expect(tv["file"] as? String == "GameApp/Config/TV.xcconfig" && tv["line"] as? Int == 4)
        #expect(targets.first { $0["name"] as? String == "GameWatch" }?["migrationPath"] as? String == "no-replacement")

        let settings = try #require(json["buildSettings"] as? [[String: Any]])
        #expect(settings.contains { $0["name"] as? String == "ASSET_PACK_MANIFEST_URL_PREFIX" && $0["target"] as? String == "GameTV"
            && $0["value"] as? String == "https://odr.example.com/packs/" && $0["line"] as? Int == 7 })

        let tags = try #require(json["tags"] as? [[String: Any]])
        let level1 = try #require(tags.first { $0["name"] as? String == "Level1" })
        let catalogItem = MigrationFixtures.gameApp + "/GameApp/Assets.xcassets/Level1.imageset"
        #expect(level1["bytes"] as? Int == MigrationFixtures.diskBytes(catalogItem))
        #expect((level1["requestedAt"] as? [[String: Any]])?.contains { $0["line"] as? Int == 9 } == true)
    }

    @Test func auditHTMLIsOneSelfContainedPageWithAChart() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        let r = try await Assetpack.run(["audit", MigrationFixtures.odr, "--html", "report.html"], in: s.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Targets and migration paths"))   // the text report still goes to stdout
        #expect(s.exists("report.html"))
        let page = s.text("report.html") ?? ""
        #expect(page.contains("<svg") && page.contains("</svg>"))
        #expect(page.contains("<table") && page.contains("GameTV") && page.contains("no-replacement"))
        #expect(MigrationFixtures.externalReferences(in: page) == [])
        // The check itself tells a fetched resource from a namespace name and from a URL quoted in text.
        #expect(MigrationFixtures.externalReferences(in: "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg><td>https://odr.example.com/</td>") == [])
        #expect(MigrationFixtures.externalReferences(in: "<p><img alt=x src=\"https://cdn.example.com/a.png\"></p>").count == 3)
        #expect(MigrationFixtures.externalReferences(in: "<svg><a xlink:ref=\"https://example.com\">x</a></svg>").count == 1)
        // Nothing else is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path) == ["report.html"])
    }

    @Test func auditGoesOnPastAMalformedProjectAndExitsByItsPolicy() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try s.write("Bad.xcodeproj/project.pbxproj", "// !$*UTF8*$!\n{\n\tarchiveVersion = 1;\n\tobjects = {\n\t\tA1 = { isa = PBXGroup; name = \"x\" \"y\"; };\n\t};\n}\n")
        try s.write("Src/Load.swift", "import Foundation\nlet r = NSBundleResourceRequest(tags: [\"Intro\"])\n")
        let r = try await Assetpack.run(["audit", ".", "--json"], in: s.path)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(MigrationFixtures.object(r.stdout))
        let findings = try #require(json["findings"] as? [[String: Any]])
        let parse = try #require(findings.first { $0["kind"] as? String == "parse-error" })
        // Line 5: two tabs, then `A1 = { isa = PBXGroup; name = "x" "y"` — the second string starts at byte 37.
        #expect(parse["file"] as? String == "Bad.xcodeproj/project.pbxproj")
        #expect(parse["line"] as? Int == 5 && parse["column"] as? Int == 37)
        #expect(findings.contains { $0["kind"] as? String == "undefined-tag" && $0["line"] as? Int == 2 })
        #expect((json["apiUses"] as? [[String: Any]])?.count == 1)

        let notADirectory = try await Assetpack.run(["audit", "Src/Load.swift"], in: s.path)
        #expect(notADirectory.status == 1 && notADirectory.stderr.contains("is not a directory"))
        let unwritable = try await Assetpack.run(["audit", ".", "--html", "missing/folder/r.html"], in: s.path)
        #expect(unwritable.status == 1 && unwritable.stdout.isEmpty && unwritable.stderr.contains("missing/folder/r.html"))
        #expect(try await Assetpack.run(["audit"], in: s.path).status == 2)
    }

    // MARK: convert odr

    @Test func convertODRWritesPortableManifestsThatValidate() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try MigrationFixtures.copy(MigrationFixtures.gameApp, into: s, as: "GameApp")
        let r = try await Assetpack.run(["convert", "odr", "GameApp", "-o", "manifests"], in: s.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("sourceRoot \"GameApp\" is relative to"))
        let names = try FileManager.default.contentsOfDirectory(atPath: s.path + "/manifests").sorted()
        let expected = ["Bonus_Level2.json", "Level1.json", "Level3.json", "Tutorial.json", "background.json"]
        #expect(names == (expected + ["conversion-summary.json"]).sorted())

        let summary = try #require(MigrationFixtures.object(s.text("manifests/conversion-summary.json")))
        #expect(summary["manifests"] as? [String] == expected)
        #expect(summary["sourceRoot"] as? String == "GameApp")
        let unmapped = try #require(summary["unmapped"] as? [String])
        #expect(unmapped.contains { $0.hasPrefix("tag-case-mismatch:") && $0.contains("ResourceLoader.swift:24") })
        #expect(unmapped.contains { $0.hasPrefix("self-hosted-odr:") })

        let level1 = try #require(MigrationFixtures.object(s.text("manifests/Level1.json")))
        #expect(level1["sourceRoot"] as? String == "GameApp")
        #expect(level1["fileSelectors"] as? [[String: String]] == [["directory": "GameApp/Assets.xcassets/Level1.imageset"]])
        #expect((level1["downloadPolicy"] as? [String: Any])?["essential"] != nil)

        let paths = expected.map { "manifests/" + $0 }
        let valid = try await Assetpack.run(["validate"] + paths, in: s.path)
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout.contains("manifests/Level1.json: valid — Level1, 2 files"))
        // Relative means relative: from another folder the content is not found ...
        let elsewhere = try await Assetpack.run(["validate", "Level1.json"], in: s.path + "/manifests")
        #expect(elsewhere.status == 1 && elsewhere.stderr.contains("source root"))
        // ... and the converted tree can move: the same manifests still package after a rename.
        let moved = s.path + "-moved"
        try FileManager.default.moveItem(atPath: s.path, toPath: moved)
        defer { try? FileManager.default.removeItem(atPath: moved) }
        let packed = try await Assetpack.run(["package", "manifests/Level1.json", "-o", "Level1.pack"], in: moved)
        #expect(packed.status == 0, "\(packed.stderr)")
    }

    @Test func convertODRBaseOptionAndRefusedOutput() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try MigrationFixtures.copy(MigrationFixtures.gameApp, into: s, as: "work/GameApp")
        try s.write("tools/.keep", "")
        // Run from tools/, for a `package` that will run from work/.
        let r = try await Assetpack.run(["convert", "odr", "../work/GameApp", "-o", "../work/manifests", "--base", "../work"], in: s.path + "/tools")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(MigrationFixtures.object(s.text("work/manifests/Tutorial.json"))?["sourceRoot"] as? String == "GameApp")
        #expect(try await Assetpack.run(["validate", "manifests/Tutorial.json"], in: s.path + "/work").status == 0)

        // A non-empty OUTDIR is refused: exit 1, nothing in it changes, nothing left beside it.
        let before = MigrationFixtures.snapshot(s.path + "/work")
        let again = try await Assetpack.run(["convert", "odr", "GameApp", "-o", "manifests"], in: s.path + "/work")
        #expect(again.status == 1 && again.stderr.contains("not an empty folder"))
        #expect(MigrationFixtures.snapshot(s.path + "/work") == before)

        let badBase = try await Assetpack.run(["convert", "odr", "GameApp", "-o", "out", "--base", "nowhere"], in: s.path + "/work")
        #expect(badBase.status == 1 && badBase.stderr.contains("--base nowhere is not a directory"))
        #expect(try await Assetpack.run(["convert", "odr", "GameApp"], in: s.path + "/work").status == 2)          // no -o
        #expect(try await Assetpack.run(["convert", "odr", "GameApp", "-o", "x", "--essential"], in: s.path + "/work").status == 2)
        #expect(!s.exists("work/out") && !s.exists("work/x"))
        let help = try await Assetpack.run(["convert", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--base DIR"))
    }

    // MARK: convert vdf

    @Test func convertVDFSingleDepotToStandardOutputAndToAFile() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try MigrationFixtures.copy(MigrationFixtures.steam, into: s, as: "Steam")
        let args = ["convert", "vdf", "Steam/scripts/depot_build_1001.vdf", "--asset-pack-id", "BaseGame", "--essential", "-l", "en"]
        let out = try await Assetpack.run(args, in: s.path)
        #expect(out.status == 0, "\(out.stderr)")
        let manifest = try #require(MigrationFixtures.object(out.stdout))
        #expect(manifest["assetPackID"] as? String == "BaseGame" && manifest["language"] as? String == "en")
        #expect(manifest["sourceRoot"] as? String == "Steam/content")
        #expect(manifest["fileSelectors"] as? [[String: String]] == [["file": "base.pak"], ["file": "maps/level1.pak"],
                                                                      ["file": "movies/intro.bik"], ["file": "readme.txt"]])
        #expect(manifest["platforms"] as? [String] == ["iOS", "macOS", "tvOS", "visionOS"])

        let toFile = try await Assetpack.run(args + ["-o", "BaseGame.json"], in: s.path)
        #expect(toFile.status == 0 && toFile.stdout.isEmpty && toFile.stderr.contains("wrote BaseGame.json"))
        #expect(s.text("BaseGame.json") == out.stdout)
        let valid = try await Assetpack.run(["validate", "BaseGame.json"], in: s.path)
        #expect(valid.status == 0 && valid.stdout.contains("valid — BaseGame, 4 files"), "\(valid.stderr)")
    }

    @Test func convertVDFAppBuildGivesOneManifestPerDepot() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try MigrationFixtures.copy(MigrationFixtures.steam, into: s, as: "Steam")
        let r = try await Assetpack.run(["convert", "vdf", "Steam/scripts/app_build_1000.vdf", "--asset-pack-id", "Game", "--on-demand",
                                        "--platform", "macOS", "-o", "depots"], in: s.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path + "/depots").sorted() == ["Game-1001.json", "Game-1002.json"])
        let dlc = try #require(MigrationFixtures.object(s.text("depots/Game-1002.json")))
        // The inline depot inherits the app's ContentRoot; its *.pdb exclusion drops trees.PDB.
        #expect(dlc["fileSelectors"] as? [[String: String]] == [["file": "dlc/forest/trees.pak"]])
        #expect(dlc["platforms"] as? [String] == ["macOS"] && dlc["sourceRoot"] as? String == "Steam/content")
        let valid = try await Assetpack.run(["validate", "depots/Game-1001.json", "depots/Game-1002.json"], in: s.path)
        #expect(valid.status == 0, "\(valid.stderr)")
        // An app build needs a folder to write its set into.
        let noOutput = try await Assetpack.run(["convert", "vdf", "Steam/scripts/app_build_1000.vdf", "--asset-pack-id", "Game", "--on-demand"], in: s.path)
        #expect(noOutput.status == 2 && noOutput.stderr.contains("--output"))
    }

    @Test func convertVDFRejectsMalformedScriptsAndBadArguments() async throws {
        let s = try TemporaryDirectory("cli"); defer { s.remove() }
        try MigrationFixtures.copy(MigrationFixtures.steam, into: s, as: "Steam")
        let malformed = try await Assetpack.run(["convert", "vdf", "Steam/scripts/depot_malformed.vdf", "--asset-pack-id", "X", "--on-demand",
                                                "-o", "X.json"], in: s.path)
        #expect(malformed.status == 1)
        #expect(malformed.stderr.contains("Steam/scripts/depot_malformed.vdf:9:1: error:"), "\(malformed.stderr)")
        #expect(!s.exists("X.json"))

        let depot = "Steam/scripts/depot_build_1001.vdf"
        for (args, message) in [
            (["convert", "vdf", depot, "--on-demand"], "--asset-pack-id"),
            (["convert", "vdf", depot, "--asset-pack-id", "X"], "exactly one of"),
            (["convert", "vdf", depot, "--asset-pack-id", "X", "--essential", "--prefetch"], "exactly one of"),
            (["convert", "vdf", depot, "--asset-pack-id", "X", "--on-demand", "--platform", "watchOS"], "--platform watchOS"),
            (["convert", "vdf", depot, "--asset-pack-id", "bad id/", "--on-demand"], "--asset-pack-id"),
            (["convert", "dmg", depot], "'odr' or 'vdf'"),
        ] {
            let r = try await Assetpack.run(args, in: s.path)
            #expect(r.status == 2 && r.stderr.contains(message), "\(args): \(r.status) \(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path) == ["Steam"])
    }
}
