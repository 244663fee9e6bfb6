import AssetPackFormat
import Foundation

/// An Xcode project read from `NAME.xcodeproj/project.pbxproj`: its objects by ID and `isa`,
/// its targets with their build configurations, and its project-level configurations.
public struct XcodeProject: Sendable {
    /// The absolute path of the `.xcodeproj` folder.
    public var bundlePath: String
    /// The absolute path of `project.pbxproj`.
    public var pbxprojPath: String
    /// `$(SRCROOT)`: the folder holding the `.xcodeproj`, moved by `projectDirPath` when set.
    public var sourceRoot: String
    public var objects: [String: PropertyListDictionary]
    public var rootObjectID: String
    public var targets: [XcodeTarget]
    public var projectConfigurations: [XcodeBuildConfiguration]
    /// `attributes.KnownAssetTags` of the project object: each tag with its line.
    public var knownAssetTags: [(tag: String, line: Int)]
    /// Children group → parent group, for resolving `<group>`-relative paths.
    var parents: [String: String]

    /// Reads and parses the project at `bundlePath` (a `.xcodeproj` folder).
    public init(bundlePath: String) throws(XcodeProjectError) {
        self.bundlePath = PathText.absolute(bundlePath)
        pbxprojPath = self.bundlePath + "/project.pbxproj"
        let file = pbxprojPath
        guard let data = FileManager.default.contents(atPath: pbxprojPath) else {
            throw XcodeProjectError(file: file, location: nil, reason: "cannot read the file")
        }
        let root: PropertyListNode
        do {
            root = try OpenStepPropertyListParser.parse([UInt8](data))
        } catch {
            throw XcodeProjectError(file: file, location: error.location, reason: error.message)
        }
        guard let top = root.dictionary else {
            throw XcodeProjectError(file: file, location: root.location, reason: "the top level is not a dictionary")
        }
        guard let objectsNode = top["objects"], let objectList = objectsNode.dictionary else {
            throw XcodeProjectError(file: file, location: root.location, reason: "no \"objects\" dictionary")
        }
        guard let rootID = top.string("rootObject") else {
            throw XcodeProjectError(file: file, location: root.location, reason: "no \"rootObject\"")
        }
        var objects: [String: PropertyListDictionary] = [:]
        var isaLines: [String: Int] = [:]
        for entry in objectList.entries {
            guard let d = entry.value.dictionary else {
                throw XcodeProjectError(file: file, location: entry.value.location, reason: "object \(entry.key) is not a dictionary")
            }
            objects[entry.key] = d
            isaLines[entry.key] = d.entry("isa")?.keyLocation.line ?? entry.keyLocation.line
        }
        guard let project = objects[rootID], project.string("isa") == "PBXProject" else {
            throw XcodeProjectError(file: file, location: objectsNode.location, reason: "rootObject \(rootID) is not a PBXProject")
        }
        self.objects = objects
        rootObjectID = rootID
        let projectFolder = PathText.parent(self.bundlePath)
        sourceRoot = PathText.join(projectFolder, project.string("projectDirPath") ?? "")
        parents = [:]
        knownAssetTags = []
        targets = []
        projectConfigurations = []
        for (id, object) in objects {
            for child in object["children"]?.strings ?? [] { parents[child] = id }
        }
        if let known = project["attributes"]?.dictionary?["KnownAssetTags"]?.array {
            knownAssetTags = known.compactMap { n in n.string.map { ($0, n.location.line) } }
        }
        projectConfigurations = configurations(listID: project.string("buildConfigurationList"))
        for targetID in project["targets"]?.strings ?? [] {
            guard let t = objects[targetID], let isa = t.string("isa") else { continue }
            var buildFiles: [String] = []
            for phaseID in t["buildPhases"]?.strings ?? [] {
                buildFiles += objects[phaseID]?["files"]?.strings ?? []
            }
            targets.append(XcodeTarget(
                id: targetID, name: t.string("name") ?? targetID, isa: isa, productType: t.string("productType"),
                configurations: configurations(listID: t.string("buildConfigurationList")),
                buildFileIDs: buildFiles, synchronizedGroupIDs: t["fileSystemSynchronizedGroups"]?.strings ?? [],
                line: isaLines[targetID] ?? 0))
        }
    }

    /// The configurations of an `XCConfigurationList`.
    private func configurations(listID: String?) -> [XcodeBuildConfiguration] {
        guard let listID, let list = objects[listID] else { return [] }
        return (list["buildConfigurations"]?.strings ?? []).compactMap { id in
            guard let c = objects[id] else { return nil }
            var settings: [String: BuildSetting] = [:]
            for e in c["buildSettings"]?.dictionary?.entries ?? [] {
                let value: String
                switch e.value.value {
                case .string(let s): value = s
                case .array(let a): value = a.compactMap(\.string).joined(separator: " ")
                default: continue
                }
                settings[e.key] = BuildSetting(name: e.key, value: value, file: pbxprojPath, line: e.keyLocation.line)
            }
            var base: String?
            if let ref = c.string("baseConfigurationReference") {
                base = path(of: ref)
            } else if let anchor = c.string("baseConfigurationReferenceAnchor"),
                      let relative = c.string("baseConfigurationReferenceRelativePath"), let folder = path(of: anchor) {
                base = PathText.join(folder, relative)
            }
            return XcodeBuildConfiguration(id: id, name: c.string("name") ?? id, settings: settings, baseConfigurationPath: base)
        }
    }

    /// The absolute path of a file reference or group, following `sourceTree` up the group tree;
    /// nil for paths relative to build products or the SDK.
    public func path(of id: String) -> String? {
        var seen: Set<String> = []
        return path(of: id, seen: &seen)
    }

    private func path(of id: String, seen: inout Set<String>) -> String? {
        guard let o = objects[id], seen.insert(id).inserted else { return nil }
        let own = o.string("path") ?? ""
        switch o.string("sourceTree") ?? "<group>" {
        case "<absolute>": return PathText.normalize(own)
        case "SOURCE_ROOT": return PathText.join(sourceRoot, own)
        case "<group>":
            if let parent = parents[id] {
                guard let p = path(of: parent, seen: &seen) else { return nil }
                return PathText.join(p, own)
            }
            return PathText.join(sourceRoot, own)
        default:
            return nil
        }
    }

    /// The project object's own dictionary.
    public var projectObject: PropertyListDictionary { objects[rootObjectID] ?? PropertyListDictionary(entries: []) }
}
