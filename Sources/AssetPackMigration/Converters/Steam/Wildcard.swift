import Foundation

/// Steam's wildcards: `*` and `?`, matched with fnmatch(3), ignoring case as Steam (on Windows) does.
enum Wildcard {
    static func matches(_ pattern: String, _ name: String) -> Bool {
        fnmatch(pattern, name, caseFold) == 0
    }

    /// FNM_CASEFOLD, which the Glibc module does not export under that name on every system.
    private static let caseFold: Int32 = 1 << 4
}
