/// What the server says about a file by its name: its media type, how long caches may keep it,
/// and whether fault injection applies to it.
///
/// Pack and patch files (`*.pack`, `*.patch`) are content-addressed and never rewritten, so caches may keep them
/// forever (`immutable`). Everything else — in a repository that is `catalog.json`, the one
/// mutable file — may be cached for 60 seconds: a publish reaches clients behind a CDN within a
/// minute, and publish keeps the previous pack versions, so a client holding a catalog up to a
/// minute old still finds every pack it names. Kept root versions (`roots/N.root.json`) are
/// never rewritten either; `root.json` and `timestamp.json` are mutable.
public struct ContentPolicy: Sendable {
    public static let immutableCacheControl = "public, max-age=31536000, immutable"
    public static let mutableCacheControl = "public, max-age=60"

    /// File name suffixes of immutable, content-addressed files.
    public var immutableSuffixes: [String] = [".pack", ".patch", ".root.json"]

    public init() {}

    public func isImmutable(_ path: String) -> Bool {
        immutableSuffixes.contains { path.hasSuffix($0) }
    }

    public func cacheControl(_ path: String) -> String {
        isImmutable(path) ? Self.immutableCacheControl : Self.mutableCacheControl
    }

    public func contentType(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "application/octet-stream" }
        switch path[path.index(after: dot)...].lowercased() {
        case "json": return "application/json"
        case "txt", "md": return "text/plain; charset=utf-8"
        case "html": return "text/html; charset=utf-8"
        case "pem": return "application/x-pem-file"
        case "mobileconfig": return "application/x-apple-aspen-config"
        default: return "application/octet-stream"
        }
    }
}
