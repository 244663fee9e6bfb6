import Foundation

/// How converters write a manifest's `sourceRoot` so that it does not tie the manifest to one
/// machine. `assetpack package` resolves a relative `sourceRoot` against the current directory,
/// so converters write the content root relative to the folder `package` is expected to run
/// from — the `base`, by default the current directory when `convert` runs.
///
/// Both paths are compared after resolving symbolic links (as far as they exist), so `..` steps
/// mean the same thing to the kernel. The content root stays absolute only when it has no
/// sensible relative form: it shares no folder with the base but `/` (another mount or top-level
/// tree), or it is a Windows path (`D:/…`) from a build machine.
public enum PortableSourceRoot {
    /// The `sourceRoot` to write for `contentRoot` when `package` runs from `base`.
    public static func path(for contentRoot: String, base: String) -> String {
        if isWindowsPath(contentRoot) { return contentRoot }
        let root = physical(PathText.absolute(contentRoot))
        return relativeForm(of: root, from: physical(PathText.absolute(base))) ?? root
    }

    /// Whether `path(for:base:)` would give a relative path.
    public static func isRelative(_ sourceRoot: String) -> Bool {
        !sourceRoot.hasPrefix("/") && !isWindowsPath(sourceRoot)
    }

    /// `path` as seen from `base` (both absolute and normalized): `.`, `a/b`, `../c`; nil when the
    /// two share no folder but `/` and `base` is not `/` itself.
    static func relativeForm(of path: String, from base: String) -> String? {
        let p = path.split(separator: "/"), b = base.split(separator: "/")
        var common = 0
        while common < p.count, common < b.count, p[common] == b[common] { common += 1 }
        if common == 0 && !b.isEmpty { return nil }
        let parts = Array(repeating: "..", count: b.count - common) + p[common...].map(String.init)
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// `path` (absolute, normalized) with its longest existing prefix resolved through symbolic links.
    static func physical(_ path: String) -> String {
        var existing = path
        var rest: [String] = []
        while existing != "/" {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                return PathText.normalize(([String(cString: resolved)] + rest.reversed()).joined(separator: "/"))
            }
            rest.append(PathText.lastComponent(existing))
            existing = PathText.parent(existing)
        }
        return path
    }

    /// `C:/…` or `C:\…`: a drive-letter path, which has no form on this machine.
    static func isWindowsPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        return bytes.count >= 2 && bytes[1] == UInt8(ascii: ":") && (bytes[0] | 0x20) >= UInt8(ascii: "a") && (bytes[0] | 0x20) <= UInt8(ascii: "z")
    }
}
