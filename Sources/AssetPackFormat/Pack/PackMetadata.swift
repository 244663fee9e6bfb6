import Foundation

/// What a pack says about itself: the manifest's fields that matter after packaging.
/// Stored in the index as canonical JSON (sorted keys, no white space).
public struct PackMetadata: Sendable, Equatable, Codable {
    public var assetPackID: String
    public var downloadPolicy: DownloadPolicy
    public var platforms: [Platform]
    public var language: String?
    /// The manifest's `userInfo` as canonical JSON text (sorted keys, no white space); absent
    /// when the manifest has none. Apple's `AssetPack.userInfo`.
    public var userInfo: String?

    public init(assetPackID: String, downloadPolicy: DownloadPolicy, platforms: [Platform], language: String?, userInfo: String? = nil) {
        self.assetPackID = assetPackID
        self.downloadPolicy = downloadPolicy
        self.platforms = platforms
        self.language = language
        self.userInfo = userInfo
    }

    /// The bytes stored in the index: JSON with sorted keys and no white space.
    public func canonicalJSON() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try! encoder.encode(self))
    }
}
