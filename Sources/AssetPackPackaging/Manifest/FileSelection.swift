import AssetPackFormat
import Foundation

/// A file chosen by a manifest: where it is on disk and what it is called inside the pack.
public struct SelectedFile: Sendable, Equatable {
    public var packPath: String
    public var sourcePath: String
    public var size: UInt64
    /// Permission bits (0o7777 mask).
    public var mode: UInt32
}

/// Resolves a manifest's file selectors against the source root on disk: every selected path
/// must exist, stay inside the root (also through symlinks), be selected once, and be a regular
/// file or a directory of them.
public struct FileSelection {
    private var diagnostics: [Diagnostic] = []
    private let manifestFile: String
    private let root: String
    private let realRoot: String
    private var chosenBy: [String: Int] = [:]
    private var files: [SelectedFile] = []

    /// The folder selector paths resolve against: `sourceRoot` (relative to `baseDirectory`) or
    /// `baseDirectory` itself, which defaults to the current directory as with `ba-package`.
    public static func sourceRoot(of manifest: AssetPackManifest, baseDirectory: String) -> String {
        guard let s = manifest.sourceRoot else { return baseDirectory }
        return s.hasPrefix("/") ? s : baseDirectory + "/" + s
    }

    /// Selects the files of `manifest`; files are in pack order (byte-wise by pack path).
    public static func resolve(_ manifest: AssetPackManifest, manifestFile: String,
                               baseDirectory: String = FileManager.default.currentDirectoryPath)
        -> (files: [SelectedFile], diagnostics: [Diagnostic]) {
        let root = sourceRoot(of: manifest, baseDirectory: baseDirectory)
        guard let realRoot = realPath(root), isDirectory(realRoot) else {
            return ([], [Diagnostic(.error, file: manifestFile, keyPath: manifest.sourceRoot == nil ? "" : "sourceRoot",
                                    "source root \"\(root)\" is not an existing directory")])
        }
        var s = FileSelection(manifestFile: manifestFile, root: root, realRoot: realRoot)
        for (i, selector) in manifest.fileSelectors.enumerated() { s.select(selector, index: i) }
        if s.files.isEmpty && !s.diagnostics.hasErrors {
            s.diagnostics.append(Diagnostic(.error, file: manifestFile, keyPath: "fileSelectors",
                                            "the selectors select no files; a pack needs at least one"))
        }
        s.warnAboutCaseCollisions()
        s.files.sort { PackPath.precedes($0.packPath, $1.packPath) }
        return (s.files, s.diagnostics)
    }

    private init(manifestFile: String, root: String, realRoot: String) {
        self.manifestFile = manifestFile
        self.root = root
        self.realRoot = realRoot
    }

    private mutating func fail(_ index: Int, _ kind: String, _ message: String) {
        diagnostics.append(Diagnostic(.error, file: manifestFile, keyPath: "fileSelectors[\(index)].\(kind)", message))
    }

    private func inside(_ real: String) -> Bool { real == realRoot || real.hasPrefix(realRoot == "/" ? "/" : realRoot + "/") }

    private mutating func select(_ selector: FileSelector, index: Int) {
        let kind: String
        if case .file = selector { kind = "file" } else { kind = "directory" }
        let packPath = PackPath.normalizedSelector(selector.path)
        let diskPath = packPath.isEmpty ? root : root + "/" + packPath
        var st = stat()
        guard lstat(diskPath, &st) == 0 else {
            fail(index, kind, "no such \(kind) \"\(selector.path)\" (looked for \(diskPath))")
            return
        }
        guard let real = Self.realPath(diskPath), inside(real) else {
            fail(index, kind, "\"\(selector.path)\" resolves outside the source root \(root) (through a symlink)")
            return
        }
        switch selector {
        case .file:
            if Self.isDirectory(real) {
                fail(index, kind, "\"\(selector.path)\" is a directory; select it with {\"directory\": …}")
            } else {
                addFile(packPath: packPath, real: real, index: index, kind: kind)
            }
        case .directory:
            guard Self.isDirectory(real) else {
                fail(index, kind, "\"\(selector.path)\" is not a directory; select it with {\"file\": …}")
                return
            }
            var visited: Set<String> = [real]
            walk(directory: real, packPrefix: packPath, index: index, visited: &visited)
        }
    }

    private mutating func walk(directory: String, packPrefix: String, index: Int, visited: inout Set<String>) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted(by: PackPath.precedes)
        } catch {
            fail(index, "directory", "cannot list \(directory): \(describe(error))")
            return
        }
        for name in names {
            let packPath = packPrefix.isEmpty ? name : packPrefix + "/" + name
            let entry = directory + "/" + name
            var st = stat()
            guard lstat(entry, &st) == 0 else { continue }
            var real = entry
            if (st.st_mode & S_IFMT) == S_IFLNK {
                guard let r = Self.realPath(entry), inside(r) else {
                    fail(index, "directory", "\"\(packPath)\" is a symlink that leads outside the source root \(root)")
                    continue
                }
                real = r
            }
            if Self.isDirectory(real) {
                guard visited.insert(real).inserted else {
                    fail(index, "directory", "\"\(packPath)\" is a symlink loop back to a directory already selected")
                    continue
                }
                walk(directory: real, packPrefix: packPath, index: index, visited: &visited)
                visited.remove(real)
            } else {
                addFile(packPath: packPath, real: real, index: index, kind: "directory")
            }
        }
    }

    private mutating func addFile(packPath: String, real: String, index: Int, kind: String) {
        var st = stat()
        guard stat(real, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            fail(index, kind, "\"\(packPath)\" is not a regular file (devices, sockets and pipes cannot be packed)")
            return
        }
        guard access(real, R_OK) == 0 else {
            fail(index, kind, "\"\(packPath)\" is not readable: \(String(cString: strerror(errno)))")
            return
        }
        if let problem = PackPath.problemWithStoredPath(packPath) {
            fail(index, kind, "\"\(packPath)\" cannot be a pack path: it \(problem)")
            return
        }
        if let first = chosenBy[packPath] {
            fail(index, kind, "\"\(packPath)\" is already selected by fileSelectors[\(first)]; each file may be selected once")
            return
        }
        chosenBy[packPath] = index
        files.append(SelectedFile(packPath: packPath, sourcePath: real, size: UInt64(st.st_size), mode: UInt32(st.st_mode) & 0o7777))
    }

    /// Apple file systems are case-insensitive by default: paths that differ only in case would
    /// land on the same file there.
    private mutating func warnAboutCaseCollisions() {
        var seen: [String: String] = [:]
        for f in files {
            let folded = f.packPath.lowercased()
            if let other = seen[folded] {
                diagnostics.append(Diagnostic(.warning, file: manifestFile, keyPath: "fileSelectors",
                                              "\"\(f.packPath)\" and \"\(other)\" differ only in case and collide on case-insensitive file systems"))
            } else { seen[folded] = f.packPath }
        }
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}
