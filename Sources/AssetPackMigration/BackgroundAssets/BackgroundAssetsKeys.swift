/// The Info.plist keys of Background Assets, and the rules Apple states for combining them.
public enum BackgroundAssetsKeys {
    /// Top-level keys.
    public static let topLevel: [String] = [
        "BAManifestURL", "BAInitialDownloadRestrictions", "BAMaxInstallSize", "BAEssentialMaxInstallSize",
        "BAAppGroupID", "BAHasManagedAssetPacks", "BAUsesAppleHosting",
    ]
    /// Keys inside `BAInitialDownloadRestrictions`.
    public static let downloadRestrictions: [String] = ["BADownloadAllowance", "BAEssentialDownloadAllowance", "BADownloadDomainAllowList"]

    /// The keys Apple says to set, and the only ones to set, for Apple-hosted managed packs.
    public static let appleHostedSet: Set<String> = ["BAAppGroupID", "BAHasManagedAssetPacks", "BAUsesAppleHosting"]
}
