/// A Background Assets key found in a property list, with the line that names it.
public struct BackgroundAssetsKey: Sendable, Equatable, Codable {
    public var key: String
    public var value: PlistValue
    public var file: String
    public var line: Int?
    /// `BAInitialDownloadRestrictions` for the keys inside it; nil for top-level keys.
    public var parent: String?
}
