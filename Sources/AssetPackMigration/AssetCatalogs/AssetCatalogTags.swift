import AssetPackFormat
import Foundation

/// A tag set on an asset-catalog item (an image set, a data set…) in its `Contents.json`.
public struct AssetCatalogTag: Sendable, Equatable {
    public enum Layout: String, Sendable, Codable {
        /// `properties.on-demand-resource-tags`, as Xcode writes today.
        case properties
        /// `info.on-demand-resource-tags`, the layout of Xcode 7's first ODR catalogs.
        case xcode7Info
    }

    public var tag: String
    /// The `Contents.json` that names it (relative to the audited folder) and the line.
    public var file: String
    public var line: Int
    /// The tagged item's folder (relative).
    public var folder: String
    public var layout: Layout
}

/// Reads the ODR tags of every item of one `.xcassets` catalog.
public enum AssetCatalogTags {
    public struct Problem: Sendable, Equatable {
        public var file: String
        public var line: Int?
        public var column: Int?
        public var message: String
    }

    /// The tags of the catalog at `catalog` (relative to `tree.root`), with malformed files as problems.
    public static func read(catalog: String, in tree: ProjectTree) -> (tags: [AssetCatalogTag], problems: [Problem]) {
        var tags: [AssetCatalogTag] = []
        var problems: [Problem] = []
        let prefix = catalog + "/"
        let contentsFiles = tree.fileSizes.keys.filter { $0.hasPrefix(prefix) && $0.hasSuffix("/Contents.json") }.sorted()
        for file in contentsFiles {
            guard let data = FileManager.default.contents(atPath: tree.absolute(file)) else {
                problems.append(Problem(file: file, message: "cannot read the file"))
                continue
            }
            let root: JSONNode
            do {
                root = try JSONParser.parse([UInt8](data))
            } catch {
                problems.append(Problem(file: file, line: error.location.line, column: error.location.column, message: "invalid JSON: \(error.message)"))
                continue
            }
            guard case .object(let members) = root.value else { continue }
            let folder = PathText.parent(file)
            for (section, layout) in [("properties", AssetCatalogTag.Layout.properties), ("info", .xcode7Info)] {
                guard let s = members.first(where: { $0.key == section })?.value, case .object(let sm) = s.value,
                      let list = sm.first(where: { $0.key == "on-demand-resource-tags" })?.value else { continue }
                guard case .array(let items) = list.value else {
                    problems.append(Problem(file: file, line: list.location.line, column: list.location.column,
                                            message: "\(section).on-demand-resource-tags is not an array"))
                    continue
                }
                for item in items {
                    guard case .string(let tag) = item.value else {
                        problems.append(Problem(file: file, line: item.location.line, column: item.location.column, message: "a tag is not a string"))
                        continue
                    }
                    tags.append(AssetCatalogTag(tag: tag, file: file, line: item.location.line, folder: folder, layout: layout))
                }
            }
        }
        return (tags, problems)
    }
}
