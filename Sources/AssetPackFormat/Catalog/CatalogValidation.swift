/// Rules a decoded catalog must satisfy beyond its JSON shape, so that a client can trust
/// what it builds URLs and Range requests from.
extension Catalog {
    /// The first broken rule, naming its key path; nil when the catalog is sound.
    public var problem: String? {
        guard version >= 1 else { return "version: must be at least 1, found \(version)" }
        if catalogFormat == 1, channel != nil || rollout != nil {
            return "\(channel != nil ? "channel" : "rollout"): a format-1 catalog cannot carry it (format-1 readers would ignore it); it needs catalogFormat 2"
        }
        if let channel, let why = ChannelName.problem(with: channel) { return "channel: \"\(channel)\" \(why)" }
        if channel == ChannelName.defaultName { return "channel: \"default\" is the default channel, which names no channel" }
        if let why = Self.packsProblem(packs, key: "packs") { return why }
        if let rollout {
            guard (0...100).contains(rollout.percent) else { return "rollout.percent: must be 0 to 100, found \(rollout.percent)" }
            guard rollout.fromVersion >= 1, rollout.fromVersion < version else {
                return "rollout.fromVersion: must be at least 1 and below the catalog's version \(version), found \(rollout.fromVersion)"
            }
            if let why = Self.packsProblem(rollout.packs, key: "rollout.packs") { return why }
        }
        let seen = Set(packs.map(\.id))
        for (i, r) in retired.enumerated() {
            if let why = RepositoryPath.problem(with: r.path) { return "retired[\(i)].path: \"\(r.path)\" \(why)" }
            if let why = r.variant?.problem(key: "retired[\(i)].variant") { return why }
            if let base = r.base, let why = RepositoryPath.problem(with: base) { return "retired[\(i)].base: \"\(base)\" \(why)" }
            if let bases = r.bases {
                if r.base != nil { return "retired[\(i)].bases: a file has base or bases, not both" }
                guard !bases.isEmpty, bases.count <= PackBase.maximumCount else {
                    return "retired[\(i)].bases: must list 1 to \(PackBase.maximumCount) files, found \(bases.count)"
                }
                for (j, base) in bases.enumerated() {
                    if let why = RepositoryPath.problem(with: base) { return "retired[\(i)].bases[\(j)]: \"\(base)\" \(why)" }
                }
            }
        }
        for (i, r) in removed.enumerated() where seen.contains(r.id) {
            return "removed[\(i)].id: \"\(r.id)\" is also a current pack"
        }
        return nil
    }

    /// The rules of one list of pack entries (`packs`, `rollout.packs`).
    private static func packsProblem(_ packs: [CatalogPack], key list: String) -> String? {
        guard packs.count <= Self.maximumPacks else {
            return "\(list): \(packs.count) packs, more than the \(Self.maximumPacks) a catalog may list"
        }
        var seen = Set<String>()
        for (i, p) in packs.enumerated() {
            let key = "\(list)[\(i)]"
            if let why = AssetPackID.problem(with: p.id) { return "\(key).id: \"\(p.id)\" \(why)" }
            guard seen.insert(p.id).inserted else { return "\(key).id: \"\(p.id)\" is listed twice" }
            guard p.version >= 1 else { return "\(key).version: must be at least 1, found \(p.version)" }
            if let language = p.language, LanguageTag(language) == nil { return "\(key).language: \"\(language)\" is not a BCP 47 tag" }
            guard !p.platforms.isEmpty else { return "\(key).platforms: must name at least one platform" }
            if let why = RepositoryPath.problem(with: p.path) { return "\(key).path: \"\(p.path)\" \(why)" }
            guard p.digest == p.index.sha256 else { return "\(key).index.sha256: differs from digest (the pack digest is the index's SHA-256)" }
            if let why = indexProblem(p.index, size: p.size, key: key) { return why }
            if let why = p.chunking.problem { return "\(key).chunking: \(why)" }
            if let why = patchProblem(p, key: key) { return why }
            if let why = readOrderProblem(p, key: key) { return why }
            if let why = variantsProblem(p, key: key) { return why }
        }
        return nil
    }

    /// A pack file's index range: after the header, not empty, ending at the trailer.
    private static func indexProblem(_ index: CatalogIndexLocation, size: UInt64, key: String) -> String? {
        let (indexEnd, overflow) = index.offset.addingReportingOverflow(index.length)
        guard !overflow, index.offset >= UInt64(PackLayout.headerSize), index.length > 0,
              indexEnd <= UInt64.max - UInt64(PackLayout.trailerSize), indexEnd + UInt64(PackLayout.trailerSize) == size else {
            return "\(key).index: range \(index.offset)+\(index.length) does not end at the trailer of a \(size)-byte pack"
        }
        return nil
    }

    /// The most variants one pack may list.
    public static let maximumVariants = 64

    /// The rules of a pack's `variants`: 1 to `maximumVariants` entries, each with sound
    /// conditions (`VariantConditions.problem`) that no other variant of the pack repeats, and a
    /// pack file of its own that is described as the pack's is (path, index range, chunking).
    private static func variantsProblem(_ p: CatalogPack, key: String) -> String? {
        guard let variants = p.variants else { return nil }
        guard !variants.isEmpty, variants.count <= maximumVariants else {
            return "\(key).variants: must list 1 to \(maximumVariants) variants (leave the key out for none), found \(variants.count)"
        }
        var paths: Set<String> = [p.path]
        var conditions: [VariantConditions: Int] = [:]
        for (j, v) in variants.enumerated() {
            let key = "\(key).variants[\(j)]"
            if let why = v.conditions.problem(key: "\(key).conditions") { return why }
            if let first = conditions.updateValue(j, forKey: v.conditions.canonical) {
                return "\(key).conditions: the same conditions as variants[\(first)] (\(v.conditions)); a device could not tell them apart"
            }
            if let why = RepositoryPath.problem(with: v.path) { return "\(key).path: \"\(v.path)\" \(why)" }
            guard paths.insert(v.path).inserted else { return "\(key).path: \"\(v.path)\" is another variant's or the pack's own file" }
            guard v.digest == v.index.sha256 else { return "\(key).index.sha256: differs from digest (the pack digest is the index's SHA-256)" }
            if let why = indexProblem(v.index, size: v.size, key: key) { return why }
            if let why = v.chunking.problem { return "\(key).chunking: \(why)" }
            if let base = v.base, base != p.path {
                return "\(key).base: \"\(base)\" is not the pack's own file \"\(p.path)\"; a variant's single base is always its group's default file (several are listed in bases)"
            }
            if v.base != nil, p.sealed != nil {
                return "\(key).base: the pack is sealed, and a sealed variant's file holds all its frames"
            }
            if let why = basesProblem(v, of: p, key: key) { return why }
        }
        return variantBaseCycle(p, key: key)
    }

    /// The rules of a variant's `bases` (pack format 5): 1 to `PackBase.maximumCount` paths, none
    /// twice, each the entry's own file or another variant's of the same entry (never the
    /// variant's own); not beside `base`; absent in a sealed pack.
    private static func basesProblem(_ v: CatalogVariant, of p: CatalogPack, key: String) -> String? {
        guard let bases = v.bases else { return nil }
        if v.base != nil { return "\(key).bases: a variant has base or bases, not both" }
        if p.sealed != nil { return "\(key).bases: the pack is sealed, and a sealed variant's file holds all its frames" }
        guard !bases.isEmpty, bases.count <= PackBase.maximumCount else {
            return "\(key).bases: must list 1 to \(PackBase.maximumCount) files, found \(bases.count)"
        }
        let group = Set([p.path] + (p.variants ?? []).map(\.path))
        var seen = Set<String>()
        for (j, base) in bases.enumerated() {
            guard base != v.path else { return "\(key).bases[\(j)]: \"\(base)\" is the variant's own file; a file cannot take frames from itself" }
            guard group.contains(base) else {
                return "\(key).bases[\(j)]: \"\(base)\" is neither the pack's own file nor another of its variants'; a variant takes frames only from files of its group"
            }
            guard seen.insert(base).inserted else { return "\(key).bases[\(j)]: \"\(base)\" is listed twice" }
        }
        return nil
    }

    /// A variant that takes frames, through its bases, from a file that takes frames from it (a
    /// cycle: no such files can exist, as each pins the SHA-256 of the other), named with its
    /// path through the group; nil when there is none.
    private static func variantBaseCycle(_ p: CatalogPack, key: String) -> String? {
        let variants = p.variants ?? []
        let position = Dictionary(variants.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { a, _ in a })
        // 0: not visited, 1: on the current path, 2: done.
        var state = [Int](repeating: 0, count: variants.count)
        func visit(_ j: Int, _ path: [Int]) -> [Int]? {
            if state[j] == 1 { return path + [j] }
            guard state[j] == 0 else { return nil }
            state[j] = 1
            for base in variants[j].basePaths {
                if let k = position[base], let cycle = visit(k, path + [j]) { return cycle }
            }
            state[j] = 2
            return nil
        }
        for j in variants.indices {
            if let cycle = visit(j, []) {
                let names = cycle.drop(while: { $0 != cycle.last! }).map { "variants[\($0)]" }
                return "\(key).variants[\(cycle.last!)].bases: its files take frames from each other in a cycle (\(names.joined(separator: " → "))); a base is a file built before the variant"
            }
        }
        return nil
    }

    /// The most entries a read-order hint may have.
    public static let maximumReadOrderEntries = 10_000

    /// The most packs a catalog lists (in `packs`, and in a rollout's `packs`): a repository
    /// holds at most this many packs at once. Every client reads and checks the whole list at
    /// each refresh and keeps it in its store; Apple's own limit is 100 packs an app.
    public static let maximumPacks = 10_000

    /// The rules of a pack's `readOrder`: at most `maximumReadOrderEntries` entries, each a path
    /// of the pack's form (relative, no `.` or `..`, no control character), none twice.
    private static func readOrderProblem(_ p: CatalogPack, key: String) -> String? {
        guard let order = p.readOrder else { return nil }
        guard order.count <= Self.maximumReadOrderEntries else {
            return "\(key).readOrder: \(order.count) entries, more than the \(Self.maximumReadOrderEntries) allowed"
        }
        var seen = Set<String>()
        for (j, entry) in order.enumerated() {
            if let why = PackPath.problemWithStoredPath(entry) { return "\(key).readOrder[\(j)]: \"\(entry)\" \(why)" }
            guard seen.insert(entry).inserted else { return "\(key).readOrder[\(j)]: \"\(entry)\" is listed twice" }
        }
        return nil
    }

    /// The rules of a pack's `patches`: paths confined like pack paths, the table inside the
    /// file after the 16-byte header and ending at the file's end, at most one patch per earlier
    /// version and none from the pack's own digest.
    private static func patchProblem(_ p: CatalogPack, key: String) -> String? {
        var froms = Set<SHA256Digest>()
        for (j, patch) in (p.patches ?? []).enumerated() {
            let key = "\(key).patches[\(j)]"
            if let why = RepositoryPath.problem(with: patch.path) { return "\(key).path: \"\(patch.path)\" \(why)" }
            guard patch.path != p.path else { return "\(key).path: is the pack file's own path" }
            guard patch.from != p.digest else { return "\(key).from: is the pack's own digest" }
            guard froms.insert(patch.from).inserted else { return "\(key).from: a second patch from \(patch.from.hex.prefix(16))…" }
            guard patch.fromVersion >= 1, patch.fromVersion < p.version else {
                return "\(key).fromVersion: must be at least 1 and below the pack's version \(p.version), found \(patch.fromVersion)"
            }
            let (end, overflow) = patch.table.offset.addingReportingOverflow(patch.table.length)
            guard !overflow, patch.table.offset >= UInt64(PatchLayout.headerSize), patch.table.length >= UInt64(PatchLayout.tablePreambleSize),
                  patch.table.length <= UInt64(PatchLayout.maximumTableSize), end == patch.size else {
                return "\(key).table: range \(patch.table.offset)+\(patch.table.length) does not end at the end of a \(patch.size)-byte patch file"
            }
        }
        return nil
    }
}

/// Paths inside a repository, as the catalog names them: relative, `/`-separated, plain ASCII,
/// with no `.` or `..` segment, so that resolving one against the catalog's URL stays inside
/// the repository.
public enum RepositoryPath {
    public static func problem(with path: String) -> String? {
        guard !path.isEmpty, path.utf8.count <= 1024 else { return "must be 1 to 1024 bytes long" }
        guard !path.hasPrefix("/") else { return "must be relative" }
        // Byte by byte: every path of a catalog passes here, at every refresh and publish.
        let allowed = path.utf8.allSatisfy {
            (0x61...0x7a).contains($0) || (0x41...0x5a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d || $0 == 0x2e || $0 == 0x5f || $0 == 0x2f
        }
        guard allowed else { return "may contain only ASCII letters, digits, '-', '.', '_' and '/'" }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty, segment != ".", segment != ".." else { return "has an empty, '.' or '..' segment" }
        }
        return nil
    }
}
