import Foundation

/// Which Background Assets configuration a target can adopt, decided by platform and deployment target.
public enum MigrationPath: String, Sendable, Codable, CaseIterable {
    /// Managed asset packs (Apple-hosted or self-hosted): deployment target 26.0 or later.
    case managed
    /// Unmanaged Background Assets with your own manifest and downloader extension.
    case unmanaged
    /// Below the Background Assets floor: keep ODR until the deployment target rises.
    case stayOnODR = "stay-on-odr"
    /// watchOS: ODR is deprecated there and Background Assets is not available.
    case noReplacement = "no-replacement"
    /// No deployment target or platform could be read.
    case unknown

    /// The lowest version with managed packs, on every platform that has Background Assets.
    public static let managedMinimum = OSVersion(26, 0)

    /// The lowest version with the unmanaged API, per platform.
    public static let unmanagedMinimum: [BuildPlatform: OSVersion] = [
        .iOS: OSVersion(16, 1), .macOS: OSVersion(13, 0), .tvOS: OSVersion(18, 4), .visionOS: OSVersion(2, 4),
    ]

    public static func decide(platform: BuildPlatform?, deploymentTarget: String?) -> MigrationPath {
        guard let platform else { return .unknown }
        if platform == .watchOS { return .noReplacement }
        guard let d = deploymentTarget.flatMap(OSVersion.init(parsing:)) else { return .unknown }
        if d >= managedMinimum { return .managed }
        if let floor = unmanagedMinimum[platform], d >= floor { return .unmanaged }
        return .stayOnODR
    }
}

/// An Apple platform as the build settings name it (`SDKROOT`, `*_DEPLOYMENT_TARGET`).
public enum BuildPlatform: String, Sendable, Codable, CaseIterable {
    case iOS, macOS, tvOS, watchOS, visionOS

    /// From an `SDKROOT` or `SUPPORTED_PLATFORMS` word (`iphoneos`, `appletvsimulator`, `xros`, …).
    public init?(sdk: String) {
        let s = sdk.lowercased()
        if s.hasPrefix("iphone") { self = .iOS }
        else if s.hasPrefix("appletv") { self = .tvOS }
        else if s.hasPrefix("watch") { self = .watchOS }
        else if s.hasPrefix("xr") { self = .visionOS }
        else if s.hasPrefix("macosx") { self = .macOS }
        else { return nil }
    }

    /// The build setting holding this platform's deployment target.
    public var deploymentTargetSetting: String {
        switch self {
        case .iOS: return "IPHONEOS_DEPLOYMENT_TARGET"
        case .macOS: return "MACOSX_DEPLOYMENT_TARGET"
        case .tvOS: return "TVOS_DEPLOYMENT_TARGET"
        case .watchOS: return "WATCHOS_DEPLOYMENT_TARGET"
        case .visionOS: return "XROS_DEPLOYMENT_TARGET"
        }
    }
}

/// A dotted version number compared component by component (`16.1` < `16.10` < `17`).
public struct OSVersion: Sendable, Comparable, Equatable {
    public var components: [Int]

    public init(_ components: Int...) { self.components = components }

    public init?(parsing text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ".")
        guard !parts.isEmpty else { return nil }
        var c: [Int] = []
        for p in parts { guard let n = Int(p), n >= 0 else { return nil }; c.append(n) }
        components = c
    }

    public static func < (a: OSVersion, b: OSVersion) -> Bool {
        for i in 0..<max(a.components.count, b.components.count) {
            let x = i < a.components.count ? a.components[i] : 0
            let y = i < b.components.count ? b.components[i] : 0
            if x != y { return x < y }
        }
        return false
    }

    public static func == (a: OSVersion, b: OSVersion) -> Bool { !(a < b) && !(b < a) }
}
