import AssetPackFormat
import Foundation

/// Update sizes of a repository as it stands (`assetpack diff`, and the summary `publish`
/// prints): for each pack, from each version whose file the repository keeps to the current
/// one (or to `to`), read from the pack files, the catalog and the patch tables it lists. A pack
/// with device variants has the updates of each variant apart: from the kept files of the same
/// conditions to the variant's current file.
public enum RepositoryUpdates {
    /// - Parameters:
    ///   - from: only from this pack version; nil for every kept version.
    ///   - to: to this pack version (which must be kept); nil for the current one.
    ///   - ids: only these packs; nil for every pack.
    public static func sizes(repository: String, catalog: Catalog, from: Int? = nil, to: Int? = nil,
                             ids: Set<String>? = nil, keys: [ContentKey] = []) throws -> [UpdateSize] {
        var out: [UpdateSize] = []
        for pack in catalog.packs where ids?.contains(pack.id) ?? true {
            // The default (nil), then each variant, by its conditions and current file.
            let lines: [(VariantConditions?, String)] = [(nil, pack.path)] + (pack.variants ?? []).map { ($0.conditions, $0.path) }
            for (variant, current) in lines {
                let kept = catalog.retired.filter { $0.id == pack.id && $0.path.hasSuffix(".pack") && $0.variant == variant }
                let targetPath: String, targetVersion: Int
                if let to, to != pack.version {
                    guard let r = kept.first(where: { $0.version == to }) else { continue }
                    (targetPath, targetVersion) = (r.path, r.version)
                } else {
                    (targetPath, targetVersion) = (current, pack.version)
                }
                let sources = kept.sorted(by: { $0.version > $1.version }).filter { $0.version < targetVersion && (from == nil || $0.version == from) }
                // A pack without an earlier version kept (a first publish) has no update: its
                // index, every file's path of it, is not decoded for nothing.
                guard !sources.isEmpty else { continue }
                let new = try reader(repository, targetPath, keys)
                for source in sources {
                    let old = try reader(repository, source.path, keys)
                    var table: PatchTable?
                    var tableLength: UInt64 = 0
                    // Patches are made between a pack's files by digest, whichever variant they are.
                    if targetVersion == pack.version, targetPath == pack.path, let patch = pack.patch(from: old.digest) {
                        table = try patchTable(repository, patch, contentKey: new.index.contentKey)
                        tableLength = patch.table.length
                    }
                    var size = UpdateSize(id: pack.id, fromVersion: source.version, toVersion: targetVersion, old: old.index, new: new.index,
                                          newIndexLength: new.trailer.indexLength, patch: table, patchTableLength: tableLength)
                    size.variant = variant?.name
                    out.append(size)
                }
            }
        }
        return out
    }

    /// What switching between two variants of the current version costs a device (a capability
    /// changed): for each pack with variants, from each of its files (the default's included) to
    /// each other one. Only the chunks the two do not share are fetched.
    public static func switches(repository: String, catalog: Catalog, ids: Set<String>? = nil, keys: [ContentKey] = []) throws -> [UpdateSize] {
        var out: [UpdateSize] = []
        for pack in catalog.packs where (ids?.contains(pack.id) ?? true) && pack.variants != nil {
            let files: [(String, String)] = [("default", pack.path)] + (pack.variants ?? []).map { ($0.conditions.name, $0.path) }
            let readers = try files.map { try reader(repository, $0.1, keys) }
            for (i, from) in files.enumerated() {
                for (j, to) in files.enumerated() where i != j {
                    var size = UpdateSize(id: pack.id, fromVersion: pack.version, toVersion: pack.version, old: readers[i].index, new: readers[j].index,
                                          newIndexLength: readers[j].trailer.indexLength, patch: nil, patchTableLength: 0)
                    size.variant = "\(from.0) → \(to.0)"
                    out.append(size)
                }
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
