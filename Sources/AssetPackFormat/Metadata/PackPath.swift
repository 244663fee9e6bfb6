import Foundation

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
        var path = path
        return path.withUTF8 { problemWithStoredPath($0) }
    }

    /// `problemWithStoredPath` of a path's UTF-8 bytes, read in place.
    public static func problemWithStoredPath(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if bytes.isEmpty { return "is empty" }
        if bytes.count > maximumLength { return "is longer than \(maximumLength) bytes" }
        if bytes[0] == 0x2F { return "is absolute" }
        // One pass: a control character anywhere is the reason given, else the first bad
        // component (between slashes).
        var component: String?
        var start = 0
        for end in 0..<bytes.count {
            let byte = bytes[end]
            if byte < 0x20 || byte == 0x7F { return "contains a control character" }
            if byte == 0x2F {
                if component == nil { component = problem(bytes, start, end) }
                start = end + 1
            }
        }
        return component ?? problem(bytes, start, bytes.count)
    }

    /// Why the component `bytes[start..<end]` of a stored path is unusable, or nil.
    private static func problem(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String? {
        switch end - start {
        case 0: return "has an empty component"
        case 1 where bytes[start] == 0x2E: return "contains a '.' component"
        case 2 where bytes[start] == 0x2E && bytes[start + 1] == 0x2E: return "contains a '..' component"
        default: return nil
        }
    }

    /// The byte-wise order of two paths' UTF-8 bytes (`precedes`): negative when `a` comes
    /// first, 0 when they are equal, positive when `b` does.
    public static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(a.count, b.count)
        let head = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
        return head != 0 ? Int(head) : a.count - b.count
    }

    /// Byte-wise ordering of UTF-8 paths: the order files take in a pack, independent of locale
    /// and of Unicode collation.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        // Native strings lend their UTF-8 storage without a copy; others are compared byte by byte.
        let fast: Bool?? = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in compare(x, y) < 0 }
        }
        if let fast, let fast { return fast }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
