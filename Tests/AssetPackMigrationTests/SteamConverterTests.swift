import AssetPackFormat
import AssetPackPackaging
import Foundation
@testable import AssetPackMigration
import Testing

@Suite struct SteamConverterTests {
    private let both: [InstallationEventType] = [.firstInstallation, .subsequentUpdate]

    @Test func keyValuesSyntax() throws {
        let text = """
        // comment
        "Root" { Key "a \\"quoted\\" value" "path" "..\\content\\"  "Nested" { "x" "1" [$WIN32] }
          key "second" }
        """
        let doc = try KeyValuesParser.parse(Array(text.utf8))
        let root = try #require(doc.entries.first)
        #expect(root.child("key")?.string == "a \"quoted\" value")   // case-insensitive lookup
        #expect(root.all("KEY").map(\.string) == ["a \"quoted\" value", "second"])
        #expect(root.child("PATH")?.string == "..\\content\\")          // a path ending in a backslash
        #expect(root.child("nested")?.child("X")?.string == "1")
        #expect(root.child("nested")?.location.line == 2)
    }

    @Test func malformedVDFGivesLineAndColumn() {
        #expect(throws: DiagnosticError.self) { try SteamBuildScript.load(path: Fixtures.steamScripts + "/depot_malformed.vdf") }
        do {
            _ = try SteamBuildScript.load(path: Fixtures.steamScripts + "/depot_malformed.vdf")
        } catch {
            #expect(error.diagnostic.line == 9 && error.diagnostic.column == 1)
            #expect(error.diagnostic.message.contains("line 2, column 1 is not closed"))
        }
        for (text, line, column) in [("\"a\" \"b", 1, 5), ("\"a\" }", 1, 5), ("{ }", 1, 1), ("\"k\"", 1, 4)] {
            do {
                _ = try KeyValuesParser.parse(Array(text.utf8))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.location == SourceLocation(line: line, column: column), "\(text): \(error)")
            }
        }
    }

    @Test func singleDepotWithWildcardsRecursionAndExclusions() throws {
        let script = try SteamBuildScript.load(path: Fixtures.steamScripts + "/depot_build_1001.vdf")
        #expect(script.depots.count == 1 && !script.isAppBuild)
        let depot = script.depots[0]
        #expect(depot.contentRoot == Fixtures.steamContent)
        #expect(depot.mappings.map(\.recursive) == [true, false, false])
        let (m, diagnostics) = DepotConverter.manifest(for: depot, assetPackID: "BaseGame", policy: .essential(installationEventTypes: both),
                                                       platforms: [.macOS], language: nil, base: Fixtures.steamScripts)
        let manifest = try #require(m)
        // *.pak recursively minus dlc/*, the literal movie, readme; *.pdb excluded.
        #expect(manifest.fileSelectors == [.file("base.pak"), .file("maps/level1.pak"), .file("movies/intro.bik"), .file("readme.txt")])
        // The content root, seen from the folder `package` will run in.
        #expect(manifest.sourceRoot == "../content")
        #expect(!diagnostics.hasErrors)
        try expectValid(manifest, from: Fixtures.steamScripts)
    }

    @Test func appBuildGivesOneManifestPerDepot() throws {
        let script = try SteamBuildScript.load(path: Fixtures.steamScripts + "/app_build_1000.vdf")
        #expect(script.isAppBuild)
        #expect(script.depots.map(\.depotID) == ["1001", "1002"])
        let dlc = try #require(DepotConverter.manifest(for: script.depots[1], assetPackID: "Game-1002", policy: .onDemand,
                                                       platforms: Platform.allCases, language: "en", base: Fixtures.root).manifest)
        // The inline depot inherits the app's content root; trees.PDB is excluded case-insensitively.
        #expect(dlc.fileSelectors == [.file("dlc/forest/trees.pak")])
        #expect(dlc.language == "en")
        #expect(dlc.sourceRoot == "Steam/content")
        try expectValid(dlc, from: Fixtures.root)
    }

    @Test func missingContentRootStillWritesAManifestWithWarnings() throws {
        let script = try SteamBuildScript.load(path: Fixtures.steamScripts + "/depot_build_machine.vdf")
        let (m, diagnostics) = DepotConverter.manifest(for: script.depots[0], assetPackID: "Remote", policy: .prefetch(installationEventTypes: both),
                                                       platforms: [.iOS], language: nil)
        let manifest = try #require(m)
        #expect(manifest.sourceRoot == "D:/BuildMachine/Game/content")
        // The recursive "*" selects the root folder; the literal config file inside it is not selected twice.
        #expect(manifest.fileSelectors == [.directory(".")])
        #expect(diagnostics.contains { $0.severity == .warning && $0.message.contains("does not exist here") })
        #expect(diagnostics.contains { $0.line == 16 && $0.message.contains("shaders/*.bin") })
        #expect(diagnostics.contains { $0.line == 21 && $0.message.contains("FileExclusion \"*.pdb\"") })
        let bytes = try ManifestSetWriter.encode(manifest, name: "Remote.json")
        #expect(ManifestDecoder.decode(bytes, file: "Remote.json").manifest == manifest)
    }

    @Test func includeIsReportedUnsupported() throws {
        let script = try SteamBuildScript.load(path: Fixtures.steamScripts + "/depot_with_include.vdf")
        #expect(script.warnings.count == 1)
        #expect(script.warnings.first?.line == 1 && script.warnings.first?.message.contains("#include \"shared_settings.vdf\" is not supported") == true)
        let (m, diagnostics) = DepotConverter.manifest(for: script.depots[0], assetPackID: "Maps", policy: .onDemand, platforms: [.iOS], language: nil)
        #expect(m?.fileSelectors == [.file("maps/level1.pak"), .file("maps/level1.pdb")])
        // DepotPath "maps" equals the local folder: no remapping warning.
        #expect(!diagnostics.contains { $0.message.contains("DepotPath") })
    }

    private func expectValid(_ m: AssetPackManifest, from base: String) throws {
        let bytes = try ManifestSetWriter.encode(m, name: m.assetPackID)
        let (decoded, diagnostics) = ManifestDecoder.decode(bytes, file: m.assetPackID)
        #expect(decoded == m, "\(diagnostics)")
        let selection = FileSelection.resolve(m, manifestFile: m.assetPackID, baseDirectory: base)
        #expect(!selection.diagnostics.hasErrors, "\(selection.diagnostics)")
    }
}
