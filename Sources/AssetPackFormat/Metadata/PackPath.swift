/// Rules for the relative paths that name files inside a pack and in the merged namespace.
public enum PackPath {
    public static let maximumLength = 4096

    /// Why a selector path from a manifest is unusable, or nil. `.` (the whole root) is allowed.
    public static func problemWithSelector(_ path: String) -> String? {
        if path.isEmpty { return "is empty" }
        if path.hasPrefix("/") { return "is absolute; selector paths are relative to the source root" }
        if path.utf8.contains(0) { return "contains a NUL byte" }
        if path.split(separator: "/").contains("..") { return "contains '..', which would escape the source root" }
        return nil
    }

    /// The selector path with `.` components and repeated or trailing slashes removed; "" for the root.
    public static func normalizedSelector(_ path: String) -> String {
        path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }

    /// Why a path read from a pack index is unsafe to use, or nil: it must be relative, non-empty,
    /// without empty, `.` or `..` components, without NUL or control characters, and not too long.
    public static func problemWithStoredPath(_ path: String) -> String? {
        if path.isEmpty { return "is empty" }
        if path.utf8.count > maximumLength { return "is longer than \(maximumLength) bytes" }
        if path.hasPrefix("/") { return "is absolute" }
        if path.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "contains a control character" }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            if component.isEmpty { return "has an empty component" }
            if component == "." || component == ".." { return "contains a '\(component)' component" }
        }
        return nil
    }

    /// Byte-wise ordering of UTF-8 paths: the order files take in a pack, independent of locale
    /// and of Unicode collation.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
