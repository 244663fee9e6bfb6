import AssetPackFormat

/// The result of `assetpack audit`, in the JSON shape docs/AUDIT.md documents. Every `file` is
/// relative to the audited folder. Fields beyond the documented stable ones may be added.
public struct AuditReport: Sendable, Codable, Equatable {
    /// The version of this JSON shape.
    public var formatVersion = 1
    public var projects: [ProjectSummary] = []
    public var apiUses: [ODRAPIUse] = []
    public var tags: [TagReport] = []
    public var assetPacks: [AssetPackPlan] = []
    public var buildSettings: [BuildSettingReport] = []
    public var targets: [TargetReport] = []
    public var backgroundAssetsKeys: [BackgroundAssetsKey] = []
    public var findings: [Finding] = []
    /// The limits the sizes were compared with.
    public var limits: [ODRLimit] = ODRLimits.all

    public init() {}
}

/// An Xcode project the audit read (or failed to read).
public struct ProjectSummary: Sendable, Codable, Equatable {
    public var path: String
    public var targets: Int
    public var error: String?
}

/// A location in a file (relative path, 1-based line).
public struct FileLine: Sendable, Codable, Equatable, Hashable {
    public var file: String
    public var line: Int?
    /// For definitions: `assetCatalog`, `assetCatalogXcode7`, `buildFileAssetTags`,
    /// `synchronizedFolder`, `knownAssetTags`; for requests: the API symbol.
    public var via: String?
    /// For definitions with content: the tagged file or folder.
    public var content: String?
}

/// One ODR tag: where it is defined, where code requests it, and the bytes behind it.
public struct TagReport: Sendable, Codable, Equatable {
    public var name: String
    public var definedAt: [FileLine]
    public var requestedAt: [FileLine]
    /// The bytes on disk of every file and folder carrying the tag (each counted once).
    public var bytes: UInt64
    /// `initialInstall`, `prefetch` or `onDemand`, from the ON_DEMAND_RESOURCES_* settings.
    public var installPolicy: String
}

/// The asset pack a set of tags becomes: ODR made one pack per combination of tags.
public struct AssetPackPlan: Sendable, Codable, Equatable {
    public var assetPackID: String
    public var tags: [String]
    /// The tagged files and folders, relative to the audited folder.
    public var contents: [String]
    public var bytes: UInt64
    /// `essential`, `prefetch` or `onDemand`.
    public var downloadPolicy: String
    /// The platforms of the targets that build the content (Background Assets platforms only).
    public var platforms: [String]
    /// The project the content belongs to.
    public var project: String?
}

/// An ODR build setting's effective value in one target and configuration, and where it was set.
public struct BuildSettingReport: Sendable, Codable, Equatable {
    public var name: String
    public var value: String
    public var target: String
    public var configuration: String
    public var file: String
    public var line: Int
    public var project: String
}

/// A target's platform, deployment target (and where it was set) and migration path.
public struct TargetReport: Sendable, Codable, Equatable {
    public var name: String
    public var platform: String?
    public var deploymentTarget: String?
    public var file: String
    public var line: Int?
    public var migrationPath: MigrationPath
    public var project: String
    public var configuration: String?
    public var productType: String?
    /// Whether the target also builds for Mac Catalyst (where ODR calls were always ignored).
    public var macCatalyst: Bool
}
