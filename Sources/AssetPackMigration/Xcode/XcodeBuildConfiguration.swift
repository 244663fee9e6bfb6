/// An `XCBuildConfiguration`: a name (Debug, Release…), its settings, and the `.xcconfig` it is based on.
public struct XcodeBuildConfiguration: Sendable {
    public var id: String
    public var name: String
    /// The settings written in the pbxproj, each with the line of its key.
    public var settings: [String: BuildSetting]
    /// The absolute path of the base configuration file (`baseConfigurationReference`), if any.
    public var baseConfigurationPath: String?
}

/// A target (`PBXNativeTarget`, `PBXAggregateTarget`, `PBXLegacyTarget`) and the parts the audit needs.
public struct XcodeTarget: Sendable {
    public var id: String
    public var name: String
    public var isa: String
    public var productType: String?
    public var configurations: [XcodeBuildConfiguration]
    /// The `PBXBuildFile` IDs in the target's build phases.
    public var buildFileIDs: [String]
    /// The `PBXFileSystemSynchronizedRootGroup` IDs the target includes.
    public var synchronizedGroupIDs: [String]
    /// The line of the target's `isa` key in the pbxproj.
    public var line: Int
}
