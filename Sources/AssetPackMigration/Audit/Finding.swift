/// Something the audit wants a person to look at.
public struct Finding: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case parseError = "parse-error"
        case undefinedTag = "undefined-tag"
        case tagCaseMismatch = "tag-case-mismatch"
        case unrequestedTag = "unrequested-tag"
        case knownTagWithoutContent = "known-tag-without-content"
        case tagMissingFromKnownAssetTags = "tag-missing-from-known-asset-tags"
        case undefinedTagInBuildSetting = "undefined-tag-in-build-setting"
        case dynamicTags = "dynamic-tags"
        case odrLimitExceeded = "odr-limit-exceeded"
        case selfHostedODR = "self-hosted-odr"
        case missingDeploymentTarget = "missing-deployment-target"
        case noReplacement = "no-replacement"
        case macCatalystNominal = "mac-catalyst-nominal"
        case appleHostingWithOtherKeys = "ba-apple-hosting-with-other-keys"
        case appleHostingWithoutManagedPacks = "ba-apple-hosting-without-managed-packs"
        case managedPacksWithoutAppGroup = "ba-managed-packs-without-app-group"
        case managedPacksBelowDeploymentTarget = "ba-managed-packs-below-26"
    }

    public enum Severity: String, Sendable, Codable { case error, warning, note }

    public var kind: Kind
    public var severity: Severity
    public var message: String
    public var file: String?
    public var line: Int?
    public var column: Int?

    public init(_ kind: Kind, _ severity: Severity, _ message: String, file: String?, line: Int? = nil, column: Int? = nil) {
        self.kind = kind
        self.severity = severity
        self.message = message
        self.file = file
        self.line = line
        self.column = column
    }
}
