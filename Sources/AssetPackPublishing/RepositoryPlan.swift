import AssetPackFormat

/// The next state of a repository, worked out from the old catalog and the packs just built,
/// before anything is written: versions, the retired files to keep and the files to delete.
struct RepositoryPlan {
    var packs: [CatalogPack] = []
    var retired: [RetiredPackFile] = []
    var removed: [RemovedPack] = []
    /// Repository-relative paths to delete once the new catalog is in place.
    var deletions: [String] = []
    var changes: [PackChange] = []

    /// - Parameters:
    ///   - built: one entry per pack given, at its content-addressed path; a version of 0 is
    ///     allocated here, any other is kept (a promoted or rolled-back entry).
    ///   - catalogVersion: the version of the catalog being made.
    ///   - keep: versions per pack whose files stay, the current one included (≥ 1).
    ///   - versions: the versions the repository's other channels use: a version number is
    ///     allocated once across channels, and content another channel has keeps its number.
    init(old: Catalog?, built: [CatalogPack], catalogVersion: Int, keep: Int, versions: PackVersions = PackVersions()) {
        let oldRetired = old?.retired ?? []
        var retiredNow = oldRetired
        // By ID, so that a plan costs one look-up a pack, not a scan of the old catalog.
        let oldPacks = Dictionary((old?.packs ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for var entry in built.sorted(by: { $0.id < $1.id }) {
            let previous = oldPacks[entry.id]
            if let previous, previous.digest == entry.digest, Self.sameVariants(previous, entry) {
                packs.append(previous)
                changes.append(PackChange(id: entry.id, kind: .unchanged, previousVersion: previous.version, version: previous.version))
                continue
            }
            // Versions never repeat, even for a pack that left the catalog and came back.
            let earlier = oldRetired.filter { $0.id == entry.id }.map(\.version) + (old?.removed ?? []).filter { $0.id == entry.id }.map(\.version)
                + (old?.rollout?.packs ?? []).filter { $0.id == entry.id }.map(\.version)
            let local = ([previous?.version ?? 0] + earlier).max() ?? 0
            if entry.version > 0 {
                // An entry that comes with its version (a promotion, a rollback): the same content
                // keeps the same number across the repository.
            } else if let theirs = versions.byDigest[entry.id]?[entry.digest], theirs > local {
                entry.version = theirs
            } else {
                entry.version = max(local, versions.highest[entry.id] ?? 0) + 1
            }
            packs.append(entry)
            changes.append(PackChange(id: entry.id, kind: previous == nil ? .added : .updated, previousVersion: previous?.version, version: entry.version))
        }
        let currentIDs = Set(packs.map(\.id))
        let currentByID = Dictionary(packs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        removed = (old?.removed ?? []).filter { !currentIDs.contains($0.id) }
        for previous in old?.packs ?? [] {
            let current = currentByID[previous.id]
            // Variant files the current entry no longer lists are retired with the version they had.
            let currentFiles = Set(current?.variantPaths ?? [])
            for v in previous.variants ?? [] where !currentFiles.contains(v.path) {
                var file = RetiredPackFile(id: previous.id, version: previous.version, path: v.path,
                                           size: v.size, sha256: v.sha256, retiredIn: catalogVersion, variant: v.conditions)
                (file.base, file.bases) = (v.base, v.bases)
                retiredNow.append(file)
            }
            guard current?.path != previous.path else { continue }
            retiredNow.append(RetiredPackFile(id: previous.id, version: previous.version, path: previous.path,
                                              size: previous.size, sha256: previous.sha256, retiredIn: catalogVersion))
            // Its patch files are retired with it, and deleted with it.
            for patch in previous.patches ?? [] {
                retiredNow.append(RetiredPackFile(id: previous.id, version: previous.version, path: patch.path,
                                                  size: patch.size, sha256: patch.sha256, retiredIn: catalogVersion))
            }
            if !currentIDs.contains(previous.id) {
                changes.append(PackChange(id: previous.id, kind: .removed, previousVersion: previous.version, version: nil))
                removed.append(RemovedPack(id: previous.id, version: previous.version, removedIn: catalogVersion))
            }
        }
        // A file that is current again (a pack changed back to earlier content) is not retired.
        let currentPaths = Set(packs.flatMap(\.variantPaths))
        var seen = Set<String>()
        retiredNow = retiredNow.filter { !currentPaths.contains($0.path) && seen.insert($0.path).inserted }
        var (kept, dropped) = Self.retain(retiredNow, currentIDs: currentIDs, catalogVersion: catalogVersion, keep: keep)
        // A base file stays while a variant's file that takes frames from it stays. (The base's
        // own bases need not: a file takes from a base only the frames that file stores.)
        let bases = Set(kept.flatMap(\.basePaths))
        kept += dropped.filter { bases.contains($0.path) }
        dropped.removeAll { bases.contains($0.path) }
        retired = kept.sorted { ($0.id, $0.version, $0.path) < ($1.id, $1.version, $1.path) }
        deletions = dropped.map(\.path).sorted()
        removed.sort { $0.id < $1.id }
        changes.sort { $0.id < $1.id }
    }

    /// Whether two entries of one pack list the same variants (conditions, content and bases).
    static func sameVariants(_ a: CatalogPack, _ b: CatalogPack) -> Bool {
        (a.variants ?? []).map(\.conditions) == (b.variants ?? []).map(\.conditions) && (a.variants ?? []).map(\.digest) == (b.variants ?? []).map(\.digest)
            && (a.variants ?? []).map(\.basePaths) == (b.variants ?? []).map(\.basePaths)
    }

    /// The retention rule: a pack in the catalog keeps the files of its `keep - 1` newest earlier
    /// versions; a pack that left the catalog keeps its `keep - 1` newest files for `keep - 1`
    /// publishes after it left, so that clients holding the previous catalog can finish.
    static func retain(_ retired: [RetiredPackFile], currentIDs: Set<String>, catalogVersion: Int, keep: Int)
        -> (kept: [RetiredPackFile], dropped: [RetiredPackFile]) {
        var kept: [RetiredPackFile] = [], dropped: [RetiredPackFile] = []
        let slots = max(0, keep - 1)
        for (id, files) in Dictionary(grouping: retired, by: \.id) {
            // Counted in versions: a version's patch files go with its pack file.
            let versions = Set(files.map(\.version)).sorted(by: >)
            var allowed = slots
            if !currentIDs.contains(id), let left = files.map(\.retiredIn).max(), catalogVersion - left >= slots {
                allowed = 0
            }
            let keptVersions = Set(versions.prefix(allowed))
            kept += files.filter { keptVersions.contains($0.version) }
            dropped += files.filter { !keptVersions.contains($0.version) }
        }
        return (kept, dropped)
    }
}
