import AssetPackFormat
import AssetPackPackaging
import Foundation

/// Turns a Steam depot build into an asset-pack manifest, as `ba-package convert` does.
/// With the content root on disk, wildcards and exclusions are resolved to the exact files; without
/// it (a build machine's path) the manifest is written from the mappings alone, with warnings.
public enum DepotConverter {
    /// The manifest for `depot`; its `sourceRoot` is the depot's content root written relative to
    /// `base` (see `PortableSourceRoot`), the folder `assetpack package` will run from.
    public static func manifest(for depot: DepotBuild, assetPackID: String, policy: DownloadPolicy,
                                platforms: [Platform], language: String?,
                                base: String = FileManager.default.currentDirectoryPath) -> (manifest: AssetPackManifest?, diagnostics: [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        var selectors: [FileSelector] = []
        var isDirectory: ObjCBool = false
        let rootExists = FileManager.default.fileExists(atPath: depot.contentRoot, isDirectory: &isDirectory) && isDirectory.boolValue
        for m in depot.mappings where !(m.depotPath == "." || m.depotPath.isEmpty || m.depotPath == PathText.parent(m.localPath)) {
            diagnostics.append(Diagnostic(.warning, file: depot.file, at: SourceLocation(line: m.line, column: 1),
                "DepotPath \"\(m.depotPath)\" places files elsewhere in the depot; asset packs keep the path under the content root (\(m.localPath))"))
        }
        if rootExists {
            let files = resolvedFiles(depot, diagnostics: &diagnostics)
            selectors = files.map { FileSelector.file($0) }
        } else {
            diagnostics.append(Diagnostic(.warning, file: depot.file,
                "content root \"\(depot.contentRoot)\" does not exist here; the manifest is written from the mappings without checking them"))
            for m in depot.mappings {
                let at = SourceLocation(line: m.line, column: 1)
                let folder = PathText.parent(m.localPath)
                let name = PathText.lastComponent(m.localPath)
                if m.recursive {
                    selectors.append(.directory(folder))
                    if name != "*" {
                        diagnostics.append(Diagnostic(.warning, file: depot.file, at: at,
                            "LocalPath \"\(m.localPath)\" (recursive): the whole folder \"\(folder)\" is selected; the pattern \"\(name)\" could not be checked"))
                    }
                } else if hasWildcard(m.localPath) {
                    diagnostics.append(Diagnostic(.warning, file: depot.file, at: at,
                        "LocalPath \"\(m.localPath)\" has wildcards and cannot be resolved without the content root; it is left out"))
                } else {
                    selectors.append(.file(PathText.normalize(m.localPath)))
                }
            }
            for e in depot.exclusions {
                diagnostics.append(Diagnostic(.warning, file: depot.file, at: SourceLocation(line: e.line, column: 1),
                    "FileExclusion \"\(e.pattern)\" could not be applied without the content root"))
            }
        }
        selectors = unique(selectors)
        if selectors.isEmpty {
            diagnostics.append(Diagnostic(.error, file: depot.file, "the depot selects no files"))
            return (nil, diagnostics)
        }
        let manifest = AssetPackManifest(assetPackID: assetPackID, downloadPolicy: policy, fileSelectors: selectors,
                                         platforms: platforms, language: language,
                                         sourceRoot: PortableSourceRoot.path(for: depot.contentRoot, base: base))
        return (manifest, diagnostics)
    }

    static func hasWildcard(_ s: String) -> Bool { s.contains("*") || s.contains("?") }

    /// Drops repeats and selectors inside a selected directory (a pack selects each file once).
    private static func unique(_ list: [FileSelector]) -> [FileSelector] {
        let folders = list.compactMap { s -> String? in
            if case .directory(let d) = s { return PathText.normalize(d) }
            return nil
        }
        var seen: Set<String> = []
        return list.filter { s in
            let path = PathText.normalize(s.path)
            let isFolder: Bool
            if case .directory = s { isFolder = true } else { isFolder = false }
            let covered = folders.contains { f in f != path || !isFolder ? PathText.isInside(path, f) && f != path : false }
            return !covered && seen.insert(path).inserted
        }
    }

    /// Every file the mappings take, minus the exclusions, relative to the content root, sorted.
    private static func resolvedFiles(_ depot: DepotBuild, diagnostics: inout [Diagnostic]) -> [String] {
        let all = listFiles(depot.contentRoot)
        var chosen: Set<String> = []
        for m in depot.mappings {
            let folder = PathText.normalize(PathText.parent(m.localPath))
            let pattern = PathText.lastComponent(m.localPath)
            var matched = 0
            for f in all {
                let inFolder = folder == "." ? true : f.hasPrefix(folder + "/")
                guard inFolder else { continue }
                let rest = folder == "." ? f : String(f.dropFirst(folder.count + 1))
                if !m.recursive && rest.contains("/") { continue }
                if Wildcard.matches(pattern, PathText.lastComponent(rest)) { chosen.insert(f); matched += 1 }
            }
            if matched == 0 {
                diagnostics.append(Diagnostic(.warning, file: depot.file, at: SourceLocation(line: m.line, column: 1),
                                              "LocalPath \"\(m.localPath)\" matches no file under \(depot.contentRoot)"))
            }
        }
        for e in depot.exclusions {
            for f in chosen where e.pattern.contains("/") ? Wildcard.matches(e.pattern, f) : Wildcard.matches(e.pattern, PathText.lastComponent(f)) {
                chosen.remove(f)
            }
        }
        return chosen.sorted { PackPath.precedes($0, $1) }
    }

    private static func listFiles(_ root: String) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: root) else { return [] }
        var out: [String] = []
        while let p = e.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + p, isDirectory: &isDirectory), !isDirectory.boolValue { out.append(p) }
        }
        return out
    }
}
