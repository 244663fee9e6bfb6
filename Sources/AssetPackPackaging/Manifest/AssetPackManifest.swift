import AssetPackFormat
/// An asset pack manifest, in the JSON shape that Apple's `xcrun ba-package` reads.
///
/// ```json
/// { "assetPackID": "Tutorial",
///   "downloadPolicy": { "essential": { "installationEventTypes": ["firstInstallation"] } },
///   "fileSelectors": [ { "file": "Videos/Introduction.m4v" }, { "directory": "Textures/Tutorial" } ],
///   "platforms": ["iOS"], "language": "en-US", "sourceRoot": "Assets" }
/// ```
public struct AssetPackManifest: Sendable, Equatable, Codable {
    public var assetPackID: String
    public var downloadPolicy: DownloadPolicy
    public var fileSelectors: [FileSelector]
    public var platforms: [Platform]
    /// A BCP 47 tag (language, optional script, optional region), or nil for a pack in every language.
    public var language: String?
    /// Where selector paths resolve; relative values resolve against the current directory.
    public var sourceRoot: String?
    /// Custom information for the app (any JSON value), as canonical JSON text: carried into the
    /// pack and the catalog, and handed to the app as `AssetPack.userInfo`. Not read by Apple's
    /// `ba-package`.
    public var userInfo: String?
    /// Our extension (not read by Apple's tools): the conditions under which a device takes this
    /// manifest's pack instead of the default, the manifest of the same `assetPackID` without
    /// `variant`. nil for a default (or a pack without variants).
    public var variant: VariantConditions?

    public init(assetPackID: String, downloadPolicy: DownloadPolicy, fileSelectors: [FileSelector],
                platforms: [Platform], language: String? = nil, sourceRoot: String? = nil, userInfo: String? = nil,
                variant: VariantConditions? = nil) {
        self.variant = variant
        self.userInfo = userInfo
        self.assetPackID = assetPackID
        self.downloadPolicy = downloadPolicy
        self.fileSelectors = fileSelectors
        self.platforms = platforms
        self.language = language
        self.sourceRoot = sourceRoot
    }
}

/// One entry of `fileSelectors`: a single file, or a directory taken recursively.
public enum FileSelector: Sendable, Equatable, Codable {
    case file(String)
    case directory(String)

    public var path: String {
        switch self { case .file(let p), .directory(let p): return p }
    }

    private enum Key: String, CodingKey { case file, directory }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if let p = try c.decodeIfPresent(String.self, forKey: .file) { self = .file(p) }
        else { self = .directory(try c.decode(String.self, forKey: .directory)) }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .file(let p): try c.encode(p, forKey: .file)
        case .directory(let p): try c.encode(p, forKey: .directory)
        }
    }
}
