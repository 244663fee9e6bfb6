import AssetPackFormat
import AssetPackPackaging

/// One problem `publish` found before writing anything.
public struct LintFinding: Sendable, Equatable, CustomStringConvertible {
    /// The rules, named as messages show them (`error: [path-collision] …`).
    public enum Rule: String, Sendable, CaseIterable {
        case duplicateID = "duplicate-id"
        case pathCollision = "path-collision"
        case variantFiles = "variant-files"
        case variantDefault = "variant-default"
        case variantConditions = "variant-conditions"
        case variantAlone = "variant-alone"
        case primaryLanguage = "primary-language"
        case sharedFile = "shared-file"
        case appleHostingSize = "apple-hosting-size"
        case applePackCount = "apple-pack-count"
        case downloadAllowance = "download-allowance"
        case essentialDownloadAllowance = "essential-download-allowance"
        case maxInstallSize = "max-install-size"
        case essentialMaxInstallSize = "essential-max-install-size"
    }

    public var severity: Diagnostic.Severity
    public var rule: Rule
    public var message: String

    public init(_ severity: Diagnostic.Severity, _ rule: Rule, _ message: String) {
        self.severity = severity
        self.rule = rule
        self.message = message
    }

    public var description: String { "\(severity.rawValue): [\(rule.rawValue)] \(message)" }
}

extension Array where Element == LintFinding {
    public var hasErrors: Bool { contains { $0.severity == .error } }
}

/// Which checks `publish` runs beyond the ones it always runs.
public struct LintOptions: Sendable {
    /// The app's primary language: every localized pack needs a variant in it (`en` matches
    /// `en` and `en-*`).
    public var primaryLanguage = "en"
    /// Apple's hosting limits: 200 GB compressed in all (each pack's largest version), 100 packs.
    public var appleLimits = false
    /// Compressed bytes of prefetch packs (Apple's BADownloadAllowance: initial, non-essential).
    public var downloadAllowance: UInt64?
    /// Compressed bytes of essential packs (BAEssentialDownloadAllowance).
    public var essentialDownloadAllowance: UInt64?
    /// Uncompressed bytes of prefetch packs (BAMaxInstallSize: initial, non-essential).
    public var maxInstallSize: UInt64?
    /// Uncompressed bytes of essential packs (BAEssentialMaxInstallSize).
    public var essentialMaxInstallSize: UInt64?
    /// `--strict`: warnings (such as shared-file) stop the publish too.
    public var treatWarningsAsErrors = false

    public init() {}

    /// Whether a check needs the packs' compressed sizes, that is, needs them built.
    public var needsCompressedSizes: Bool { appleLimits || downloadAllowance != nil || essentialDownloadAllowance != nil }
}

/// Apple's hosting limits for asset packs.
public enum AppleLimits {
    /// 200 GB compressed per app, counting each pack's largest version.
    public static let totalCompressedBytes: UInt64 = 200_000_000_000
    /// App Store Connect Help says 100 asset packs per app; one WWDC session said 200. We enforce 100.
    public static let packCount = 100
}
