import AssetPackFormat

enum SHA256Check {
    static func digest(_ bytes: [UInt8]) -> [UInt8] { SHA256Digest.hash(bytes).bytes }
}
