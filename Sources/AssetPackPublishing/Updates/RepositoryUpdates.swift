import AssetPackFormat
import Foundation

/// Update sizes of a repository as it stands (`assetpack diff`, and the summary `publish`
/// prints): for each pack, from each version whose file the repository keeps to the current
/// one (or to `to`), read from the pack files, the catalog and the patch tables it lists.
public enum RepositoryUpdates {
    /// - Parameters:
    ///   - from: only from this pack version; nil for every kept version.
    ///   - to: to this pack version (which must be kept); nil for the current one.
    ///   - ids: only these packs; nil for every pack.
    public static func sizes(repository: String, catalog: Catalog, from: Int? = nil, to: Int? = nil,
                             ids: Set<String>? = nil, keys: [ContentKey] = []) throws -> [UpdateSize] {
        var out: [UpdateSize] = []
        for pack in catalog.packs where ids?.contains(pack.id) ?? true {
            let kept = catalog.retired.filter { $0.id == pack.id && $0.path.hasSuffix(".pack") }
            let targetPath: String, targetVersion: Int
            if let to, to != pack.version {
                guard let r = kept.first(where: { $0.version == to }) else { continue }
                (targetPath, targetVersion) = (r.path, r.version)
            } else {
                (targetPath, targetVersion) = (pack.path, pack.version)
            }
            let new = try reader(repository, targetPath, keys)
            for source in kept.sorted(by: { $0.version > $1.version }) where source.version < targetVersion && (from == nil || source.version == from) {
                let old = try reader(repository, source.path, keys)
                var table: PatchTable?
                var tableLength: UInt64 = 0
                if targetVersion == pack.version, let patch = pack.patch(from: old.digest) {
                    table = try patchTable(repository, patch, contentKey: new.index.contentKey)
                    tableLength = patch.table.length
                }
                out.append(UpdateSize(id: pack.id, fromVersion: source.version, toVersion: targetVersion, old: old.index, new: new.index,
                                      newIndexLength: new.trailer.indexLength, patch: table, patchTableLength: tableLength))
            }
        }
        return out
    }

    private static func reader(_ repository: String, _ path: String, _ keys: [ContentKey]) throws -> PackReader {
        do { return try PackReader(path: "\(repository)/\(path)", keys: keys) } catch { throw PublishError.io("\(repository)/\(path): \(error)") }
    }

    /// The table of a patch file the catalog lists, checked against the catalog's SHA-256 (and
    /// opened with the content key of a sealed pack).
    static func patchTable(_ repository: String, _ patch: CatalogPatch, contentKey: ContentKey?) throws -> PatchTable {
        let path = "\(repository)/\(patch.path)"
        guard let handle = FileHandle(forReadingAtPath: path) else { throw PublishError.io("cannot open the patch file \(path)") }
        defer { try? handle.close() }
        let bytes: [UInt8]
        do {
            try handle.seek(toOffset: patch.table.offset)
            bytes = [UInt8](try handle.read(upToCount: Int(patch.table.length)) ?? Data())
        } catch { throw PublishError.io("cannot read \(path): \(error)") }
        guard SHA256Digest.hash(bytes) == patch.table.sha256 else {
            throw PublishError.io("\(path): the patch table does not hash to the catalog's \(patch.table.sha256.hex)")
        }
        do { return try PatchTable.decode(bytes, tableOffset: patch.table.offset, contentKey: contentKey) } catch { throw PublishError.io("\(path): \(error)") }
    }
}
