/// How `AssetPackManager.localSize(ofAssetPackWithID:calculationMethod:)` counts an installed
/// pack's bytes (Apple's `SizeCalculationMethod`).
public enum SizeCalculationMethod: Int, Sendable, Hashable {
    /// The bytes of the files' contents.
    case logical = 0
    /// The bytes the file system allocated for them (whole blocks).
    case allocated = 1
}
