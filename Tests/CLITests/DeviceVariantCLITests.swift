import AssetPackFormat
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Device variants through the binary, as docs/CLIENT.md's example runs them: a group published
/// from three manifests, a client that says which texture formats it decodes (remembered by the
/// root), `status` naming the variant and why, and a changed capability switching the variant
/// at the next `update`; bad option values and bad groups are refused saying why.
@Suite struct DeviceVariantCLITests {
    struct Workspace {
        let dir: TemporaryDirectory
        init() throws {
            dir = try TemporaryDirectory("cli-variants")
            try dir.write("shared.json", patternBytes(300_000, seed: 1))
            for (name, seed) in [("default", UInt64(2)), ("astc", 3), ("bc7", 4)] {
                try dir.write("\(name)/tex.bin", patternBytes(400_000, seed: seed))
                let variant = name == "default" ? "" : #", "variant": {"textureFormat": "\#(name)"}"#
                try dir.write("Textures.\(name).json", Array(#"{"assetPackID": "Textures", "downloadPolicy": {"onDemand": {}}, "platforms": ["iOS"], "fileSelectors": [{"file": "shared.json"}, {"directory": "\#(name)"}]\#(variant)}"#.utf8))
            }
        }
        func run(_ arguments: [String], status: Int32 = 0) async throws -> ProcessResult {
            let result = try await Assetpack.run(arguments, in: dir.path)
            #expect(result.status == status, "assetpack \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }
        func installed(_ root: String) throws -> String? {
            let packs = "\(dir.path)/\(root)/packs/Textures"
            guard let folder = try FileManager.default.contentsOfDirectory(atPath: packs).first else { return nil }
            return try FileManager.default.contentsOfDirectory(atPath: "\(packs)/\(folder)").filter { $0 != "shared.json" }.first
        }
        func status(_ root: String) async throws -> [String: Any] {
            let out = try await run(["status", "Textures", "--root", root, "--json"])
            let rows = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [[String: Any]]
            return rows?.first ?? [:]
        }
    }

    @Test func aClientTakesItsVariantAndSwitchesAtTheNextUpdate() async throws {
        let w = try Workspace()
        _ = try await w.run(["keygen", "-o", "signing.pem"])
        let manifests = ["Textures.default.json", "Textures.astc.json", "Textures.bc7.json"]
        let published = try await w.run(["publish"] + manifests + ["--repo", "site", "--key", "signing.pem"])
        #expect(published.stdout.contains("packaged 3 pack(s)"))
        #expect(published.stdout.contains("added     Textures v1 (default and 2 device variant(s): astc, bc7)"), "\(published.stdout)")
        _ = try await w.run(["ensure", "Textures", "--root", "game", "--repo", "site", "--public-key", "signing.pem.pub", "--texture-formats", "etc2,bc7,astc", "--memory", "4GiB"])
        #expect(try w.installed("game") == "bc7")
        var row = try await w.status("game")
        #expect(row["variant"] as? String == "bc7" && row["installedVariant"] as? String == "bc7")
        #expect((row["variantReason"] as? String)?.contains("textures etc2, bc7, astc; memory 4GiB") == true, "\(row)")
        let text = try await w.run(["status", "Textures", "--root", "game"])
        #expect(text.stdout.contains("variant bc7 (installed) — bc7: its conditions hold (texture bc7)"), "\(text.stdout)")
        // The root remembers the formats: an update without them changes nothing.
        let same = try await w.run(["update", "--root", "game"])
        #expect(same.stdout.contains("updated: none"), "\(same.stdout)")
        // The device now prefers ASTC: the next update switches, fetching the new texture and
        // not shared.json (about 400 kB of incompressible bytes, not the variant's 700 kB).
        let switched = try await w.run(["update", "--root", "game", "--texture-formats", "astc", "--json"])
        #expect(try w.installed("game") == "astc")
        let done = try #require(switched.stdout.split(separator: "\n").last.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        let fetched = try #require(done["fetchedBytes"] as? Int)
        #expect(fetched > 400_000 && fetched < 500_000, "\(done)")
        row = try await w.status("game")
        #expect(row["variant"] as? String == "astc" && row["installedVariant"] as? String == "astc")
        // Formats no variant has: the default.
        _ = try await w.run(["update", "--root", "game", "--texture-formats", "none"])
        #expect(try w.installed("game") == "default")
    }

    @Test func badValuesAndBadGroupsAreRefused() async throws {
        let w = try Workspace()
        _ = try await w.run(["keygen", "-o", "signing.pem"])
        _ = try await w.run(["publish", "Textures.default.json", "--repo", "site", "--key", "signing.pem"])
        let format = try await w.run(["ensure", "Textures", "--root", "game", "--repo", "site", "--public-key", "signing.pem.pub", "--texture-formats", "astc,astx"], status: 2)
        #expect(format.stderr.contains("unknown texture format \"astx\"; valid texture formats: astc, bc7, bc6h, etc2, pvrtc, dxt, s3tc"), "\(format.stderr)")
        let memory = try await w.run(["ensure", "Textures", "--root", "game", "--memory", "0"], status: 2)
        #expect(memory.stderr.contains("--memory takes a size above 0"), "\(memory.stderr)")
        // Two variants and no default: validate and publish name both files.
        let validate = try await w.run(["validate", "Textures.astc.json", "Textures.bc7.json"], status: 1)
        #expect(validate.stderr.contains("[variant-default]") && validate.stderr.contains("Textures.astc.json, Textures.bc7.json"), "\(validate.stderr)")
        let publish = try await w.run(["publish", "Textures.astc.json", "Textures.bc7.json", "--repo", "site", "--key", "signing.pem"], status: 1)
        #expect(publish.stderr.contains("[variant-default]"), "\(publish.stderr)")
        // Apple's tools take the default: aar create refuses a variant, writing nothing.
        let aar = try await w.run(["aar", "create", "Textures.astc.json", "-o", "astc.aar"], status: 1)
        #expect(aar.stderr.contains("is a device variant of \"Textures\" (texture astc)"), "\(aar.stderr)")
        #expect(!FileManager.default.fileExists(atPath: w.dir.file("astc.aar")))
        _ = try await w.run(["aar", "create", "Textures.default.json", "-o", "default.aar"])
    }

    @Test func aVariantsPackFileIsVerifiedAndExtractedWithItsBase() async throws {
        let w = try Workspace()
        _ = try await w.run(["keygen", "-o", "signing.pem"])
        _ = try await w.run(["publish", "Textures.default.json", "Textures.astc.json", "--repo", "site", "--key", "signing.pem"])
        // The two pack files: the default's (version 2) and the variant's with a base (version 4).
        var byVersion: [Int: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: w.dir.file("site/packs/Textures")) {
            let out = try await w.run(["inspect", "site/packs/Textures/\(name)", "--json"])
            let info = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            byVersion[try #require(info["formatVersion"] as? Int)] = "packs/Textures/\(name)"
        }
        let defaultPath = try #require(byVersion[2]), variantPath = try #require(byVersion[4])
        // shared.json lies in the default's file only: the variant's file needs it to be read.
        let alone = try await w.run(["verify", "site/\(variantPath)"], status: 1)
        #expect(alone.stderr.contains("give that file, its device variant group's default pack file, with --base FILE"), "\(alone.stderr)")
        let wrong = try await w.run(["verify", "site/\(variantPath)", "--base", "site/\(variantPath)"], status: 1)
        #expect(wrong.stderr.contains("the base is not that file"), "\(wrong.stderr)")
        let verified = try await w.run(["verify", "site/\(variantPath)", "--base", "site/\(defaultPath)"])
        #expect(verified.stdout.contains(": OK"), "\(verified.stdout)")
        _ = try await w.run(["extract", "site/\(variantPath)", "--base", "site/\(defaultPath)", "-o", "out"])
        #expect(FileManager.default.contents(atPath: w.dir.file("out/shared.json")) == Data(patternBytes(300_000, seed: 1)))
        #expect(FileManager.default.contents(atPath: w.dir.file("out/astc/tex.bin")) == Data(patternBytes(400_000, seed: 3)))
    }

    @Test func inspectListsTheBasesAndVerifyTakesEachOfThem() async throws {
        let w = try Workspace()
        // A variant with the ASTC textures of `astc` and a file of its own: it takes the textures
        // from astc's file and shared.json from the default's (version 5).
        try w.dir.write("hires.bin", patternBytes(200_000, seed: 5))
        try w.dir.write("Textures.astc8.json", Array(#"{"assetPackID": "Textures", "downloadPolicy": {"onDemand": {}}, "platforms": ["iOS"], "fileSelectors": [{"file": "shared.json"}, {"directory": "astc"}, {"file": "hires.bin"}], "variant": {"textureFormat": "astc", "minimumMemory": "8GiB"}}"#.utf8))
        _ = try await w.run(["keygen", "-o", "signing.pem"])
        _ = try await w.run(["publish", "Textures.default.json", "Textures.astc.json", "Textures.astc8.json", "--repo", "site", "--key", "signing.pem"])
        var byVersion: [Int: (path: String, info: [String: Any])] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: w.dir.file("site/packs/Textures")) {
            let out = try await w.run(["inspect", "site/packs/Textures/\(name)", "--json"])
            let info = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            byVersion[try #require(info["formatVersion"] as? Int)] = ("site/packs/Textures/\(name)", info)
        }
        let (defaultPath, defaultInfo) = try #require(byVersion[2]), (astcPath, astcInfo) = try #require(byVersion[4])
        let (bigPath, bigInfo) = try #require(byVersion[5])
        #expect(defaultInfo["bases"] == nil && astcInfo["bases"] != nil)
        let sha = { (path: String) in SHA256Digest.hash(readFile(w.dir.file(path))).hex }
        // JSON: each base's SHA-256, size, chunks and bytes of frames, in the index's order.
        let bases = try #require(bigInfo["bases"] as? [[String: Any]])
        #expect(bases.map { $0["sha256"] as? String } == [sha(defaultPath), sha(astcPath)])
        #expect(bases.map { $0["size"] as? Int } == [defaultPath, astcPath].map { Int(readFile(w.dir.file($0)).count) })
        #expect((bases[1]["compressedSize"] as? Int ?? 0) >= 400_000 && (bases[0]["compressedSize"] as? Int ?? 0) >= 300_000, "\(bases)")
        #expect((bigInfo["ownCompressedSize"] as? Int ?? 0) >= 200_000 && (bigInfo["ownCompressedSize"] as? Int ?? 0) < 210_000, "\(bigInfo)")
        // Text: a line per base.
        let text = try await w.run(["inspect", bigPath]).stdout
        #expect(text.contains("Format:         version 5") && text.contains("Own frames:") && text.contains("the rest lie in its 2 bases"), "\(text)")
        #expect(text.contains("Base 1:") && text.contains("SHA-256 \(sha(defaultPath))") && text.contains("Base 2:") && text.contains("SHA-256 \(sha(astcPath))"), "\(text)")
        let astcText = try await w.run(["inspect", astcPath]).stdout
        #expect(astcText.contains("Base 1:") && !astcText.contains("Base 2:") && astcText.contains("lie in its base)"), "\(astcText)")
        // verify and extract need every base, in any order; one missing is named.
        let missing = try await w.run(["verify", bigPath, "--base", defaultPath], status: 1)
        #expect(missing.stderr.contains("2 base files (not given: \(readFile(w.dir.file(astcPath)).count) bytes, SHA-256 \(sha(astcPath)))"), "\(missing.stderr)")
        let verified = try await w.run(["verify", bigPath, "--base", astcPath, "--base", defaultPath])
        #expect(verified.stdout.contains(": OK"), "\(verified.stdout)")
        _ = try await w.run(["extract", bigPath, "--base", defaultPath, "--base", astcPath, "-o", "out"])
        #expect(FileManager.default.contents(atPath: w.dir.file("out/astc/tex.bin")) == Data(patternBytes(400_000, seed: 3)))
        #expect(FileManager.default.contents(atPath: w.dir.file("out/hires.bin")) == Data(patternBytes(200_000, seed: 5)))
        #expect(FileManager.default.contents(atPath: w.dir.file("out/shared.json")) == Data(patternBytes(300_000, seed: 1)))
    }
}
