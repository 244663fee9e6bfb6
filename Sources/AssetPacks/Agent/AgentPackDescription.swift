import AssetPackFormat
import Foundation

/// A pack as the agent's API describes it (docs/AGENT.md): the catalog's description, where the
/// pack stands on the agent's root, and what the agent's queue holds for it.
public struct AgentPackDescription: Sendable, Codable, Equatable {
    public var id: String
    public var version: Int
    public var downloadSize: UInt64
    public var installSize: UInt64
    public var language: String?
    public var downloadPolicy: DownloadPolicy
    public var platforms: [Platform]
    /// `AssetPack.Status` by name (`downloadAvailable`, `upToDate`, `downloading`, …).
    public var status: [String]
    /// The agent's request for the pack, if one is queued or stopped: `queued`, `paused` or `failed`.
    public var request: String?
    /// Why the last request failed, when `request` is `failed`.
    public var error: String?
    /// The version installed on the agent's root, if one is (absent from older agents).
    public var installedVersion: Int?
    /// The pack's `userInfo` (JSON from its manifest) in base64, if it has one (absent from
    /// older agents).
    public var userInfo: String?
    /// Where the bytes of the agent's latest install of the pack came from (`GET /v1/packs/ID`
    /// only; absent when the agent has not installed it since it started, and from older agents).
    public var sources: AssetPackSources?
    /// For a pack with device variants: the variant the agent's manager chose for its device and
    /// why (`AssetPack.variant`; absent for packs without variants, and from older agents).
    public var variant: VariantChoice?

    /// The description of `pack` with where it stands and what the queue holds for it.
    public init(_ pack: AssetPack, status: AssetPack.Status, request: String? = nil, error: String? = nil, installedVersion: Int? = nil) {
        id = pack.id
        version = pack.version
        downloadSize = pack.downloadBytes
        installSize = pack.installSize
        language = pack.languageTag
        userInfo = pack.userInfo?.base64EncodedString()
        downloadPolicy = pack.downloadPolicy
        platforms = pack.platforms
        self.status = status.names
        self.request = request
        self.error = error
        self.installedVersion = installedVersion
        variant = pack.variant
    }

    /// The pack as the in-process manager would describe it.
    public var assetPack: AssetPack {
        var pack = AssetPack(id: id, version: version, downloadSize: downloadSize, installSize: installSize, language: language,
                             downloadPolicy: downloadPolicy, platforms: platforms)
        pack.userInfo = userInfo.flatMap { Data(base64Encoded: $0) }
        pack.variant = variant
        return pack
    }

    /// `status` as the option set (unknown names are ignored).
    public var assetPackStatus: AssetPack.Status {
        AssetPack.Status.names.reduce(into: AssetPack.Status()) { set, entry in if status.contains(entry.1) { set.insert(entry.0) } }
    }
}

extension AssetPack {
    /// A pack described field by field (from the agent's API rather than a catalog).
    init(id: String, version: Int, downloadSize: UInt64, installSize: UInt64, language: String?,
         downloadPolicy: DownloadPolicy, platforms: [Platform]) {
        self.id = id
        self.version = version
        self.downloadSize = Int(clamping: downloadSize)
        self.installSize = installSize
        self.languageTag = language
        self.downloadPolicy = downloadPolicy
        self.platforms = platforms
    }
}
