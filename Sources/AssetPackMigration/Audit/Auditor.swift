import Foundation

/// Audits a folder holding Xcode projects, asset catalogs and sources for On-Demand Resources:
/// API uses, tags and their bytes, ODR build settings, deployment targets and migration paths,
/// Background Assets keys. A file that cannot be read becomes a finding; the audit goes on.
public enum Auditor {
    /// Source files larger than this are skipped (generated code, not hand-written ODR calls).
    static let largestSourceFile: UInt64 = 4 << 20
    /// Property lists larger than this are not Info.plists.
    static let largestPlist: UInt64 = 1 << 20

    public static func audit(root: String) -> AuditReport {
        let tree = ProjectTree(root: root)
        var report = AuditReport()
        var inventory = TagInventory()
        var contentPlatforms: [String: Set<BuildPlatform>] = [:]
        var projectRoots: [(name: String, sourceRoot: String)] = []
        var infoPlistTargets: [String: [TargetReport]] = [:]

        for path in tree.xcodeProjects {
            let project: XcodeProject
            do {
                project = try XcodeProject(bundlePath: tree.absolute(path))
            } catch {
                report.projects.append(ProjectSummary(path: path, targets: 0, error: error.reason))
                report.findings.append(Finding(.parseError, .error, "cannot read the project: \(error.reason)",
                                               file: tree.relative(error.file), line: error.location?.line, column: error.location?.column))
                continue
            }
            var audit = ProjectAudit(project: project, tree: tree)
            audit.run(into: &report, inventory: &inventory)
            report.projects.append(ProjectSummary(path: path, targets: project.targets.count, error: nil))
            for (k, v) in audit.contentPlatforms { contentPlatforms[k, default: []].formUnion(v) }
            for (k, v) in audit.infoPlistTargets { infoPlistTargets[k, default: []] += v }
            projectRoots.append((path, tree.relative(project.sourceRoot)))
        }

        for catalog in tree.assetCatalogs {
            let (tags, problems) = AssetCatalogTags.read(catalog: catalog, in: tree)
            for p in problems { report.findings.append(Finding(.parseError, .error, p.message, file: p.file, line: p.line, column: p.column)) }
            // The project whose targets build the catalog, else the one whose folder holds it.
            let owner = projectRoots.filter { PathText.isInside(catalog, $0.sourceRoot) }.max { $0.sourceRoot.count < $1.sourceRoot.count }?.name
            let platforms = contentPlatforms.filter { PathText.isInside(catalog, $0.key) }.reduce(into: Set<BuildPlatform>()) { $0.formUnion($1.value) }
            for t in tags {
                let content = TagInventory.Content(project: owner, path: t.folder)
                inventory.definitions.append(.init(tag: t.tag, at: FileLine(file: t.file, line: t.line,
                    via: t.layout == .properties ? "assetCatalog" : "assetCatalogXcode7", content: t.folder), content: content))
                if !platforms.isEmpty { inventory.platforms[content, default: []].formUnion(platforms) }
            }
        }

        scanSources(tree: tree, report: &report, inventory: &inventory)
        scanPlists(tree: tree, targets: infoPlistTargets, report: &report)
        TagAnalysis.analyze(inventory, tree: tree, into: &report)
        sort(&report)
        return report
    }

    private static func scanSources(tree: ProjectTree, report: inout AuditReport, inventory: inout TagInventory) {
        for file in tree.files(withExtensions: ["swift", "m", "mm", "h", "hh"]) {
            guard let language = SourceLanguage(pathExtension: (file as NSString).pathExtension),
                  (tree.fileSizes[file] ?? 0) <= largestSourceFile,
                  let data = FileManager.default.contents(atPath: tree.absolute(file)) else { continue }
            let scan = ODRSourceScanner.scan([UInt8](data), language: language, file: file)
            report.apiUses += scan.uses
            for r in scan.tagRequests {
                inventory.requests.append((r.tag, FileLine(file: r.file, line: r.line, via: r.symbol), r.column))
            }
            for d in scan.dynamicTags {
                report.findings.append(Finding(.dynamicTags, .note,
                    "\(d.symbol) is passed tags that are not string literals; the audit cannot tell which tags it requests",
                    file: d.file, line: d.line))
            }
        }
    }

    private static func scanPlists(tree: ProjectTree, targets: [String: [TargetReport]], report: inout AuditReport) {
        for file in tree.files(withExtensions: ["plist"]) where (tree.fileSizes[file] ?? 0) <= largestPlist {
            let path = tree.absolute(file)
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let isBinary = data.starts(with: Array("bplist".utf8))
            guard isBinary || data.range(of: Data("<key>BA".utf8)) != nil else { continue }
            let keys: [BackgroundAssetsKey]
            do {
                keys = try InfoPlistReader.backgroundAssetsKeys(atPath: path, file: file)
            } catch {
                if !isBinary { report.findings.append(Finding(.parseError, .error, "cannot read the property list: \(error)", file: file)) }
                continue
            }
            guard !keys.isEmpty else { continue }
            report.backgroundAssetsKeys += keys
            BackgroundAssetsRules.check(keys, file: file, targets: targets[file] ?? [], into: &report.findings)
        }
    }

    private static func sort(_ r: inout AuditReport) {
        r.apiUses.sort { ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column) }
        r.backgroundAssetsKeys.sort { ($0.file, $0.line ?? 0) < ($1.file, $1.line ?? 0) }
        r.buildSettings.sort { ($0.project, $0.target, $0.configuration, $0.name) < ($1.project, $1.target, $1.configuration, $1.name) }
        r.targets.sort { ($0.project, $0.name, $0.platform ?? "") < ($1.project, $1.name, $1.platform ?? "") }
        r.findings.sort { ($0.file ?? "", $0.line ?? 0, $0.kind.rawValue, $0.message) < ($1.file ?? "", $1.line ?? 0, $1.kind.rawValue, $1.message) }
    }
}
