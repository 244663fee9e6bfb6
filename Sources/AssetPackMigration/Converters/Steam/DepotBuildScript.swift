import AssetPackFormat
import AssetPackPackaging
import Foundation

/// One `FileMapping` block of a depot build script.
public struct DepotFileMapping: Sendable, Equatable {
    /// `LocalPath` with `\` turned into `/`; may hold `*` and `?` wildcards.
    public var localPath: String
    public var depotPath: String
    public var recursive: Bool
    public var line: Int
}

/// A Steam depot build (`DepotBuildConfig` / `DepotBuild`): where its content is and what it takes.
public struct DepotBuild: Sendable {
    public var depotID: String?
    /// The script that described it (as named on the command line or in the app build).
    public var file: String
    /// `ContentRoot` resolved against the script's folder (a Windows path stays as written).
    public var contentRoot: String
    public var mappings: [DepotFileMapping]
    public var exclusions: [(pattern: String, line: Int)]
}

/// A Steam build script read from disk: a single depot script, or an app build with several depots.
public struct SteamBuildScript: Sendable {
    public var depots: [DepotBuild] = []
    public var isAppBuild = false
    /// Things read but not honoured (`#include`, `#base`), as warnings.
    public var warnings: [Diagnostic] = []

    /// Reads `path`; depot scripts an app build names are read relative to it.
    public static func load(path: String) throws(DiagnosticError) -> SteamBuildScript {
        var script = SteamBuildScript()
        let doc = try document(path)
        script.noteDirectives(doc, file: path)
        if let app = doc.entries.first(where: { $0.key.caseInsensitiveCompare("AppBuild") == .orderedSame }) {
            script.isAppBuild = true
            let folder = PathText.parent(PathText.absolute(path))
            let appRoot = app.child("ContentRoot")?.string.map { resolve($0, against: folder) } ?? folder
            guard let depots = app.child("Depots"), !depots.children.isEmpty else {
                throw DiagnosticError(Diagnostic(.error, file: path, at: app.location, "AppBuild has no Depots block"))
            }
            for d in depots.children {
                if let reference = d.string {
                    let depotPath = PathText.join(folder, reference.replacingOccurrences(of: "\\", with: "/"))
                    let depotDoc = try document(depotPath, shownAs: depotPath)
                    script.noteDirectives(depotDoc, file: depotPath)
                    guard let config = depotConfig(in: depotDoc) else {
                        throw DiagnosticError(Diagnostic(.error, file: depotPath, "no DepotBuildConfig block"))
                    }
                    script.depots.append(depot(config, id: d.key, file: depotPath, folder: PathText.parent(depotPath), inheritedRoot: appRoot))
                } else {
                    script.depots.append(depot(d, id: d.key, file: path, folder: folder, inheritedRoot: appRoot))
                }
            }
        } else if let config = depotConfig(in: doc) {
            let folder = PathText.parent(PathText.absolute(path))
            script.depots.append(depot(config, id: config.child("DepotID")?.string, file: path, folder: folder, inheritedRoot: folder))
        } else {
            throw DiagnosticError(Diagnostic(.error, file: path, "neither a DepotBuildConfig nor an AppBuild block"))
        }
        return script
    }

    private static func document(_ path: String, shownAs: String? = nil) throws(DiagnosticError) -> KeyValuesDocument {
        let name = shownAs ?? path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DiagnosticError(Diagnostic(.error, file: name, "cannot read the file"))
        }
        do {
            return try KeyValuesParser.parse([UInt8](data))
        } catch {
            throw DiagnosticError(Diagnostic(.error, file: name, at: error.location, error.message))
        }
    }

    private mutating func noteDirectives(_ doc: KeyValuesDocument, file: String) {
        for d in doc.directives {
            warnings.append(Diagnostic(.warning, file: file, at: d.location,
                                       "\(d.name) \"\(d.argument)\" is not supported: the included file is not read"))
        }
    }

    private static func depotConfig(in doc: KeyValuesDocument) -> KeyValuesNode? {
        doc.entries.first { entry in
            ["DepotBuildConfig", "DepotBuild"].contains { entry.key.caseInsensitiveCompare($0) == .orderedSame }
        }
    }

    private static func depot(_ node: KeyValuesNode, id: String?, file: String, folder: String, inheritedRoot: String) -> DepotBuild {
        let root = node.child("ContentRoot")?.string.map { resolve($0, against: folder) } ?? inheritedRoot
        let mappings = node.all("FileMapping").map { m in
            DepotFileMapping(localPath: (m.child("LocalPath")?.string ?? "*").replacingOccurrences(of: "\\", with: "/"),
                             depotPath: (m.child("DepotPath")?.string ?? ".").replacingOccurrences(of: "\\", with: "/"),
                             recursive: m.child("recursive")?.string == "1", line: m.location.line)
        }
        let exclusions = node.all("FileExclusion").compactMap { e in e.string.map { ($0.replacingOccurrences(of: "\\", with: "/"), e.location.line) } }
        return DepotBuild(depotID: id, file: file, contentRoot: root, mappings: mappings, exclusions: exclusions)
    }

    /// `ContentRoot` against the script's folder; `C:\…` stays as written (with `/`).
    static func resolve(_ root: String, against folder: String) -> String {
        let r = root.replacingOccurrences(of: "\\", with: "/")
        let bytes = Array(r.utf8)
        if bytes.count >= 2, bytes[1] == UInt8(ascii: ":") { return r.hasSuffix("/") && r.count > 3 ? String(r.dropLast()) : r }
        return PathText.join(folder, r)
    }
}

/// A `Diagnostic` thrown as an error.
public struct DiagnosticError: Error, Sendable, CustomStringConvertible {
    public var diagnostic: Diagnostic
    public init(_ d: Diagnostic) { diagnostic = d }
    public var description: String { diagnostic.description }
}
