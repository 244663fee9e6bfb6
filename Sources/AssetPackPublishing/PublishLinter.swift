import AssetPackFormat
import AssetPackPackaging
import Foundation

/// The checks `publish` runs before it writes anything. `lintContent` needs only the selected
/// files; `lintCompressedSizes` needs the packs built (their `compressedSize`).
public struct PublishLinter {
    public var options: LintOptions
    /// How many example paths a message lists.
    static let examples = 3

    public init(options: LintOptions) { self.options = options }

    /// Rules about IDs, paths, localized variants, pack count and install (uncompressed) sizes.
    public func lintContent(_ packs: [LintPack]) -> [LintFinding] {
        let groups = LocalizedVariants.groups(of: packs)
        var findings = duplicateIDs(packs)
        findings += collisions(packs, groups: groups)
        for group in groups {
            findings += variantFiles(packs, group)
            findings += primaryLanguage(packs, group)
            findings += sharedFiles(packs, group)
        }
        if options.appleLimits, packs.count > AppleLimits.packCount {
            findings.append(LintFinding(.error, .applePackCount, "\(packs.count) packs, more than Apple's limit of \(AppleLimits.packCount) (App Store Connect Help says 100 asset packs per app; one WWDC seed says 200; we enforce 100)"))
        }
        findings += sizeLimit(packs, groups, .maxInstallSize, options.maxInstallSize, essential: false, compressed: false)
        findings += sizeLimit(packs, groups, .essentialMaxInstallSize, options.essentialMaxInstallSize, essential: true, compressed: false)
        return escalated(findings)
    }

    /// Rules about compressed sizes: the download allowances and Apple's 200 GB hosting limit.
    /// `largestHosted` maps a pack ID to the largest pack file of its versions that stay hosted.
    public func lintCompressedSizes(_ packs: [LintPack], largestHosted: [String: UInt64] = [:]) -> [LintFinding] {
        let groups = LocalizedVariants.groups(of: packs)
        var findings = sizeLimit(packs, groups, .downloadAllowance, options.downloadAllowance, essential: false, compressed: true)
        findings += sizeLimit(packs, groups, .essentialDownloadAllowance, options.essentialDownloadAllowance, essential: true, compressed: true)
        if options.appleLimits {
            let total = packs.reduce(UInt64(0)) { $0 + max($1.compressedSize ?? 0, largestHosted[$1.id] ?? 0) }
            if total > AppleLimits.totalCompressedBytes {
                findings.append(LintFinding(.error, .appleHostingSize, "the packs take \(ByteCount.formatExactly(total)) compressed, counting each pack's largest hosted version, more than Apple's limit of \(ByteCount.formatExactly(AppleLimits.totalCompressedBytes))"))
            }
        }
        return escalated(findings)
    }

    /// `findings` with warnings made errors under `--strict`.
    func escalated(_ findings: [LintFinding]) -> [LintFinding] {
        guard options.treatWarningsAsErrors else { return findings }
        return findings.map { LintFinding(.error, $0.rule, $0.message) }
    }

    private func duplicateIDs(_ packs: [LintPack]) -> [LintFinding] {
        Dictionary(grouping: packs.indices, by: { packs[$0].id }).filter { $0.value.count > 1 }.keys.sorted().map { id in
            LintFinding(.error, .duplicateID, "more than one manifest has assetPackID \"\(id)\"; each pack needs its own ID")
        }
    }

    /// Two packs holding the same path collide in the merged namespace, unless they are
    /// variants of one group in different languages (a device installs one of them).
    private func collisions(_ packs: [LintPack], groups: [VariantGroup]) -> [LintFinding] {
        var groupOf: [Int: Int] = [:]
        for (g, group) in groups.enumerated() { for m in group.members { groupOf[m] = g } }
        struct Pair: Hashable { var a: Int; var b: Int }
        var shared: [Pair: [String]] = [:]
        for (path, list) in Self.sharedPaths(packs) {
            for x in list.indices { for y in list.indices where y > x {
                let (a, b) = (list[x], list[y])
                let variants = groupOf[a] != nil && groupOf[a] == groupOf[b]
                    && packs[a].language?.lowercased() != packs[b].language?.lowercased()
                if !variants { shared[Pair(a: a, b: b), default: []].append(path) }
            } }
        }
        return shared.keys.sorted { ($0.a, $0.b) < ($1.a, $1.b) }.map { pair in
            let paths = shared[pair]!.sorted(by: PackPath.precedes)
            let (a, b) = (packs[pair.a], packs[pair.b])
            var why = ""
            if let l = a.language, l.lowercased() == b.language?.lowercased(), groupOf[pair.a] == groupOf[pair.b] {
                why = " (both are variants in the same language \(l))"
            }
            return LintFinding(.error, .pathCollision, "\(a.id) and \(b.id) both contain \(count(paths.count, "path")) in the merged namespace\(why): \(list(paths))")
        }
    }

    /// The paths more than one pack holds, each with the packs that hold it (in order). Every
    /// file is one place in one list sorted by path, not a string: a pack's files are unique,
    /// so only equal neighbours from different packs share a path, and one pack shares none.
    static func sharedPaths(_ packs: [LintPack]) -> [(path: String, packs: [Int])] {
        guard packs.count > 1 else { return [] }
        var places: [(pack: UInt32, file: UInt32)] = []
        places.reserveCapacity(packs.reduce(0) { $0 + $1.files.count })
        for (i, p) in packs.enumerated() { for k in p.files.indices { places.append((UInt32(i), UInt32(k))) } }
        func file(_ place: (pack: UInt32, file: UInt32)) -> SelectedFile { packs[Int(place.pack)].files[Int(place.file)] }
        places.sort { x, y in
            let (a, b) = (file(x), file(y))
            if SelectedFile.precedes(a, b) { return true }
            return !SelectedFile.precedes(b, a) && x.pack < y.pack
        }
        var out: [(path: String, packs: [Int])] = []
        var start = 0
        while start < places.count {
            var end = start + 1
            let first = file(places[start])
            while end < places.count, !SelectedFile.precedes(first, file(places[end])) { end += 1 }
            if end - start > 1 { out.append((first.packPath, places[start..<end].map { Int($0.pack) })) }
            start = end
        }
        return out
    }

    private func variantFiles(_ packs: [LintPack], _ group: VariantGroup) -> [LintFinding] {
        guard group.members.count > 1 else { return [] }
        let all = group.members.reduce(into: Set<String>()) { $0.formUnion(packs[$1].pathSet) }
        return group.members.compactMap { m in
            let missing = all.subtracting(packs[m].pathSet).sorted(by: PackPath.precedes)
            guard !missing.isEmpty else { return nil }
            return LintFinding(.error, .variantFiles, "\(packs[m].id) (\(packs[m].language!)) lacks \(count(missing.count, "path")) that other variants of \(group.name) have; localized variants must carry the same files: \(list(missing))")
        }
    }

    private func primaryLanguage(_ packs: [LintPack], _ group: VariantGroup) -> [LintFinding] {
        let languages = group.members.map { packs[$0].language! }
        guard !languages.contains(where: { LocalizedVariants.matches($0, primary: options.primaryLanguage) }) else { return [] }
        let ids = group.members.map { "\(packs[$0].id) (\(packs[$0].language!))" }.joined(separator: ", ")
        return [LintFinding(.error, .primaryLanguage, "\(group.name) has no variant in the primary language \(options.primaryLanguage) (--primary-language): only \(ids); devices in other languages fall back to the primary one")]
    }

    /// A file with the same bytes in every variant belongs in one pack without a language.
    private func sharedFiles(_ packs: [LintPack], _ group: VariantGroup) -> [LintFinding] {
        guard group.members.count > 1 else { return [] }
        let byPath = group.members.map { m in Dictionary(packs[m].files.map { ($0.packPath, $0) }, uniquingKeysWith: { a, _ in a }) }
        var identical: [String] = []
        for path in byPath[0].keys.sorted(by: PackPath.precedes) {
            let copies = byPath.compactMap { $0[path] }
            guard copies.count == byPath.count, Set(copies.map(\.size)).count == 1 else { continue }
            let digests = copies.map { FileDigest.of($0.sourcePath) }
            if digests[0] != nil, Set(digests).count == 1 { identical.append(path) }
        }
        guard !identical.isEmpty else { return [] }
        return [LintFinding(.warning, .sharedFile, "\(count(identical.count, "file")) identical in every variant of \(group.name) (\(group.members.map { packs[$0].id }.joined(separator: ", "))) belong in a shared pack without a language, downloaded once: \(list(identical))")]
    }

    /// Essential limits apply to essential packs, the others to prefetch packs (Apple's
    /// allowances cover the initial, non-essential downloads); on-demand packs are not counted.
    /// Each localized group counts its largest variant, as a device installs one of them.
    private func sizeLimit(_ packs: [LintPack], _ groups: [VariantGroup], _ rule: LintFinding.Rule, _ limit: UInt64?,
                           essential: Bool, compressed: Bool) -> [LintFinding] {
        guard let limit else { return [] }
        func counted(_ p: LintPack) -> Bool {
            switch p.downloadPolicy { case .essential: return essential; case .prefetch: return !essential; case .onDemand: return false }
        }
        func size(_ p: LintPack) -> UInt64 { compressed ? p.compressedSize ?? 0 : max(p.installSize, p.variantInstallSize ?? 0) }
        var grouped = Set<Int>()
        var total: UInt64 = 0
        for g in groups {
            grouped.formUnion(g.members)
            total += g.members.filter { counted(packs[$0]) }.map { size(packs[$0]) }.max() ?? 0
        }
        for (i, p) in packs.enumerated() where !grouped.contains(i) && counted(p) { total += size(p) }
        guard total > limit else { return [] }
        let kind = essential ? "essential" : "prefetch"
        let what = compressed ? "download \(ByteCount.formatExactly(total)) compressed" : "install \(ByteCount.formatExactly(total)) uncompressed"
        let key = [LintFinding.Rule.downloadAllowance: "BADownloadAllowance", .essentialDownloadAllowance: "BAEssentialDownloadAllowance",
                   .maxInstallSize: "BAMaxInstallSize", .essentialMaxInstallSize: "BAEssentialMaxInstallSize"][rule] ?? ""
        let note = compressed ? "download allowances count compressed bytes" : "install sizes count uncompressed bytes"
        return [LintFinding(.error, rule, "\(kind) packs \(what), more than --\(rule.rawValue) \(ByteCount.formatExactly(limit)) (Apple's \(key); \(note))")]
    }

    private func count(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }

    private func list(_ paths: [String]) -> String {
        let shown = paths.prefix(Self.examples).map { "\"\($0)\"" }.joined(separator: ", ")
        return paths.count > Self.examples ? "\(shown) and \(paths.count - Self.examples) more" : shown
    }
}
