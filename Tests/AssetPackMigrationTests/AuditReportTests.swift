import Foundation
@testable import AssetPackMigration
import Testing

/// The audit of the fixture tree, checked through its JSON form (the documented, stable shape).
@Suite struct AuditReportTests {
    let report = Auditor.audit(root: Fixtures.odr)

    private func json() throws -> [String: Any] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(report)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func jsonHasTheStableShape() throws {
        let j = try json()
        for key in ["apiUses", "tags", "buildSettings", "targets", "backgroundAssetsKeys", "findings"] { #expect(j[key] is [Any], "\(key)") }
        let fields: [String: [String]] = [
            "apiUses": ["file", "line", "column", "symbol", "live"], "tags": ["name", "definedAt", "requestedAt", "bytes"],
            "buildSettings": ["name", "value", "target", "configuration", "file", "line"],
            "targets": ["name", "platform", "deploymentTarget", "file", "line", "migrationPath"],
            "backgroundAssetsKeys": ["key", "value", "file", "line"], "findings": ["kind", "message", "file", "line"],
        ]
        for (key, names) in fields {
            let first = try #require((j[key] as? [[String: Any]])?.first, "\(key) is empty")
            for n in names { #expect(first[n] != nil, "\(key).\(n)") }
        }
        let tag = try #require((j["tags"] as? [[String: Any]])?.first { $0["name"] as? String == "Level1" })
        let defined = try #require(tag["definedAt"] as? [[String: Any]])
        #expect(defined.contains { $0["file"] as? String == "GameApp/GameApp/Assets.xcassets/Level1.imageset/Contents.json" && $0["line"] as? Int == 14 })
    }

    @Test func targetsPlatformsDeploymentTargetsAndPaths() {
        func t(_ name: String) -> TargetReport? { report.targets.first { $0.name == name } }
        let pbx = "GameApp/GameApp.xcodeproj/project.pbxproj"
        #expect(t("GameApp").map { [$0.platform, $0.deploymentTarget, $0.file, "\($0.line ?? 0)", $0.migrationPath.rawValue] }
                == ["iOS", "15.0", pbx, "260", "stay-on-odr"])
        #expect(t("GameAppModern").map { [$0.deploymentTarget, $0.file, "\($0.line ?? 0)", $0.migrationPath.rawValue] } == ["17.0", pbx, "299", "unmanaged"])
        #expect(t("GameAppModern")?.macCatalyst == true)
        #expect(t("GameTV").map { [$0.platform, $0.deploymentTarget, $0.file, "\($0.line ?? 0)", $0.migrationPath.rawValue] }
                == ["tvOS", "26.0", "GameApp/Config/TV.xcconfig", "4", "managed"])
        #expect(t("GameWatch").map { [$0.platform, $0.deploymentTarget, $0.migrationPath.rawValue] } == ["watchOS", "10.0", "no-replacement"])
        #expect(t("VisionApp").map { [$0.platform, $0.deploymentTarget, $0.file, "\($0.line ?? 0)", $0.migrationPath.rawValue] }
                == ["visionOS", "2.4", "VisionApp/VisionApp.xcodeproj/project.pbxproj", "116", "unmanaged"])
        #expect(report.targets.count == 5)
    }

    @Test func apiUsesWithLiveness() {
        let swift = "GameApp/GameApp/Sources/ResourceLoader.swift"
        let uses = report.apiUses.filter { $0.file == swift }
        #expect(uses.contains(ODRAPIUse(file: swift, line: 9, column: 23, symbol: "NSBundleResourceRequest(tags:)", live: true, context: "code")))
        #expect(uses.contains(ODRAPIUse(file: swift, line: 16, column: 23, symbol: "NSBundleResourceRequest(tags:bundle:)", live: true, context: "code")))
        #expect(uses.contains(ODRAPIUse(file: swift, line: 40, column: 21, symbol: "endAccessingResources", live: false, context: "comment")))
        #expect(uses.contains(ODRAPIUse(file: swift, line: 43, column: 16, symbol: "NSBundleResourceRequest", live: false, context: "string")))
        #expect(uses.contains { $0.line == 44 && $0.symbol == "NSBundleResourceRequestLowDiskSpace" && $0.live })
        let objc = report.apiUses.filter { $0.file == "GameApp/GameApp/Sources/LegacyLoader.m" }
        #expect(objc.contains { $0.line == 26 && $0.symbol == "NSBundleResourceRequestLowDiskSpaceNotification" && $0.live })
        #expect(objc.contains { $0.line == 27 && $0.symbol == "endAccessingResources" && !$0.live })
        #expect(objc.contains { $0.line == 28 && $0.symbol == "beginAccessingResources" && !$0.live && $0.context == "string" })
        // Every symbol family of the issue appears live somewhere in the fixtures.
        let liveSymbols = Set(report.apiUses.filter(\.live).map(\.symbol))
        for s in ["NSBundleResourceRequest", "initWithTags:", "initWithTags:bundle:", "beginAccessingResources() async",
                  "beginAccessingResources(completionHandler:)", "beginAccessingResourcesWithCompletionHandler:",
                  "conditionallyBeginAccessingResources() async", "conditionallyBeginAccessingResources(completionHandler:)",
                  "conditionallyBeginAccessingResourcesWithCompletionHandler:", "endAccessingResources", "loadingPriority",
                  "NSBundleResourceRequestLoadingPriorityUrgent", "setPreservationPriority(_:forTags:)", "setPreservationPriority:forTags:",
                  "preservationPriority(forTag:)", "preservationPriorityForTag:", "NSBundleResourceRequestLowDiskSpaceNotification"] {
            #expect(liveSymbols.contains(s), "\(s)")
        }
    }

    @Test func tagsDefinitionsRequestsAndBytes() throws {
        func tag(_ n: String) throws -> TagReport { try #require(report.tags.first { $0.name == n }, "\(n)") }
        let level1 = try tag("Level1")
        #expect(level1.installPolicy == "initialInstall")
        #expect(level1.bytes == Fixtures.diskBytes(Fixtures.gameApp + "/GameApp/Assets.xcassets/Level1.imageset"))
        #expect(level1.requestedAt.map { "\($0.file):\($0.line ?? 0)" } == [
            "GameApp/GameApp/Sources/ResourceLoader.swift:9", "GameApp/GameApp/Sources/ResourceLoader.swift:41",
            "GameApp/GameApp/Sources/ResourceLoader.swift:42"])
        let tutorial = try tag("Tutorial")
        #expect(tutorial.definedAt.contains { $0.via == "assetCatalogXcode7" && $0.file.hasSuffix("Intro.imageset/Contents.json") && $0.line == 12 })
        #expect(tutorial.installPolicy == "prefetch")
        #expect(tutorial.requestedAt.count == 4)
        let level3 = try tag("Level3")
        #expect(level3.bytes == 37)
        #expect(level3.definedAt == [FileLine(file: "GameApp/GameApp.xcodeproj/project.pbxproj", line: 14, via: "buildFileAssetTags", content: "GameApp/GameApp/Levels/level3.json")])
        #expect(try tag("Bonus").bytes == 59) // level2.json counted once though two build files tag it
        let forest = try tag("Forest")
        #expect(forest.bytes == 9500)
        #expect(forest.definedAt.contains { $0.via == "synchronizedFolder" && $0.line == 22 })
        #expect(forest.definedAt.contains { $0.via == "synchronizedFolder" && $0.line == 18 })
        #expect(try tag("Seasonal").definedAt.map(\.via) == ["knownAssetTags"])
        #expect(try tag("Background").definedAt.isEmpty)
    }

    @Test func findingsNameFileAndLine() {
        func has(_ kind: Finding.Kind, _ file: String?, _ line: Int?, _ text: String = "") -> Bool {
            report.findings.contains { $0.kind == kind && $0.file == file && $0.line == line && (text.isEmpty || $0.message.contains(text)) }
        }
        let swift = "GameApp/GameApp/Sources/ResourceLoader.swift"
        let pbx = "GameApp/GameApp.xcodeproj/project.pbxproj"
        #expect(has(.tagCaseMismatch, swift, 24, "\"background\""))
        #expect(has(.undefinedTag, "GameApp/GameWatch/WatchFace.swift", 5, "WatchFaces"))
        #expect(has(.unrequestedTag, "GameApp/GameApp/Assets.xcassets/Background.dataset/Contents.json", 14, "background"))
        #expect(has(.knownTagWithoutContent, pbx, 166, "Seasonal"))
        #expect(has(.tagMissingFromKnownAssetTags, pbx, 14, "Level3"))
        #expect(has(.dynamicTags, swift, 32))
        #expect(has(.selfHostedODR, "GameApp/Config/TV.xcconfig", 7, "odr.example.com"))
        #expect(has(.noReplacement, pbx, 335))
        #expect(has(.macCatalystNominal, pbx, 301))
        #expect(has(.appleHostingWithOtherKeys, "GameApp/GameApp/Info.plist", 11, "BAInitialDownloadRestrictions, BAManifestURL, BAMaxInstallSize"))
        #expect(has(.managedPacksBelowDeploymentTarget, "GameApp/GameApp/Info.plist", 9, "GameApp deploys to iOS 15.0"))
        #expect(has(.managedPacksBelowDeploymentTarget, "GameApp/GameApp/Info.plist", 9, "GameAppModern deploys to iOS 17.0"))
        // The malformed project is reported with line and column, and the rest of the tree was still audited.
        #expect(report.findings.contains { $0.kind == .parseError && $0.file == "Broken/Broken.xcodeproj/project.pbxproj" && $0.line == 9 && $0.column == 48 })
        #expect(report.projects.map(\.path) == ["Broken/Broken.xcodeproj", "GameApp/GameApp.xcodeproj", "VisionApp/VisionApp.xcodeproj"])
        #expect(report.projects[0].error != nil)
        // The clean unmanaged Info.plist of the vision app raises nothing.
        #expect(!report.findings.contains { $0.file == "VisionApp/VisionApp/Info.plist" })
        #expect(!report.findings.contains { $0.kind == .undefinedTag && $0.message.contains("\"Level") })
    }

    @Test func buildSettingsAndBackgroundAssetsKeys() {
        let s = report.buildSettings
        #expect(s.contains(BuildSettingReport(name: "ASSET_PACK_MANIFEST_URL_PREFIX", value: "https://odr.example.com/packs/", target: "GameTV",
                                              configuration: "Release", file: "GameApp/Config/TV.xcconfig", line: 7, project: "GameApp/GameApp.xcodeproj")))
        #expect(s.contains(BuildSettingReport(name: "ON_DEMAND_RESOURCES_PREFETCH_ORDER", value: "Level2 Tutorial", target: "GameApp",
                                              configuration: "Debug", file: "GameApp/GameApp.xcodeproj/project.pbxproj", line: 250, project: "GameApp/GameApp.xcodeproj")))
        #expect(s.contains { $0.name == "EMBED_ASSET_PACKS_IN_PRODUCT_BUNDLE" && $0.file == "GameApp/Config/Shared.xcconfig" && $0.line == 5 })
        #expect(s.contains { $0.name == "ENABLE_ON_DEMAND_RESOURCES" && $0.target == "VisionApp" && $0.line == 105 })
        #expect(!s.contains { $0.name == "ASSET_PACK_MANIFEST_URL_PREFIX" && $0.target != "GameTV" })
        let keys = report.backgroundAssetsKeys.filter { $0.file == "GameApp/GameApp/Info.plist" }
        #expect(keys.map(\.key) == ["BAAppGroupID", "BAHasManagedAssetPacks", "BAUsesAppleHosting", "BAManifestURL",
                                    "BAInitialDownloadRestrictions", "BADownloadAllowance", "BADownloadDomainAllowList", "BAMaxInstallSize"])
        #expect(keys.map { $0.line ?? 0 } == [7, 9, 11, 13, 15, 17, 19, 24])
        #expect(keys.first { $0.key == "BAUsesAppleHosting" }?.value == .bool(true))
        #expect(keys.first { $0.key == "BADownloadAllowance" }?.value == .integer(104_857_600))
        #expect(keys.first { $0.key == "BADownloadAllowance" }?.parent == "BAInitialDownloadRestrictions")
    }

    @Test func assetPacksPerTagCombination() {
        let packs = Dictionary(uniqueKeysWithValues: report.assetPacks.map { ($0.assetPackID, $0) })
        #expect(packs["Level1"]?.downloadPolicy == "essential")
        #expect(packs["Bonus_Level2"]?.downloadPolicy == "prefetch")
        #expect(packs["Bonus_Level2"]?.platforms == ["iOS", "tvOS"])
        #expect(packs["Level3"]?.platforms == ["iOS"])
        #expect(packs["background"]?.downloadPolicy == "onDemand")
        #expect(packs["Forest"]?.contents == ["VisionApp/VisionApp/Scenes/Forest.usdz"])
        #expect(packs["Forest_Night"]?.contents == ["VisionApp/VisionApp/Scenes/Forest Night.usdz"])
        #expect(packs["Forest_Night"]?.platforms == ["visionOS"])
        #expect(report.assetPacks.count == 7)
    }

    @Test func htmlIsSelfContained() {
        let html = AuditHTMLRenderer.render(report, root: "fixtures")
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<svg"))
        #expect(html.contains("stay-on-odr") && html.contains("no-replacement") && html.contains("managed"))
        for forbidden in ["<script", "src=", "href=", "@import", "url("] { #expect(!html.contains(forbidden), "\(forbidden)") }
        let text = AuditTextRenderer.render(report, root: "fixtures")
        #expect(text.contains("GameTV") && text.contains("[tag-case-mismatch]"))
    }
}
