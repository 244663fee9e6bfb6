import AssetPackFormat

extension PackMetadata {
    /// The metadata a pack built from `manifest` records in its index.
    public init(_ manifest: AssetPackManifest) {
        self.init(assetPackID: manifest.assetPackID, downloadPolicy: manifest.downloadPolicy,
                  platforms: manifest.platforms, language: manifest.language, userInfo: manifest.userInfo)
    }
}
