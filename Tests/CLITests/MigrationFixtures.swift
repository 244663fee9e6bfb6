import Foundation
import TestSupport

/// The migration fixtures (kept with the AssetPackMigration tests) as the CLI tests use them.
enum MigrationFixtures {
    static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("AssetPackMigrationTests/Fixtures").path
    static var odr: String { root + "/ODR" }
    static var gameApp: String { odr + "/GameApp" }
    static var steam: String { root + "/Steam" }

    /// Copies `source` (a fixture folder) to `name` inside `scratch`, so commands can run on it
    /// from a folder the test owns.
    static func copy(_ source: String, into scratch: TemporaryDirectory, as name: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: scratch.path + "/" + name)
    }

    /// The top-level JSON object of `text`, or nil.
    static func object(_ text: String?) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data((text ?? "").utf8))) as? [String: Any]
    }

    /// Bytes of every regular file below `path`, counted independently of the audit.
    static func diskBytes(_ path: String) -> Int {
        let fm = FileManager.default
        return (fm.subpaths(atPath: path) ?? []).reduce(0) { sum, rel in
            let attributes = try? fm.attributesOfItem(atPath: path + "/" + rel)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else { return sum }
            return sum + ((attributes?[.size] as? Int) ?? 0)
        }
    }

    /// Every file below `path` with its contents, to show that a refused command changed nothing.
    static func snapshot(_ path: String) -> [String: Data] {
        var out: [String: Data] = [:]
        for rel in FileManager.default.subpaths(atPath: path) ?? [] {
            if let data = FileManager.default.contents(atPath: path + "/" + rel) { out[rel] = data }
        }
        return out
    }

    /// Problems that would make an HTML page fetch something: elements that load resources,
    /// `src`/`href`/`url(`/`@import`, and any http(s) URL inside a tag other than the SVG
    /// namespace name (an identifier, never fetched). URLs in text (a finding quoting a setting)
    /// are content, not references.
    static func externalReferences(in html: String) -> [String] {
        var problems: [String] = []
        let lower = html.lowercased()
        for needle in ["<script", "<link", "<img", "<iframe", "<object", "<embed", "<image", "<use", "@import", "url(", "src=", "href="]
        where lower.contains(needle) {
            problems.append(needle)
        }
        var search = lower.startIndex
        while let hit = lower.range(of: "http", range: search..<lower.endIndex) {
            search = hit.upperBound
            let before = lower[..<hit.lowerBound]
            let insideTag: Bool
            switch (before.lastIndex(of: "<"), before.lastIndex(of: ">")) {
            case (nil, _): insideTag = false
            case (.some, nil): insideTag = true
            case let (.some(open), .some(close)): insideTag = open > close
            }
            if insideTag && !before.hasSuffix("xmlns=\"") {
                problems.append(String(lower[hit.lowerBound...].prefix(60)))
            }
        }
        return problems
    }
}
