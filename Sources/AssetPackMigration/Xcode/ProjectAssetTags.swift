/// Where a project assigns on-demand-resource tags to content.
public struct ProjectTagAssignment: Sendable, Equatable {
    public enum Source: String, Sendable, Codable {
        /// `settings = {ASSET_TAGS = (…)}` on a `PBXBuildFile`.
        case buildFileAssetTags
        /// `assetTagsByRelativePath` in a `PBXFileSystemSynchronizedBuildFileExceptionSet`.
        case synchronizedFolder
    }

    public var tag: String
    public var source: Source
    /// The line in the pbxproj that names the tag.
    public var line: Int
    /// The absolute path of the tagged file or folder, when it resolves.
    public var contentPath: String?
    /// The IDs of the targets that build the content.
    public var targetIDs: [String]
}

extension XcodeProject {
    /// Every tag the pbxproj assigns to files or folders.
    public var tagAssignments: [ProjectTagAssignment] {
        var out: [ProjectTagAssignment] = []
        var targetsOfBuildFile: [String: [String]] = [:]
        for t in targets { for f in t.buildFileIDs { targetsOfBuildFile[f, default: []].append(t.id) } }
        var rootGroupOfExceptionSet: [String: String] = [:]
        for (id, o) in objects where o.string("isa") == "PBXFileSystemSynchronizedRootGroup" {
            for set in o["exceptions"]?.strings ?? [] { rootGroupOfExceptionSet[set] = id }
        }
        for id in objects.keys.sorted() {
            guard let o = objects[id] else { continue }
            switch o.string("isa") {
            case "PBXBuildFile":
                guard let tags = o["settings"]?.dictionary?["ASSET_TAGS"] else { continue }
                let content = o.string("fileRef").flatMap { path(of: $0) }
                for n in tags.array ?? [tags] {
                    guard let tag = n.string else { continue }
                    out.append(ProjectTagAssignment(tag: tag, source: .buildFileAssetTags, line: n.location.line,
                                                    contentPath: content, targetIDs: targetsOfBuildFile[id] ?? []))
                }
            case "PBXFileSystemSynchronizedBuildFileExceptionSet":
                guard let byPath = o["assetTagsByRelativePath"]?.dictionary else { continue }
                let folder = rootGroupOfExceptionSet[id].flatMap { path(of: $0) }
                let target = o.string("target").map { [$0] } ?? []
                for e in byPath.entries {
                    for n in e.value.array ?? [e.value] {
                        guard let tag = n.string else { continue }
                        out.append(ProjectTagAssignment(tag: tag, source: .synchronizedFolder, line: n.location.line,
                                                        contentPath: folder.map { PathText.join($0, e.key) }, targetIDs: target))
                    }
                }
            default:
                continue
            }
        }
        return out.sorted { ($0.line, $0.tag) < ($1.line, $1.tag) }
    }

    /// The absolute paths of the files and folders each target builds (resources included), for
    /// telling which targets an asset catalog belongs to.
    public var contentPathsByTarget: [String: [String]] {
        var out: [String: [String]] = [:]
        for t in targets {
            var paths: [String] = []
            for f in t.buildFileIDs {
                if let ref = objects[f]?.string("fileRef"), let p = path(of: ref) { paths.append(p) }
            }
            for g in t.synchronizedGroupIDs { if let p = path(of: g) { paths.append(p) } }
            out[t.id] = paths
        }
        return out
    }
}
