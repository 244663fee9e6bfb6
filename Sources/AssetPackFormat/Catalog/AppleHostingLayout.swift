/// Where a repository keeps what Apple devices read in Apple's self-hosted convention
/// (docs/FORMAT.md, "Apple's self-hosted layout"), and how a request in that convention names
/// those files. Publish writes them; `assetpack serve`, the documented nginx configuration and
/// the tests read them through these paths alone.
///
/// A channel's folder is `apple/` (the default channel) or `channels/NAME/apple/`:
/// - `manifest.json`: the download manifest of every pack, in the shape `ba-package
///   download-manifest create` writes;
/// - `manifests/<platform>.json` (`ios`, `macos`, `tvos`, `visionos`): the packs that platform
///   sees, so that a static host can answer `GET /manifest?platform=iOS` with a file;
/// - `assets/<pack ID>`: the pack's Apple Archive, no extension (the URL the manifest names).
///
/// Devices ask for `BASE/manifest?platform=…` and `BASE/assets/<pack ID>` (with ranges); for a
/// channel, `BASE/channels/NAME/manifest` and `BASE/channels/NAME/assets/<pack ID>`.
public enum AppleHostingLayout {
    /// The channel's Apple folder: `apple`, or `channels/NAME/apple`.
    public static func folder(channel: String?) -> String {
        guard let channel = ChannelName.normalized(channel) else { return "apple" }
        return "channels/\(channel)/apple"
    }

    public static func manifestPath(channel: String?) -> String { folder(channel: channel) + "/manifest.json" }

    /// The manifest of the packs `platform` sees.
    public static func manifestPath(channel: String?, platform: Platform) -> String {
        folder(channel: channel) + "/manifests/\(platform.rawValue.lowercased()).json"
    }

    public static func assetsFolder(channel: String?) -> String { folder(channel: channel) + "/assets" }

    public static func archivePath(channel: String?, id: String) -> String { assetsFolder(channel: channel) + "/" + id }

    /// For a repository-relative path inside a channel's Apple folder, what it is there: its
    /// first component below the folder (`manifest.json`, `manifests` or `assets`); nil for a
    /// path outside every Apple folder. Servers and uploads take their caching from it.
    public static func part(of relativePath: String) -> String? {
        var parts = relativePath.split(separator: "/", omittingEmptySubsequences: false)[...]
        if parts.count > 3, parts.first == "channels" { parts = parts.dropFirst(2) }
        guard parts.count >= 2, parts.first == "apple" else { return nil }
        return String(parts[parts.startIndex + 1])
    }

    /// The platform a `platform` query value names, compared without regard to case; nil for
    /// a value that names none (the whole manifest is then answered).
    public static func platform(named value: String) -> Platform? {
        Platform.allCases.first { $0.rawValue.lowercased() == value.lowercased() }
    }

    /// The repository file a request path in Apple's convention names, as decoded path segments:
    /// `manifest` → the channel's manifest (the platform's, when `platform` names one);
    /// `assets/ID` → the archive; both optionally under `channels/NAME/`. Nil for any other path.
    public static func file(for segments: [Substring], platform: String?) -> String? {
        var rest = segments[...]
        var channel: String?
        if rest.count >= 3, rest.first == "channels" {
            let name = String(rest[rest.startIndex + 1])
            guard ChannelName.problem(with: name) == nil else { return nil }
            channel = name
            rest = rest.dropFirst(2)
        }
        if rest.count == 1, rest.first == "manifest" {
            if let platform = platform.flatMap(Self.platform(named:)) { return manifestPath(channel: channel, platform: platform) }
            return manifestPath(channel: channel)
        }
        if rest.count == 2, rest.first == "assets", AssetPackID.problem(with: String(rest.last!)) == nil {
            return archivePath(channel: channel, id: String(rest.last!))
        }
        return nil
    }
}
