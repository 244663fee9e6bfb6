import AssetPackFormat
import AssetPackPackaging

/// A pack as the linter sees it.
public struct LintPack: Sendable {
    public var id: String
    public var language: String?
    public var downloadPolicy: DownloadPolicy
    public var files: SelectedFileList
    /// The pack file's size, once built (for a pack with device variants, the largest file).
    public var compressedSize: UInt64?
    /// The largest install size of the pack's device variants, if it has any: a device installs
    /// one file of the group, so the install-size limits count the largest.
    public var variantInstallSize: UInt64?

    public init(id: String, language: String?, downloadPolicy: DownloadPolicy, files: SelectedFileList, compressedSize: UInt64? = nil) {
        self.id = id
        self.language = language
        self.downloadPolicy = downloadPolicy
        self.files = files
        self.compressedSize = compressedSize
    }

    public var installSize: UInt64 { files.reduce(0) { $0 + $1.size } }
    public var pathSet: Set<String> { Set(files.map(\.packPath)) }
}

/// Localized variants: packs that carry the same logical content in different languages. Two
/// localized packs are variants of each other when
///  - their IDs are equal once a language suffix is removed (`Voices.en` and `Voices.de`,
///    `Intro-en-US` and `Intro-fr`: the suffix after the last `.`, `-` or `_`-separated part
///    that spells the pack's own language or its primary subtag), or
///  - they select exactly the same set of paths.
/// Variants may (and should) share paths; they form one group, named by the common base ID.
public struct VariantGroup: Sendable {
    public var name: String
    /// Indices into the packs given to `groups(of:)`, in that order.
    public var members: [Int]
}

public enum LocalizedVariants {
    /// Groups the localized packs among `packs` (those with a language) into variant groups.
    public static func groups(of packs: [LintPack]) -> [VariantGroup] {
        let localized = packs.indices.filter { packs[$0].language != nil }
        var parent = Dictionary(uniqueKeysWithValues: localized.map { ($0, $0) })
        func root(_ i: Int) -> Int { var i = i; while parent[i]! != i { i = parent[i]! }; return i }
        func join(_ a: Int, _ b: Int) { let (ra, rb) = (root(a), root(b)); if ra != rb { parent[max(ra, rb)] = min(ra, rb) } }
        var byBase: [String: Int] = [:], byPaths: [Set<String>: Int] = [:]
        var names: [Int: String] = [:]
        for i in localized {
            let base = LocalizedVariantID.baseID(packs[i].id, language: packs[i].language!)
            names[i] = base ?? packs[i].id
            if let base { if let j = byBase[base.lowercased()] { join(i, j) } else { byBase[base.lowercased()] = i } }
            let paths = packs[i].pathSet
            if let j = byPaths[paths] { join(i, j) } else { byPaths[paths] = i }
        }
        var members: [Int: [Int]] = [:]
        for i in localized { members[root(i), default: []].append(i) }
        return members.keys.sorted().map { r in
            let m = members[r]!
            let baseNames = Set(m.map { names[$0]! })
            let name = baseNames.count == 1 ? baseNames.first! : m.map { packs[$0].id }.joined(separator: "/")
            return VariantGroup(name: name, members: m)
        }
    }

    /// Whether `language` is `primary` or a more specific tag of it (`en` matches `en-GB`).
    public static func matches(_ language: String, primary: String) -> Bool {
        let l = language.lowercased(), p = primary.lowercased()
        return l == p || l.hasPrefix(p + "-")
    }
}
