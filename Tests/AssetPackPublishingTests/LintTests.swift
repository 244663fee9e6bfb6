import AssetPackFormat
import AssetPackPackaging
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Lints manifests through `publish --check` and returns the findings, errors included.
func lintFindings(_ ws: TestRepository, _ manifests: [String], _ configure: (inout PublishOptions) -> Void = { _ in }) throws -> [LintFinding] {
    let before = ws.snapshot()
    defer { #expect(ws.snapshot() == before, "--check wrote into the repository") }
    do {
        return try Publisher(key: testKey, options: ws.options { $0.checkOnly = true; configure(&$0) }).publish(manifests: manifests).findings
    } catch PublishError.lintFailed(let findings) {
        return findings
    }
}

let prefetch = DownloadPolicy.prefetch(installationEventTypes: [.firstInstallation])
let essential = DownloadPolicy.essential(installationEventTypes: [.firstInstallation])

@Suite struct LintTests {
    @Test func duplicateIDs() throws {
        let ws = try workspace()
        let a = try ws.put("Alpha", files: ["a.txt": Array("a".utf8)])
        try ws.dir.write("Copy.json", String(decoding: FileManager.default.contents(atPath: a)!, as: UTF8.self))
        let findings = try lintFindings(ws, [a, "\(ws.dir.path)/Copy.json"])
        #expect(findings.map(\.rule).contains(.duplicateID))
        #expect(try lintFindings(ws, [a]).isEmpty)
    }

    @Test func pathCollisionAcrossPacks() throws {
        let ws = try workspace()
        let a = try ws.put("Alpha", files: ["shared/x.txt": Array("a".utf8), "a.txt": Array("a".utf8)])
        let b = try ws.put("Beta", files: ["shared/x.txt": Array("b".utf8)])
        let c = try ws.put("Gamma", files: ["c.txt": Array("c".utf8)])
        let findings = try lintFindings(ws, [a, b, c])
        #expect(findings.count == 1)
        #expect(findings.first?.rule == .pathCollision)
        #expect(findings.first?.severity == .error)
        #expect(findings.first?.message.contains("Alpha and Beta both contain 1 path") == true)
        #expect(findings.first?.message.contains("\"shared/x.txt\"") == true)
        #expect(try lintFindings(ws, [a, c]).isEmpty)
    }

    @Test func sharedPathsNameEveryPackThatHoldsAPath() throws {
        // Names that sort around a folder's slash ("x.a" < "x/a" < "x0"), in folders of
        // their own, listed from disk: only equal paths are shared, each with all its packs.
        let ws = try workspace()
        func listed(_ id: String, _ files: [String: [UInt8]]) throws -> String {
            _ = try ws.put(id, files: files)
            return try ws.dir.write("\(id)-listed.json", #"{"assetPackID": "\#(id)", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "."}], "platforms": ["iOS"], "sourceRoot": "content/\#(id)"}"#)
        }
        let a = try listed("Alpha", ["x/a": [1], "x.a": [1], "x0": [1], "y/b": [1]])
        let b = try listed("Beta", ["x/a": [2], "x/a.b": [2], "y/b/c": [2]])
        let c = try listed("Gamma", ["x.a": [3], "x/a": [3], "z": [3]])
        let packs = [a, b, c].enumerated().map { i, manifest in
            let resolved = ResolvedManifest(path: manifest, baseDirectory: ws.dir.path)
            #expect(resolved.isValid, "\(resolved.diagnostics)")
            return LintPack(id: "\(i)", language: nil, downloadPolicy: prefetch, files: resolved.files)
        }
        let shared = PublishLinter.sharedPaths(packs)
        #expect(shared.map(\.path) == ["x.a", "x/a"])
        #expect(shared.map(\.packs) == [[0, 2], [0, 1, 2]])
        #expect(PublishLinter.sharedPaths([packs[0]]).isEmpty)
        let findings = try lintFindings(ws, [a, b, c]).filter { $0.rule == .pathCollision }.map(\.message)
        #expect(findings.count == 3)
        #expect(findings.contains { $0.contains("Alpha and Gamma both contain 2 paths") })
    }

    @Test func localizedVariantsMayShareThePathsButNotWithOtherPacks() throws {
        let ws = try workspace()
        let en = try ws.put("Voices.en", language: "en", files: ["voice/hello.caf": patternBytes(64, seed: 1)])
        let de = try ws.put("Voices.de", language: "de", files: ["voice/hello.caf": patternBytes(64, seed: 2)])
        #expect(try lintFindings(ws, [en, de]).isEmpty)
        // Same path set under unrelated IDs: still variants of one logical content.
        let fr = try ws.put("Stimmen", language: "fr", files: ["voice/hello.caf": patternBytes(64, seed: 3)])
        #expect(try lintFindings(ws, [en, de, fr]).isEmpty)
        // A language-neutral pack with the same path collides.
        let neutral = try ws.put("Other", files: ["voice/hello.caf": patternBytes(64, seed: 4)])
        #expect(try lintFindings(ws, [en, de, neutral]).map(\.rule) == [.pathCollision, .pathCollision])
        // Two variants in the same language collide.
        let en2 = try ws.put("Voices-en", language: "en", files: ["voice/hello.caf": patternBytes(64, seed: 5)])
        let same = try lintFindings(ws, [en, en2])
        #expect(same.map(\.rule) == [.pathCollision])
        #expect(same.first?.message.contains("same language en") == true)
    }

    @Test func localizedVariantsMustCarryTheSameFiles() throws {
        let ws = try workspace()
        let en = try ws.put("Voices.en", language: "en", files: ["a.caf": patternBytes(10, seed: 1), "b.caf": patternBytes(10, seed: 2)])
        let de = try ws.put("Voices.de", language: "de", files: ["a.caf": patternBytes(10, seed: 3)])
        let findings = try lintFindings(ws, [en, de])
        #expect(findings.map(\.rule) == [.variantFiles])
        #expect(findings.first?.message.contains("Voices.de (de) lacks 1 path") == true)
        #expect(findings.first?.message.contains("\"b.caf\"") == true)
        try ws.dir.write("content/Voices.de/b.caf", patternBytes(10, seed: 4))
        let fixed = try ws.put("Voices.de", language: "de", files: ["a.caf": patternBytes(10, seed: 3), "b.caf": patternBytes(10, seed: 4)])
        #expect(try lintFindings(ws, [en, fixed]).isEmpty)
    }

    @Test func primaryLanguageVariantIsRequired() throws {
        let ws = try workspace()
        let de = try ws.put("Voices.de", language: "de", files: ["a.caf": patternBytes(10, seed: 1)])
        let fr = try ws.put("Voices.fr", language: "fr", files: ["a.caf": patternBytes(10, seed: 2)])
        let findings = try lintFindings(ws, [de, fr])
        #expect(findings.map(\.rule) == [.primaryLanguage])
        #expect(findings.first?.message.contains("no variant in the primary language en") == true)
        // en-GB is a variant in en; and --primary-language de accepts the German one.
        let enGB = try ws.put("Voices.en-GB", language: "en-GB", files: ["a.caf": patternBytes(10, seed: 3)])
        #expect(try lintFindings(ws, [de, fr, enGB]).isEmpty)
        #expect(try lintFindings(ws, [de, fr]) { $0.lint.primaryLanguage = "de" }.isEmpty)
    }

    @Test func identicalFilesInEveryVariantBelongInASharedPack() throws {
        let ws = try workspace()
        let license = Array("the same license text in every language".utf8)
        let en = try ws.put("Voices.en", language: "en", files: ["LICENSE": license, "a.caf": patternBytes(10, seed: 1)])
        let de = try ws.put("Voices.de", language: "de", files: ["LICENSE": license, "a.caf": patternBytes(10, seed: 2)])
        let findings = try lintFindings(ws, [en, de])
        #expect(findings.map(\.rule) == [.sharedFile])
        #expect(findings.first?.severity == .warning)
        #expect(findings.first?.message.contains("\"LICENSE\"") == true)
        #expect(findings.first?.message.contains("a.caf") == false)
        // A warning does not stop a publish, unless --strict.
        #expect(try Publisher(key: testKey, options: ws.options()).publish(manifests: [en, de]).catalog != nil)
        #expect(try lintFindings(ws, [en, de]) { $0.lint.treatWarningsAsErrors = true }.first?.severity == .error)
        // Different bytes in one variant: nothing to report.
        let de2 = try ws.put("Voices.de", language: "de", files: ["LICENSE": Array("Lizenz".utf8), "a.caf": patternBytes(10, seed: 2)])
        #expect(try lintFindings(ws, [en, de2]).isEmpty)
    }

    @Test func appleLimitsPackCountSaysWhich() {
        var options = LintOptions()
        options.appleLimits = true
        let linter = PublishLinter(options: options)
        let packs = (0...AppleLimits.packCount).map { LintPack(id: "P\($0)", language: nil, downloadPolicy: .onDemand, files: []) }
        let findings = linter.lintContent(packs)
        #expect(findings.map(\.rule) == [.applePackCount])
        #expect(findings.first?.message.contains("101 packs") == true)
        #expect(findings.first?.message.contains("App Store Connect Help says 100") == true)
        #expect(findings.first?.message.contains("200") == true)
        #expect(linter.lintContent(Array(packs.dropLast())).isEmpty)
        #expect(PublishLinter(options: LintOptions()).lintContent(packs).isEmpty)
    }

    @Test func appleLimitsTotalSizeCountsEachPacksLargestVersion() {
        var options = LintOptions()
        options.appleLimits = true
        let linter = PublishLinter(options: options)
        let a = LintPack(id: "A", language: nil, downloadPolicy: .onDemand, files: [], compressedSize: 120_000_000_000)
        let b = LintPack(id: "B", language: nil, downloadPolicy: .onDemand, files: [], compressedSize: 70_000_000_000)
        #expect(linter.lintCompressedSizes([a, b]).isEmpty)
        // B's current version is 70 GB, but an earlier hosted version is 90 GB: 210 GB in all.
        let findings = linter.lintCompressedSizes([a, b], largestHosted: ["B": 90_000_000_000])
        #expect(findings.map(\.rule) == [.appleHostingSize])
        #expect(findings.first?.message.contains("210.0 GB") == true)
        #expect(findings.first?.message.contains("200.0 GB") == true)
    }

    /// The compressed/uncompressed trap: 2 MB of zeros installs as 2 MB but downloads as a few
    /// hundred bytes. Install-size limits see the 2 MB; download allowances see the pack file.
    @Test func installSizesCountUncompressedAndAllowancesCompressed() throws {
        let ws = try workspace()
        let p = try ws.put("Zeros", policy: prefetch, files: ["zeros.bin": [UInt8](repeating: 0, count: 2_000_000)])
        let install = try lintFindings(ws, [p]) { $0.lint.maxInstallSize = 1_000_000 }
        #expect(install.map(\.rule) == [.maxInstallSize])
        #expect(install.first?.message.contains("2.0 MB (2000000 bytes) uncompressed") == true)
        #expect(install.first?.message.contains("1.0 MB (1000000 bytes)") == true)
        #expect(install.first?.message.contains("BAMaxInstallSize") == true)
        #expect(try lintFindings(ws, [p]) { $0.lint.downloadAllowance = 1_000_000 }.isEmpty)
        let download = try lintFindings(ws, [p]) { $0.lint.downloadAllowance = 100 }
        #expect(download.map(\.rule) == [.downloadAllowance])
        #expect(download.first?.message.contains("compressed") == true)
        #expect(download.first?.message.contains("100 bytes") == true)
    }

    @Test func essentialLimitsCountEssentialPacksOnly() throws {
        let ws = try workspace()
        let e = try ws.put("Core", policy: essential, files: ["core.bin": patternBytes(50_000, seed: 1)])
        let p = try ws.put("Extra", policy: prefetch, files: ["extra.bin": patternBytes(80_000, seed: 2)])
        let d = try ws.put("Later", files: ["later.bin": patternBytes(500_000, seed: 3)])
        let all = [e, p, d]
        #expect(try lintFindings(ws, all) { $0.lint.essentialMaxInstallSize = 60_000; $0.lint.maxInstallSize = 90_000 }.isEmpty)
        #expect(try lintFindings(ws, all) { $0.lint.essentialMaxInstallSize = 40_000 }.map(\.rule) == [.essentialMaxInstallSize])
        #expect(try lintFindings(ws, all) { $0.lint.maxInstallSize = 70_000 }.map(\.rule) == [.maxInstallSize])
        #expect(try lintFindings(ws, all) { $0.lint.essentialDownloadAllowance = 60_000; $0.lint.downloadAllowance = 90_000 }.isEmpty)
        let tight = try lintFindings(ws, all) { $0.lint.essentialDownloadAllowance = 40_000 }
        #expect(tight.map(\.rule) == [.essentialDownloadAllowance])
        #expect(tight.first?.message.contains("BAEssentialDownloadAllowance") == true)
    }

    @Test func localizedGroupsCountTheirLargestVariantOnce() throws {
        let ws = try workspace()
        let en = try ws.put("Voices.en", policy: prefetch, language: "en", files: ["v.caf": patternBytes(30_000, seed: 1)])
        let de = try ws.put("Voices.de", policy: prefetch, language: "de", files: ["v.caf": patternBytes(40_000, seed: 2)])
        #expect(try lintFindings(ws, [en, de]) { $0.lint.maxInstallSize = 40_000 }.isEmpty)
        #expect(try lintFindings(ws, [en, de]) { $0.lint.maxInstallSize = 39_999 }.map(\.rule) == [.maxInstallSize])
    }

    @Test func variantGrouping() {
        #expect(LocalizedVariantID.baseID("Voices.en", language: "en") == "Voices")
        #expect(LocalizedVariantID.baseID("Intro-en-US", language: "en-US") == "Intro")
        #expect(LocalizedVariantID.baseID("Intro_en_US", language: "en-US") == "Intro")
        #expect(LocalizedVariantID.baseID("Intro-en", language: "en-US") == "Intro")
        #expect(LocalizedVariantID.baseID("Intro", language: "en") == nil)
        #expect(LocalizedVariantID.baseID("Golden", language: "en") == nil)
        #expect(LocalizedVariants.matches("en-GB", primary: "en"))
        #expect(!LocalizedVariants.matches("eng", primary: "en"))
    }
}
