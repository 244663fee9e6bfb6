import AssetPackFormat
import Foundation

extension AssetPackManager {
    /// The device the manager chooses packs' variants for (docs/CLIENT.md, "Device variants"):
    /// the configuration's texture formats, and its memory and architecture or the system's.
    public nonisolated var deviceCapabilities: DeviceCapabilities { DeviceDetection.capabilities(configuration) }

    /// The name of the variant of `id` installed on this device (`default` for the default's
    /// file), as the catalog held names it; nil when the pack has no variants, is not installed,
    /// or the installed file is of a version the catalog no longer describes. In process only.
    public func installedVariant(ofAssetPackWithID id: String) -> String? {
        guard agent == nil, let installed = try? store.installedPack(id) else { return nil }
        return heldCatalog?.pack(withID: id)?.chosenVariant?.name(of: installed.digest)
    }
}
