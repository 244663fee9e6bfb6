import Foundation
@testable import AssetPackMigration
import Testing
import TestSupport

@Suite struct XcodeProjectTests {
    @Test func readsTargetsConfigurationsAndPaths() throws {
        let project = try XcodeProject(bundlePath: Fixtures.gameApp + "/GameApp.xcodeproj")
        #expect(project.targets.map(\.name) == ["GameApp", "GameAppModern", "GameTV", "GameWatch"])
        #expect(project.projectConfigurations.map(\.name) == ["Debug", "Release"])
        #expect(project.projectConfigurations[0].baseConfigurationPath == Fixtures.gameApp + "/Config/Shared.xcconfig")
        #expect(project.path(of: "F10000000000000000000001") == Fixtures.gameApp + "/GameApp/Sources/ResourceLoader.swift")
        #expect(project.path(of: "P10000000000000000000001") == nil) // built product
        #expect(project.knownAssetTags.map(\.tag) == ["Level1", "Level2", "Bonus", "Tutorial", "background", "Seasonal"])
        #expect(project.knownAssetTags.last?.line == 166)
    }

    @Test func targetSettingsOverrideProjectSettingsAndXCConfigIncludes() throws {
        let project = try XcodeProject(bundlePath: Fixtures.gameApp + "/GameApp.xcodeproj")
        var resolver = BuildSettingsResolver(project: project)
        let app = try #require(project.targets.first { $0.name == "GameApp" })
        let modern = try #require(project.targets.first { $0.name == "GameAppModern" })
        let tv = try #require(project.targets.first { $0.name == "GameTV" })
        // Project-level 15.0 overrides Base.xcconfig's 14.0 (included by Shared.xcconfig).
        let a = resolver.settings(for: app, configuration: "Release")
        #expect(a["IPHONEOS_DEPLOYMENT_TARGET"]?.value == "15.0")
        #expect(a["IPHONEOS_DEPLOYMENT_TARGET"]?.line == 260)
        #expect(a["SWIFT_VERSION"]?.file == Fixtures.gameApp + "/Config/Base.xcconfig")
        #expect(a["EMBED_ASSET_PACKS_IN_PRODUCT_BUNDLE"]?.line == 5)
        // Target-level 17.0 overrides the project.
        #expect(resolver.settings(for: modern, configuration: "Release")["IPHONEOS_DEPLOYMENT_TARGET"]?.value == "17.0")
        // The target's xcconfig overrides project settings; the conditional [sdk=…] line is not taken.
        let t = resolver.settings(for: tv, configuration: "Debug")
        #expect(t["SDKROOT"]?.value == "appletvos")
        #expect(t["TVOS_DEPLOYMENT_TARGET"]?.value == "26.0")
        #expect(t["TVOS_DEPLOYMENT_TARGET"]?.line == 4)
        #expect(t["ASSET_PACK_MANIFEST_URL_PREFIX"]?.value == "https://odr.example.com/packs/")
        #expect(resolver.problems.isEmpty)
    }

    @Test func findsAssetTagsInBuildFilesAndSynchronizedFolders() throws {
        let game = try XcodeProject(bundlePath: Fixtures.gameApp + "/GameApp.xcodeproj")
        let tags = game.tagAssignments
        let level2 = tags.filter { $0.tag == "Level2" }
        #expect(level2.count == 2)
        #expect(level2.allSatisfy { $0.contentPath == Fixtures.gameApp + "/GameApp/Levels/level2.json" && $0.source == .buildFileAssetTags })
        #expect(tags.first { $0.tag == "Level3" }?.line == 14)

        let vision = try XcodeProject(bundlePath: Fixtures.odr + "/VisionApp/VisionApp.xcodeproj")
        let v = vision.tagAssignments
        #expect(v.count == 3)
        #expect(v.allSatisfy { $0.source == .synchronizedFolder && $0.targetIDs == ["T20000000000000000000001"] })
        #expect(Set(v.compactMap(\.contentPath)) == [Fixtures.odr + "/VisionApp/VisionApp/Scenes/Forest.usdz",
                                                     Fixtures.odr + "/VisionApp/VisionApp/Scenes/Forest Night.usdz"])
    }

    @Test func malformedProjectGivesLineAndColumn() {
        do {
            _ = try XcodeProject(bundlePath: Fixtures.odr + "/Broken/Broken.xcodeproj")
            Issue.record("accepted a malformed project")
        } catch {
            #expect(error.location?.line == 9)
            #expect(error.location?.column == 48)
            #expect(error.reason.contains("expected ',' or ')'"))
        }
    }

    @Test func xcconfigIncludeCycleAndMissingIncludeAreProblems() throws {
        let scratch = try TemporaryDirectory("migration")
        defer { scratch.remove() }
        let dir = scratch.path
        try "#include \"b.xcconfig\"\nA = 1\n".write(toFile: dir + "/a.xcconfig", atomically: true, encoding: .utf8)
        try "#include \"a.xcconfig\"\n#include \"missing.xcconfig\"\nB = 2 // two\n".write(toFile: dir + "/b.xcconfig", atomically: true, encoding: .utf8)
        let f = XCConfigFile(path: dir + "/a.xcconfig")
        #expect(f.effective["A"]?.value == "1")
        #expect(f.effective["B"]?.value == "2")
        #expect(f.problems.contains { $0.message.contains("cycle") })
        #expect(f.problems.contains { $0.message.contains("missing.xcconfig") && $0.line == 2 })
    }
}
