import AssetPackFormat
import AssetPackPackaging
import Foundation
@testable import AssetPackMigration
import Testing
import TestSupport

@Suite struct ODRConverterTests {
    @Test func oneValidManifestPerTagCombination() throws {
        let result = ODRConverter.convert(projectDirectory: Fixtures.gameApp, base: Fixtures.odr)
        let byID = Dictionary(uniqueKeysWithValues: result.manifests.map { ($0.assetPackID, $0) })
        #expect(byID.keys.sorted() == ["Bonus_Level2", "Level1", "Level3", "Tutorial", "background"])
        let both: [InstallationEventType] = [.firstInstallation, .subsequentUpdate]
        #expect(byID["Level1"]?.downloadPolicy == .essential(installationEventTypes: both))
        #expect(byID["Level1"]?.fileSelectors == [.directory("GameApp/Assets.xcassets/Level1.imageset")])
        #expect(byID["Bonus_Level2"]?.downloadPolicy == .prefetch(installationEventTypes: both))
        #expect(byID["Bonus_Level2"]?.fileSelectors == [.file("GameApp/Levels/level2.json")])
        #expect(byID["Bonus_Level2"]?.platforms == [.iOS, .tvOS])
        #expect(byID["Level3"]?.downloadPolicy == .onDemand)
        #expect(byID["Level3"]?.platforms == [.iOS])
        #expect(result.manifests.allSatisfy { $0.sourceRoot == "GameApp" })
        for m in result.manifests {
            // Encoded as every converter must, the manifest decodes and its files resolve.
            let bytes = try ManifestSetWriter.encode(m, name: m.assetPackID)
            let (decoded, diagnostics) = ManifestDecoder.decode(bytes, file: m.assetPackID)
            #expect(decoded == m, "\(diagnostics)")
            let selection = FileSelection.resolve(m, manifestFile: m.assetPackID, baseDirectory: Fixtures.odr)
            #expect(!selection.diagnostics.hasErrors, "\(selection.diagnostics)")
            #expect(!selection.files.isEmpty)
        }
        #expect(result.unmapped.contains { $0.contains("\"Background\"") && $0.contains("case-sensitive") })
        #expect(result.unmapped.contains { $0.contains("WatchFaces") })
        #expect(result.unmapped.contains { $0.contains("Seasonal") })
        #expect(result.unmapped.contains { $0.contains("ASSET_PACK_MANIFEST_URL_PREFIX") })
        #expect(result.unmapped.contains { $0.contains("Level1.imageset is an asset-catalog item") })
    }

    @Test func writesTheWholeSetOrNothing() throws {
        let scratch = try TemporaryDirectory("migration")
        defer { scratch.remove() }
        let dir = scratch.path
        let out = dir + "/manifests"
        try ManifestSetWriter.writeSet([("a.json", Array("{}".utf8)), ("b.json", Array("[]".utf8))], to: out)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["a.json", "b.json"])
        // A non-empty destination is refused and left as it was; no staging folder stays behind.
        #expect(throws: ManifestSetWriter.Failure.self) { try ManifestSetWriter.writeSet([("c.json", [0x7B, 0x7D])], to: out) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["a.json", "b.json"])
        // A bad name fails the whole set: nothing reaches the destination.
        let other = dir + "/other"
        #expect(throws: ManifestSetWriter.Failure.self) { try ManifestSetWriter.writeSet([("ok.json", [0x31]), ("../evil.json", [0x31])], to: other) }
        #expect(!FileManager.default.fileExists(atPath: other))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["manifests"])
    }
}
