/// The part of the audit that reads one Xcode project: targets and their paths, ODR build
/// settings, tags the pbxproj assigns, and which content each target builds.
struct ProjectAudit {
    static let odrSettings = [
        "ENABLE_ON_DEMAND_RESOURCES", "ON_DEMAND_RESOURCES_INITIAL_INSTALL_TAGS", "ON_DEMAND_RESOURCES_PREFETCH_ORDER",
        "EMBED_ASSET_PACKS_IN_PRODUCT_BUNDLE", "ASSET_PACK_MANIFEST_URL_PREFIX",
    ]

    let project: XcodeProject
    let tree: ProjectTree
    /// The project's `.xcodeproj` path relative to the audited folder.
    let name: String
    /// Info.plist (relative) → the targets (name, migration path) that use it.
    var infoPlistTargets: [String: [TargetReport]] = [:]

    init(project: XcodeProject, tree: ProjectTree) {
        self.project = project
        self.tree = tree
        name = tree.relative(project.bundlePath)
    }

    private func rel(_ absolute: String) -> String { tree.relative(absolute) }

    private func at(_ s: BuildSetting) -> FileLine { FileLine(file: rel(s.file), line: s.line) }

    mutating func run(into report: inout AuditReport, inventory: inout TagInventory) {
        var resolver = BuildSettingsResolver(project: project)
        let contentByTarget = project.contentPathsByTarget
        var platformsOfTarget: [String: Set<BuildPlatform>] = [:]
        var selfHosted: Set<FileLine> = []
        for target in project.targets {
            var names = target.configurations.map(\.name)
            if names.isEmpty { names = project.projectConfigurations.map(\.name) }
            for configuration in names {
                let settings = resolver.settings(for: target, configuration: configuration)
                for key in Self.odrSettings {
                    guard let s = settings[key] else { continue }
                    report.buildSettings.append(BuildSettingReport(name: key, value: s.value, target: target.name, configuration: configuration,
                                                                   file: rel(s.file), line: s.line, project: name))
                    if key == "ASSET_PACK_MANIFEST_URL_PREFIX", !s.value.isEmpty, selfHosted.insert(at(s)).inserted {
                        report.findings.append(Finding(.selfHostedODR, .warning,
                            "ASSET_PACK_MANIFEST_URL_PREFIX = \(s.value): ODR asset packs are hosted on your own server; plan their move to your own asset-pack hosting",
                            file: rel(s.file), line: s.line))
                    }
                }
                for w in settings["ON_DEMAND_RESOURCES_INITIAL_INSTALL_TAGS"]?.words ?? [] where inventory.initialInstall[w] == nil {
                    inventory.initialInstall[w] = settings["ON_DEMAND_RESOURCES_INITIAL_INSTALL_TAGS"].map(at)
                }
                for w in settings["ON_DEMAND_RESOURCES_PREFETCH_ORDER"]?.words ?? [] where inventory.prefetch[w] == nil {
                    inventory.prefetch[w] = settings["ON_DEMAND_RESOURCES_PREFETCH_ORDER"].map(at)
                }
            }
            let configuration = BuildSettingsResolver.preferredConfiguration(of: target, in: project)
            let settings = configuration.map { resolver.settings(for: target, configuration: $0) } ?? [:]
            let reports = targetReports(target, configuration: configuration, settings: settings, report: &report)
            report.targets += reports
            let platforms = Set(reports.compactMap { $0.platform.flatMap(BuildPlatform.init(rawValue:)) })
            platformsOfTarget[target.id] = platforms
            if settings["ENABLE_ON_DEMAND_RESOURCES"]?.value.uppercased() != "NO" {
                inventory.projectPlatforms[name, default: []].formUnion(platforms)
            }
            if let plist = settings["INFOPLIST_FILE"]?.value, !plist.isEmpty {
                let path = rel(PathText.join(project.sourceRoot, plist.replacingOccurrences(of: "$(SRCROOT)/", with: "").replacingOccurrences(of: "$(PROJECT_DIR)/", with: "")))
                infoPlistTargets[path, default: []] += reports
            }
        }
        for p in resolver.problems {
            report.findings.append(Finding(.parseError, .warning, p.message, file: rel(p.file), line: p.line))
        }
        let pbxproj = rel(project.pbxprojPath)
        inventory.known[name] = project.knownAssetTags.map { ($0.tag, FileLine(file: pbxproj, line: $0.line, via: "knownAssetTags")) }
        for a in project.tagAssignments {
            let content = a.contentPath.map { TagInventory.Content(project: name, path: rel($0)) }
            inventory.definitions.append(.init(tag: a.tag, at: FileLine(file: pbxproj, line: a.line, via: a.source.rawValue, content: content?.path), content: content))
            if let content {
                for t in a.targetIDs { inventory.platforms[content, default: []].formUnion(platformsOfTarget[t] ?? []) }
            }
        }
        // Remember which targets build which paths, for asset catalogs found by the tree walk.
        for (targetID, paths) in contentByTarget {
            for p in paths { contentPlatforms[rel(p), default: []].formUnion(platformsOfTarget[targetID] ?? []) }
        }
    }

    /// Relative path built by a target (a file, a folder, a synchronized folder) → platforms.
    var contentPlatforms: [String: Set<BuildPlatform>] = [:]

    /// One report per platform the target builds for (multiplatform targets list several).
    private func targetReports(_ target: XcodeTarget, configuration: String?, settings: [String: BuildSetting],
                               report: inout AuditReport) -> [TargetReport] {
        var platforms: [BuildPlatform] = []
        if let sdk = settings["SDKROOT"]?.value, let p = BuildPlatform(sdk: sdk) { platforms = [p] }
        if platforms.isEmpty, let supported = settings["SUPPORTED_PLATFORMS"] {
            for w in supported.words { if let p = BuildPlatform(sdk: w), !platforms.contains(p) { platforms.append(p) } }
        }
        let pbxproj = rel(project.pbxprojPath)
        let catalyst = settings["SUPPORTS_MACCATALYST"]?.value.uppercased() == "YES"
        if platforms.isEmpty {
            report.findings.append(Finding(.missingDeploymentTarget, .warning, "target \(target.name): no SDKROOT or SUPPORTED_PLATFORMS, so no platform",
                                           file: pbxproj, line: target.line))
            return [TargetReport(name: target.name, platform: nil, deploymentTarget: nil, file: pbxproj, line: target.line, migrationPath: .unknown,
                                 project: name, configuration: configuration, productType: target.productType, macCatalyst: catalyst)]
        }
        return platforms.map { platform in
            let setting = settings[platform.deploymentTargetSetting]
            let path = MigrationPath.decide(platform: platform, deploymentTarget: setting?.value)
            if setting == nil {
                report.findings.append(Finding(.missingDeploymentTarget, .warning,
                    "target \(target.name): \(platform.deploymentTargetSetting) is not set, so the migration path is unknown", file: pbxproj, line: target.line))
            }
            if platform == .watchOS {
                report.findings.append(Finding(.noReplacement, .warning,
                    "target \(target.name) (watchOS): ODR is deprecated on watchOS and Background Assets is not available there",
                    file: setting.map { rel($0.file) } ?? pbxproj, line: setting?.line ?? target.line))
            }
            if catalyst && platform == .iOS {
                let s = settings["SUPPORTS_MACCATALYST"]
                report.findings.append(Finding(.macCatalystNominal, .note,
                    "target \(target.name) builds for Mac Catalyst, where NSBundleResourceRequest always ignored calls; the deprecation there is nominal",
                    file: s.map { rel($0.file) } ?? pbxproj, line: s?.line ?? target.line))
            }
            return TargetReport(name: target.name, platform: platform.rawValue, deploymentTarget: setting?.value,
                                file: setting.map { rel($0.file) } ?? pbxproj, line: setting?.line ?? target.line, migrationPath: path,
                                project: name, configuration: configuration, productType: target.productType, macCatalyst: catalyst)
        }
    }
}
