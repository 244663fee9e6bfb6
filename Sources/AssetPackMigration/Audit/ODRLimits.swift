/// ODR's documented size limits (On-Demand Resources Guide, "Platform Sizes for On-Demand
/// Resources", table 4-1; App Store Connect Help, "On-demand resources size limits"). The audit
/// checks against the classic limits, which still apply to tvOS and to iOS apps that support
/// versions before 18; docs/AUDIT.md lists the iOS 18 values too.
public struct ODRLimit: Sendable, Equatable, Codable {
    public var name: String
    public var bytes: UInt64
    public var description: String
}

public enum ODRLimits {
    static let MB: UInt64 = 1_000_000
    static let GB: UInt64 = 1_000_000_000

    /// Ideal size of one tag (the guide's recommendation, not a limit).
    public static let idealTag = ODRLimit(name: "ideal tag", bytes: 64 * MB, description: "recommended largest tag")
    /// One tag / one asset pack after slicing.
    public static let tag = ODRLimit(name: "tag", bytes: 512 * MB, description: "largest tag (asset pack) after slicing")
    /// All initial-install tags together.
    public static let initialInstall = ODRLimit(name: "initial install tags", bytes: 2 * GB, description: "initial-install tags together")
    /// Initial-install and prefetched tags together.
    public static let initialAndPrefetch = ODRLimit(name: "initial install + prefetch", bytes: 4 * GB, description: "initial-install and prefetched tags together")
    /// Everything hosted on the App Store.
    public static let hosted = ODRLimit(name: "hosted", bytes: 20 * GB, description: "all on-demand resources hosted on the App Store")
    /// The number of asset packs Xcode may generate.
    public static let assetPackCount = 1000

    public static let all: [ODRLimit] = [idealTag, tag, initialInstall, initialAndPrefetch, hosted]
}
