import Foundation

/// Path arithmetic on strings with `/` separators, without touching the file system.
enum PathText {
    /// `a/./b/../c` → `a/c`; keeps a leading `/`; `..` above a relative start is kept.
    static func normalize(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
            if part == "..", absolute { continue }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }

    /// Joins `relative` to `base` (unless `relative` is absolute) and normalizes.
    static func join(_ base: String, _ relative: String) -> String {
        if relative.hasPrefix("/") { return normalize(relative) }
        if relative.isEmpty { return normalize(base) }
        return normalize(base + "/" + relative)
    }

    /// The folder part: `a/b/c` → `a/b`, `c` → `.`.
    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// `path` relative to `root` when it lies inside it, else `path` itself. Both normalized absolute.
    static func relative(_ path: String, to root: String) -> String {
        if path == root { return "." }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// Whether `path` is `folder` or lies below it.
    static func isInside(_ path: String, _ folder: String) -> Bool {
        folder == "." || path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    /// An absolute, normalized version of `path` (relative paths resolve against the current directory).
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? normalize(path) : join(FileManager.default.currentDirectoryPath, path)
    }
}
