import AssetPackFormat
import Foundation

extension ChannelEditor {
    /// `assetpack rollback`: publishes, as the next (higher) catalog version of `channel`, the
    /// pack set of its catalog version `version`, read from the channel's history. Every pack
    /// file of that set must still be in the repository (the error lists those that are not);
    /// patch files that are gone are left out. Clients update back by delta, and none refuses the
    /// catalog as a rollback, since its version grows.
    public func rollback(to version: Int, channel: String?) throws -> ChannelChange {
        guard version >= 1 else { throw PublishError.invalidOption("catalog versions start at 1, found \(version)") }
        return try apply(to: channel) { current, catalogs, folder in
            let catalog = try Self.existing(current, channel: channel, repository: repository)
            guard version < catalog.version else {
                throw PublishError.invalidOption("\(ChannelName.describe(channel)) is at catalog version \(catalog.version): a rollback goes to an earlier version, not \(version)")
            }
            guard let old = try catalogs.historical(version, of: channel) else {
                throw PublishError.invalidOption("catalog version \(version) of \(ChannelName.describe(channel)) is not in its history (\(repository)/\(RepositoryCatalogs.historyPath(version, channel: channel)) is missing)")
            }
            var missing: [String] = []
            var packs: [CatalogPack] = []
            for var pack in old.packs {
                // The default's file and every device variant's.
                let files = [(pack.path, pack.size, pack.digest)] + (pack.variants ?? []).map { ($0.path, $0.size, $0.digest) }
                let gone = files.filter { path, size, digest in
                    let reader = try? RepositoryPackFile.reader(path, in: folder)
                    return reader?.fileSize != size || reader?.digest != digest
                }
                guard gone.isEmpty else {
                    missing.append("\(pack.id) v\(pack.version) (\(gone.map(\.0).joined(separator: ", ")))")
                    continue
                }
                let patches = (pack.patches ?? []).filter { folder.exists($0.path) }
                pack.patches = patches.isEmpty ? nil : patches
                packs.append(pack)
            }
            guard missing.isEmpty else {
                throw PublishError.io("cannot roll \(ChannelName.describe(channel)) back to catalog version \(version): the retention rule has deleted the pack file(s) of \(missing.joined(separator: ", ")); nothing was changed")
            }
            return (packs, nil)
        }
    }
}
