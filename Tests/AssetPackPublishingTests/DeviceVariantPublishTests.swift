import AssetPackFormat
import AssetPackPackaging
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Publishing device variants: manifests sharing an `assetPackID` become one catalog entry whose
/// `variants` list each variant's own pack file; the bad groups are refused naming the files;
/// a catalog whose variant list is malformed is refused like any bad catalog.
@Suite struct DeviceVariantPublishTests {
    static let shared = patternBytes(200_000, seed: 5)

    /// The default and four variants of `Tex`, each with `shared.bin` and textures of its own.
    static func group(_ ws: TestRepository) throws -> [String] {
        var paths = [try ws.put("Tex", files: ["shared.bin": shared, "tex.bin": patternBytes(100_000, seed: 10)])]
        let variants: [(String, [String: Any], UInt64)] = [
            ("astc", ["textureFormat": "astc"], 11), ("astc-hi", ["textureFormat": "astc", "minimumMemory": "6GiB"], 12),
            ("bc7", ["textureFormat": "bc7", "architectures": ["x86_64"]], 13), ("etc2", ["textureFormat": "etc2"], 14),
        ]
        for (name, variant, seed) in variants {
            paths.append(try ws.put("Tex", variant: variant, variantName: name, files: ["shared.bin": shared, "tex.bin": patternBytes(100_000, seed: seed)]))
        }
        return paths
    }

    @Test func aGroupIsOneEntryWithItsVariants() throws {
        let ws = try workspace()
        _ = try Self.group(ws)
        let catalog = try ws.publish()
        #expect(catalog.packs.map(\.id) == ["Tex"])
        let tex = try #require(catalog.pack(withID: "Tex"))
        let variants = try #require(tex.variants)
        #expect(variants.map(\.conditions.name) == ["astc", "astc-6GiB", "bc7-x86_64", "etc2"])
        // Each variant is a pack file of its own, of the same ID, that is what the catalog says.
        #expect(Set(tex.variantPaths).count == 5)
        for v in variants {
            let reader = try PackReader(path: "\(ws.path)/\(v.path)")
            #expect(reader.digest == v.digest && reader.fileSize == v.size && reader.index.metadata.assetPackID == "Tex")
            #expect(v.path == "packs/Tex/\(v.digest.hex).pack")
        }
        // Published again unchanged: the same version, the same files.
        let before = Set(ws.snapshot().keys.filter { $0.hasSuffix(".pack") })
        let again = try ws.publish()
        #expect(again.pack(withID: "Tex")?.version == 1)
        #expect(again.pack(withID: "Tex")?.variants == variants)
        #expect(Set(ws.snapshot().keys.filter { $0.hasSuffix(".pack") }) == before)
    }

    @Test func aChangedVariantIsANewVersionAndItsOldFileIsRetired() throws {
        let ws = try workspace()
        _ = try Self.group(ws)
        let first = try #require(try ws.publish().pack(withID: "Tex"))
        try ws.put("Tex", variant: ["textureFormat": "etc2"], variantName: "etc2", files: ["shared.bin": Self.shared, "tex.bin": patternBytes(100_000, seed: 99)])
        let catalog = try ws.publish()
        let second = try #require(catalog.pack(withID: "Tex"))
        #expect(second.version == 2)
        #expect(second.digest == first.digest)
        let oldETC2 = try #require(first.variants?.first { $0.conditions.textureFormat == "etc2" })
        #expect(catalog.retired.map(\.path) == [oldETC2.path])
        #expect(second.variants?.first { $0.conditions.textureFormat == "etc2" }?.digest != oldETC2.digest)
        // A variant dropped from the group: its file is retired too, kept by the retention rule.
        ws.drop("Tex", variantName: "astc-hi")
        let third = try ws.publish()
        #expect(third.pack(withID: "Tex")?.variants?.count == 3)
        #expect(third.retired.contains { $0.path == first.variants![1].path })
        #expect(ws.contents(first.variants![1].path) != nil)
    }

    @Test func aGroupWithoutADefaultIsRefusedNamingItsFiles() throws {
        let ws = try workspace()
        let a = try ws.put("Tex", variant: ["textureFormat": "astc"], variantName: "astc", files: ["t.bin": [1]])
        let b = try ws.put("Tex", variant: ["textureFormat": "bc7"], variantName: "bc7", files: ["t.bin": [2]])
        let findings = try lintFindings(ws, [a, b])
        let finding = try #require(findings.first { $0.rule == .variantDefault })
        #expect(finding.severity == .error)
        #expect(finding.message.contains(a) && finding.message.contains(b), "\(finding)")
    }

    @Test func twoVariantsWithTheSameConditionsAreRefusedNamingBoth() throws {
        let ws = try workspace()
        let d = try ws.put("Tex", files: ["t.bin": [0]])
        // The same conditions, architectures in another order.
        let a = try ws.put("Tex", variant: ["textureFormat": "astc", "architectures": ["arm64", "x86_64"]], variantName: "one", files: ["t.bin": [1]])
        let b = try ws.put("Tex", variant: ["architectures": ["x86_64", "arm64"], "textureFormat": "astc"], variantName: "two", files: ["t.bin": [2]])
        let findings = try lintFindings(ws, [d, a, b])
        let finding = try #require(findings.first { $0.rule == .variantConditions })
        #expect(finding.severity == .error)
        #expect(finding.message.contains(a) && finding.message.contains(b), "\(finding)")
        #expect(try lintFindings(ws, [d, a]).isEmpty)
    }

    @Test func conditionsOnALonePackAreIgnoredWithAWarning() throws {
        let ws = try workspace()
        let lone = try ws.put("Solo", variant: ["textureFormat": "astc"], variantName: "astc", files: ["t.bin": [1]])
        let report = try ws.publishReport()
        let finding = try #require(report.findings.first { $0.rule == .variantAlone })
        #expect(finding.severity == .warning && finding.message.contains(lone))
        let solo = try #require(report.catalog?.pack(withID: "Solo"))
        #expect(solo.variants == nil)
    }

    @Test func sizeLimitsCountTheLargestFileOfAGroup() throws {
        let ws = try workspace()
        let d = try ws.put("Tex", policy: prefetch, files: ["t.bin": patternBytes(10_000, seed: 1)])
        let v = try ws.put("Tex", policy: prefetch, variant: ["textureFormat": "bc7"], variantName: "bc7", files: ["t.bin": patternBytes(300_000, seed: 2)])
        let findings = try lintFindings(ws, [d, v]) { $0.lint.downloadAllowance = 100_000 }
        #expect(findings.map(\.rule) == [.downloadAllowance], "\(findings)")
        #expect(try lintFindings(ws, [d, v]) { $0.lint.downloadAllowance = 400_000 }.isEmpty)
        // The install sizes too: the variant installs 300 kB, the default 10 kB.
        #expect(try lintFindings(ws, [d, v]) { $0.lint.maxInstallSize = 100_000 }.map(\.rule) == [.maxInstallSize])
        #expect(try lintFindings(ws, [d, v]) { $0.lint.maxInstallSize = 300_000 }.isEmpty)
    }

    @Test func twoFilesOfAGroupWithTheSameContentAreRefusedThoughTheLaterTakesItsFramesFromTheEarlier() throws {
        // The later file would take every frame from the earlier (another digest, the same pack).
        let ws = try workspace()
        let files = ["shared.bin": Self.shared, "tex.bin": patternBytes(100_000, seed: 20)]
        let d = try ws.put("Tex", files: ["shared.bin": Self.shared, "tex.bin": patternBytes(100_000, seed: 21)])
        let a = try ws.put("Tex", variant: ["textureFormat": "astc"], variantName: "astc", files: files)
        let b = try ws.put("Tex", variant: ["textureFormat": "astc", "minimumMemory": "8GiB"], variantName: "astc-8GiB", files: files)
        // (An allowance makes the check build the packs.)
        let twins = try lintFindings(ws, [d, a, b]) { $0.lint.downloadAllowance = 1 << 30 }.filter { $0.rule == .variantConditions }
        #expect(twins.count == 1 && twins[0].message.contains("\(a) and \(b) make the same pack of \"Tex\""), "\(twins)")
        // A variant with the default's content, likewise.
        let c = try ws.put("Tex", variant: ["textureFormat": "etc2"], variantName: "etc2", files: ["shared.bin": Self.shared, "tex.bin": patternBytes(100_000, seed: 21)])
        let twin = try lintFindings(ws, [d, a, c]) { $0.lint.downloadAllowance = 1 << 30 }.filter { $0.rule == .variantConditions }
        #expect(twin.count == 1 && twin[0].message.contains("\(d) and \(c) make the same pack of \"Tex\""), "\(twin)")
    }

    @Test func theDownloadAllowanceCountsWhatAVariantFetchesNotTheBytesItsFileStores() throws {
        // astc-8GiB's file stores 50 kB (its ASTC textures lie in astc's file, its shared file in
        // the default's), but a device that takes it downloads about 450 kB.
        let ws = try workspace()
        let shared = patternBytes(100_000, seed: 1), astc = patternBytes(300_000, seed: 2)
        let d = try ws.put("Tex", policy: prefetch, files: ["shared.bin": shared, "t.bin": patternBytes(70_000, seed: 3)])
        let a = try ws.put("Tex", policy: prefetch, variant: ["textureFormat": "astc"], variantName: "astc", files: ["shared.bin": shared, "t.bin": astc])
        let b = try ws.put("Tex", policy: prefetch, variant: ["textureFormat": "astc", "minimumMemory": "8GiB"], variantName: "astc-8GiB",
                           files: ["shared.bin": shared, "t.bin": astc, "hi.bin": patternBytes(70_000, seed: 4)])
        #expect(try lintFindings(ws, [d, a, b]) { $0.lint.downloadAllowance = 450_000 }.map(\.rule) == [.downloadAllowance])
        #expect(try lintFindings(ws, [d, a, b]) { $0.lint.downloadAllowance = 500_000 }.isEmpty)
    }

    @Test func rollbackToAVersionWhoseVariantFileWasPrunedNamesIt() throws {
        let ws = try workspace()
        _ = try Self.group(ws)
        let v1 = try #require(try ws.publishReport(now: publishedAt) { $0.keep = 1 }.catalog)
        try ws.put("Tex", variant: ["textureFormat": "etc2"], variantName: "etc2", files: ["shared.bin": Self.shared, "tex.bin": patternBytes(100_000, seed: 98)])
        try ws.publishReport(now: publishedAt) { $0.keep = 1 }
        let etc2 = try #require(v1.packs[0].variants?.first { $0.conditions.textureFormat == "etc2" })
        #expect(ws.contents(etc2.path) == nil, "--keep 1 deletes the old ETC2 file")
        let before = ws.snapshot()
        var editor = ChannelEditor(repository: ws.path, key: ws.key)
        editor.now = publishedAt
        let error = #expect(throws: PublishError.self) { try editor.rollback(to: 1, channel: nil) }
        #expect(error?.description.contains("Tex v1 (\(etc2.path))") == true, "\(String(describing: error))")
        #expect(ws.snapshot() == before)
    }

    @Test func applesDownloadManifestAndArchiveAreTheDefaults() throws {
        let ws = try workspace()
        let paths = try Self.group(ws)
        let report = try ws.publishReport(now: publishedAt) { $0.appleBaseURL = "https://cdn.example.com/apple/" }
        let catalog = try #require(report.catalog)
        let bytes = try #require(ws.contents("apple/manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let packs = try #require(manifest["assetPacks"] as? [[String: Any]])
        #expect(packs.map { $0["id"] as? String } == ["Tex"])
        #expect(packs.first?["version"] as? Int == catalog.pack(withID: "Tex")?.version)
        // The archive is the default manifest's, byte for byte as aar create writes it.
        let expected = ws.dir.file("default.aar")
        _ = try ApplePackArchiver(threads: 2).write(manifestAt: paths[0], baseDirectory: ws.dir.path, to: expected)
        #expect(ws.contents("apple/assets/Tex") == ws.dir.contents("default.aar"))
    }

    /// A published catalog with `change` made to its entry's variants, signed again.
    static func tampered(_ ws: TestRepository, _ change: (inout [CatalogVariant], CatalogPack) -> Void) throws -> [UInt8] {
        var catalog = try ws.catalog()
        var variants = catalog.packs[0].variants!
        change(&variants, catalog.packs[0])
        catalog.packs[0].variants = variants
        return try ws.key.signedCatalog(catalog)
    }

    @Test func malformedVariantListsAreRefused() throws {
        let ws = try workspace()
        _ = try Self.group(ws)
        try ws.publish()
        let verifier = CatalogVerifier(publicKey: ws.publicKey)
        let cases: [(String, (inout [CatalogVariant], CatalogPack) -> Void)] = [
            ("packs[0].variants: must list 1 to 64 variants", { v, _ in v = [] }),
            ("packs[0].variants[1].conditions: the same conditions as variants[0]", { v, _ in v[1].conditions = v[0].conditions }),
            ("packs[0].variants[0].conditions: names no condition", { v, _ in v[0].conditions = VariantConditions() }),
            ("packs[0].variants[0].conditions.textureFormat: \"AST C\" is not a format name", { v, _ in v[0].conditions.textureFormat = "AST C" }),
            ("packs[0].variants[2].conditions.architectures[1]: \"x86_64\" is listed twice", { v, _ in v[2].conditions.architectures = ["x86_64", "x86_64"] }),
            ("packs[0].variants[0].conditions.minimumMemory: must be above 0", { v, _ in v[0].conditions.minimumMemory = 0 }),
            ("packs[0].variants[3].path: \"packs/../catalog.json\" has an empty, '.' or '..' segment", { v, _ in v[3].path = "packs/../catalog.json" }),
            ("packs[0].variants[1].path: \"\(ws.catalogPath0())\" is another variant's or the pack's own file", { v, p in v[1].path = p.path }),
            ("packs[0].variants[0].index.sha256: differs from digest", { v, _ in v[0].digest = v[1].digest }),
            ("packs[0].variants[2].index: range", { v, _ in v[2].size += 1 }),
            ("packs[0].variants[1].base: \"\(ws.catalogPath0())x\" is not the pack's own file", { v, p in v[1].base = p.path + "x" }),
            ("packs[0].variants[1].bases: a variant has base or bases, not both", { v, p in (v[1].base, v[1].bases) = (p.path, [p.path]) }),
            ("packs[0].variants[1].bases[0]: \"\(try ws.catalog().packs[0].variants![1].path)\" is the variant's own file", { v, _ in (v[1].base, v[1].bases) = (nil, [v[1].path]) }),
            ("packs[0].variants[1].bases[1]: \"packs/Tex/x.pack\" is neither the pack's own file nor another of its variants'",
             { v, p in (v[1].base, v[1].bases) = (nil, [p.path, "packs/Tex/x.pack"]) }),
            ("packs[0].variants[1].bases[1]: \"\(ws.catalogPath0())\" is listed twice", { v, p in (v[1].base, v[1].bases) = (nil, [p.path, p.path]) }),
            ("packs[0].variants[1].bases: must list 1 to 64 files, found 0", { v, _ in (v[1].base, v[1].bases) = (nil, []) }),
            ("packs[0].variants[0].bases: its files take frames from each other in a cycle (variants[0] → variants[2] → variants[0])",
             { v, _ in (v[0].base, v[0].bases, v[2].base, v[2].bases) = (nil, [v[2].path], nil, [v[0].path]) }),
        ]
        for (expected, change) in cases {
            let bytes = try Self.tampered(ws, change)
            #expect(throws: CatalogError.self, "\(expected)") { try verifier.verify(bytes, now: nil) }
            do { _ = try verifier.verify(bytes, now: nil) } catch {
                #expect("\(error)".contains("malformed catalog: payload: \(expected)"), "\(error)")
            }
        }
        // Shapes the model cannot hold: the key path says where.
        for (json, expected) in [(#""variants":{}"#, "packs[0].variants: expected an array"),
                                 (#""variants":[{"conditions":{"textureFormat":"astc"}}]"#, "missing key \"packs[0].variants[0].")] {
            let payload = Array(String(decoding: CatalogCoding.encode(try ws.catalog()), as: UTF8.self)
                .replacingOccurrences(of: #""variants":["#, with: json + #","unused":["#).utf8)
            let bytes = SignedCatalog(payload: payload, signatures: [CatalogSignature(keyID: ws.key.publicKey.keyID,
                                                                                     signature: try ws.key.sign(SignedCatalog.signedMessage(for: payload)))]).encoded()
            do { _ = try verifier.verify(bytes, now: nil); Issue.record("accepted \(json)") } catch {
                #expect("\(error)".contains(expected), "\(error)")
            }
        }
    }
}

extension TestRepository {
    /// The path of the first pack's own file in the published catalog.
    func catalogPath0() -> String { (try? catalog().packs[0].path) ?? "" }
}

/// `diff` and `report` per variant.
@Suite struct DeviceVariantSizeTests {
    @Test func updateSizesArePerVariantAndSwitchesCostWhatDiffers() throws {
        let ws = try workspace()
        _ = try DeviceVariantPublishTests.group(ws)
        try ws.publish()
        try ws.put("Tex", variant: ["textureFormat": "etc2"], variantName: "etc2", files: ["shared.bin": DeviceVariantPublishTests.shared, "tex.bin": patternBytes(100_000, seed: 99)])
        let catalog = try ws.publish()
        let sizes = try RepositoryUpdates.sizes(repository: ws.path, catalog: catalog)
        // Only the ETC2 variant changed: one update, from its own kept file, of its texture alone.
        #expect(sizes.map { "\($0.variant ?? "default") v\($0.fromVersion)→v\($0.toVersion)" } == ["etc2 v1→v2"])
        #expect(sizes.first?.changedFiles == 1 && sizes.first?.unchangedFiles == 1)
        // A switch between two variants fetches the texture, not the shared file.
        let switches = try RepositoryUpdates.switches(repository: ws.path, catalog: catalog)
        #expect(switches.count == 5 * 4)
        let astcToBC7 = try #require(switches.first { $0.variant == "astc → bc7-x86_64" })
        #expect(astcToBC7.changedFiles == 1 && astcToBC7.unchangedFiles == 1)
        #expect(astcToBC7.frameBytes > 100_000 && astcToBC7.frameBytes < 150_000, "\(astcToBC7)")
        let report = try RepositoryReport.make(repository: ws.path, keys: [ws.publicKey])
        let tex = try #require(report.channels.first?.packs.first)
        #expect(tex.variants?.map(\.name) == ["astc", "astc-6GiB", "bc7-x86_64", "etc2"])
        #expect(tex.variants?.allSatisfy { $0.installSize == 300_000 && $0.downloadSize > 300_000 } == true)
        // Every hosted variant file counts towards Apple's limit figures: 5 current, 1 kept.
        let hosted = Set(catalog.packs[0].variantPaths).union(catalog.retired.map(\.path))
        let bytes = try hosted.map { try #require(ws.contents($0)).count }.reduce(0, +)
        #expect(report.apple.hostedBytes == UInt64(bytes))
    }
}
