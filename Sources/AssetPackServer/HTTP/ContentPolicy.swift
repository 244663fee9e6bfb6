import AssetPackFormat

/// What the server says about a file by its name: its media type, how long caches may keep it,
/// and whether fault injection applies to it.
///
/// Pack and patch files (`*.pack`, `*.patch`) are content-addressed and never rewritten, so caches may keep them
/// forever (`immutable`). Everything else — in a repository that is `catalog.json`, the one
/// mutable file — may be cached for 60 seconds: a publish reaches clients behind a CDN within a
/// minute, and publish keeps the previous pack versions, so a client holding a catalog up to a
/// minute old still finds every pack it names. Kept root versions (`roots/N.root.json`) are
/// never rewritten either; `root.json` and `timestamp.json` are mutable.
///
/// Apple's self-hosted files (`apple/…`, `channels/NAME/apple/…`) live at mutable URLs: a pack's
/// archive keeps its URL (`/assets/<id>`) when its content changes, and the download manifest
/// names its size. Caches may store them but must check them again (by ETag, a cheap 304) before
/// every use (`no-cache`), so that a publish reaches devices at once and a cache never pairs a
/// new manifest with an old archive it still holds. Fault injection treats the archives as
/// pack files.
public struct ContentPolicy: Sendable {
    public static let immutableCacheControl = "public, max-age=31536000, immutable"
    public static let mutableCacheControl = "public, max-age=60"
    public static let revalidatedCacheControl = "public, no-cache"

    /// File name suffixes of immutable, content-addressed files.
    public var immutableSuffixes: [String] = [".pack", ".patch", ".root.json"]

    public init() {}

    public func isImmutable(_ path: String) -> Bool {
        immutableSuffixes.contains { path.hasSuffix($0) }
    }

    /// Whether fault injection applies to `path` without `--fault-catalog`: pack and patch
    /// files, kept root versions, and Apple Archives (`…/apple/assets/<id>`).
    public func isPackContent(_ path: String) -> Bool {
        isImmutable(path) || AppleHostingLayout.part(of: path) == "assets"
    }

    public func cacheControl(_ path: String) -> String {
        if isImmutable(path) { return Self.immutableCacheControl }
        return AppleHostingLayout.part(of: path) != nil ? Self.revalidatedCacheControl : Self.mutableCacheControl
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
