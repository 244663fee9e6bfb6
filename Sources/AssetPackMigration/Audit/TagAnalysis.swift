import AssetPackFormat

/// Turns a `TagInventory` into tag reports, asset-pack plans and tag findings.
enum TagAnalysis {
    static func analyze(_ inv: TagInventory, tree: ProjectTree, into report: inout AuditReport) {
        var definedAt: [String: [FileLine]] = [:]
        var contentsOf: [String: Set<TagInventory.Content>] = [:]
        for d in inv.definitions {
            definedAt[d.tag, default: []].append(d.at)
            if let c = d.content { contentsOf[d.tag, default: []].insert(c) }
        }
        for (_, list) in inv.known { for k in list { definedAt[k.tag, default: []].append(k.at) } }
        var requestedAt: [String: [FileLine]] = [:]
        for r in inv.requests { requestedAt[r.tag, default: []].append(r.at) }

        func policy(_ tag: String) -> String {
            inv.initialInstall[tag] != nil ? "initialInstall" : inv.prefetch[tag] != nil ? "prefetch" : "onDemand"
        }

        let names = Set(definedAt.keys).union(requestedAt.keys).union(inv.initialInstall.keys).union(inv.prefetch.keys)
        for name in names.sorted() {
            let bytes = (contentsOf[name] ?? []).reduce(UInt64(0)) { $0 + tree.bytes(at: $1.path) }
            report.tags.append(TagReport(name: name, definedAt: unique(definedAt[name] ?? []), requestedAt: unique(requestedAt[name] ?? []),
                                         bytes: bytes, installPolicy: policy(name)))
        }

        // Requested but never defined (tags are case-sensitive).
        let contentTags = Set(contentsOf.keys)
        let allDefined = Set(definedAt.keys)
        for r in inv.requests where !allDefined.contains(r.tag) {
            if let other = allDefined.first(where: { $0.lowercased() == r.tag.lowercased() }) {
                report.findings.append(Finding(.tagCaseMismatch, .error,
                    "tag \"\(r.tag)\" is requested but only \"\(other)\" is defined; tags are case-sensitive",
                    file: r.at.file, line: r.at.line, column: r.column))
            } else {
                report.findings.append(Finding(.undefinedTag, .error, "tag \"\(r.tag)\" is requested but no content carries it",
                                               file: r.at.file, line: r.at.line, column: r.column))
            }
        }
        for (tags, kind) in [(inv.initialInstall, "ON_DEMAND_RESOURCES_INITIAL_INSTALL_TAGS"), (inv.prefetch, "ON_DEMAND_RESOURCES_PREFETCH_ORDER")] {
            for (tag, at) in tags.sorted(by: { $0.key < $1.key }) where !contentTags.contains(tag) {
                report.findings.append(Finding(.undefinedTagInBuildSetting, .warning, "\(kind) names tag \"\(tag)\", which no content carries",
                                               file: at.file, line: at.line))
            }
        }
        // Defined with content but never requested by code or by an install setting.
        for tag in contentTags.sorted() where requestedAt[tag] == nil && inv.initialInstall[tag] == nil && inv.prefetch[tag] == nil {
            let at = inv.definitions.first { $0.tag == tag && $0.content != nil }?.at
            report.findings.append(Finding(.unrequestedTag, .warning, "tag \"\(tag)\" tags content but no code requests it",
                                           file: at?.file, line: at?.line))
        }
        // KnownAssetTags against the content of the same project.
        for (project, known) in inv.known.sorted(by: { $0.key < $1.key }) {
            let projectTags = Set(inv.definitions.filter { $0.content?.project == project }.map(\.tag))
            let knownNames = Set(known.map(\.tag))
            for k in known where !projectTags.contains(k.tag) {
                report.findings.append(Finding(.knownTagWithoutContent, .warning, "KnownAssetTags lists \"\(k.tag)\" but nothing in \(project) carries it",
                                               file: k.at.file, line: k.at.line))
            }
            var reported: Set<String> = []
            for d in inv.definitions where d.content?.project == project && !knownNames.contains(d.tag) && reported.insert(d.tag).inserted {
                report.findings.append(Finding(.tagMissingFromKnownAssetTags, .warning, "tag \"\(d.tag)\" tags content but is missing from KnownAssetTags of \(project)",
                                               file: d.at.file, line: d.at.line))
            }
        }
        report.assetPacks = plans(inv, contentsOf: contentsOf, tree: tree, policy: policy)
        checkLimits(report: &report)
    }

    private static func unique(_ list: [FileLine]) -> [FileLine] {
        var seen: Set<FileLine> = []
        return list.filter { seen.insert($0).inserted }.sorted { ($0.file, $0.line ?? 0) < ($1.file, $1.line ?? 0) }
    }

    /// One pack per distinct tag set per project, as Xcode built one ODR asset pack per combination.
    private static func plans(_ inv: TagInventory, contentsOf: [String: Set<TagInventory.Content>], tree: ProjectTree,
                              policy: (String) -> String) -> [AssetPackPlan] {
        var tagsOf: [TagInventory.Content: Set<String>] = [:]
        for (tag, contents) in contentsOf { for c in contents { tagsOf[c, default: []].insert(tag) } }
        struct Key: Hashable { var project: String?; var tags: [String] }
        var groups: [Key: [TagInventory.Content]] = [:]
        for (c, tags) in tagsOf { groups[Key(project: c.project, tags: tags.sorted()), default: []].append(c) }
        var plans: [AssetPackPlan] = []
        var usedIDs: Set<String> = []
        for (key, contents) in groups.sorted(by: { ($0.key.project ?? "", $0.key.tags.joined(separator: "\u{1}")) < ($1.key.project ?? "", $1.key.tags.joined(separator: "\u{1}")) }) {
            let policies = Set(key.tags.map(policy))
            let downloadPolicy = policies.contains("initialInstall") ? "essential" : policies.contains("prefetch") ? "prefetch" : "onDemand"
            var platforms: Set<BuildPlatform> = []
            for c in contents { platforms.formUnion(inv.platforms[c] ?? []) }
            if platforms.isEmpty, let p = key.project { platforms = inv.projectPlatforms[p] ?? [] }
            platforms.remove(.watchOS)
            var id = AssetPackNaming.id(forTags: key.tags)
            if usedIDs.contains(id), let p = key.project { id = AssetPackNaming.id(forTags: [PathText.lastComponent(p).replacingOccurrences(of: ".xcodeproj", with: "")] + key.tags) }
            usedIDs.insert(id)
            let paths = contents.map(\.path).sorted()
            plans.append(AssetPackPlan(assetPackID: id, tags: key.tags, contents: paths,
                                       bytes: paths.reduce(0) { $0 + tree.bytes(at: $1) }, downloadPolicy: downloadPolicy,
                                       platforms: platforms.map(\.rawValue).sorted(), project: key.project))
        }
        return plans
    }

    private static func checkLimits(report: inout AuditReport) {
        for t in report.tags where t.bytes > ODRLimits.tag.bytes {
            let at = t.definedAt.first
            report.findings.append(Finding(.odrLimitExceeded, .error,
                "tag \"\(t.name)\" holds \(t.bytes) bytes, above ODR's \(ODRLimits.tag.bytes)-byte limit per tag",
                file: at?.file, line: at?.line))
        }
        let initial = report.tags.filter { $0.installPolicy == "initialInstall" }.reduce(UInt64(0)) { $0 + $1.bytes }
        let prefetch = report.tags.filter { $0.installPolicy == "prefetch" }.reduce(UInt64(0)) { $0 + $1.bytes }
        let total = report.tags.reduce(UInt64(0)) { $0 + $1.bytes }
        for (value, limit) in [(initial, ODRLimits.initialInstall), (initial + prefetch, ODRLimits.initialAndPrefetch), (total, ODRLimits.hosted)]
        where value > limit.bytes {
            report.findings.append(Finding(.odrLimitExceeded, .error, "\(limit.description): \(value) bytes, above the \(limit.bytes)-byte limit", file: nil))
        }
        if report.assetPacks.count > ODRLimits.assetPackCount {
            report.findings.append(Finding(.odrLimitExceeded, .error, "\(report.assetPacks.count) tag combinations, above ODR's \(ODRLimits.assetPackCount) asset packs", file: nil))
        }
    }
}
