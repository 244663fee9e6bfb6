import AssetPackFormat
import AssetPackPackaging

/// The manifests of a publish grouped by `assetPackID` into device variants (docs/PUBLISHING.md,
/// "Device variants"): in each group, the manifest without `variant` is the default and every
/// other one a variant. A group without a default, or with two variants of the same conditions,
/// is a lint error naming the files; a lone manifest with `variant` is published as a plain pack
/// (its conditions ignored, with a warning). Two defaults of one ID remain `duplicate-id`.
public struct DeviceVariantGroups {
    /// One manifest of a group: its path and, for a variant, its conditions.
    public struct Member {
        /// Where the manifest is among the inputs.
        public var input: Int
        public var path: String
        public var conditions: VariantConditions?
    }

    /// One default (or plain pack) per ID, in input order: what the rest of a publish works on.
    public private(set) var defaults: [Int] = []
    /// Each ID's variants, in the catalog's order (`VariantConditions`' order).
    public private(set) var variants: [String: [Member]] = [:]
    public private(set) var findings: [LintFinding] = []

    /// Groups `manifests` (path, decoded manifest; all valid).
    public init(_ manifests: [(path: String, manifest: AssetPackManifest)]) {
        var order: [String] = []
        var members: [String: [Member]] = [:]
        for (i, m) in manifests.enumerated() {
            let id = m.manifest.assetPackID
            if members[id] == nil { order.append(id) }
            members[id, default: []].append(Member(input: i, path: m.path, conditions: m.manifest.variant?.canonical))
        }
        for id in order {
            let group = members[id]!
            let plain = group.filter { $0.conditions == nil }
            let conditioned = group.filter { $0.conditions != nil }
            if group.count == 1, let lone = conditioned.first {
                findings.append(LintFinding(.warning, .variantAlone, "\(lone.path): its variant (\(lone.conditions!)) is ignored: no other manifest has assetPackID \"\(id)\", so its pack is the one every device takes"))
                defaults.append(lone.input)
                continue
            }
            // Two plain manifests: `duplicate-id` says so; the first stands as the default here.
            if plain.isEmpty {
                findings.append(LintFinding(.error, .variantDefault, "\"\(id)\" has \(conditioned.count) variants (\(conditioned.map(\.path).joined(separator: ", "))) and no default: add a manifest with assetPackID \"\(id)\" and no \"variant\", for the devices no variant fits"))
                continue
            }
            defaults += plain.map(\.input)
            var seen: [VariantConditions: String] = [:]
            for v in conditioned {
                if let other = seen.updateValue(v.path, forKey: v.conditions!) {
                    findings.append(LintFinding(.error, .variantConditions, "\(other) and \(v.path) are variants of \"\(id)\" with the same conditions (\(v.conditions!)); a device could not tell them apart"))
                }
            }
            if !conditioned.isEmpty { variants[id] = conditioned.sorted { $0.conditions! < $1.conditions! } }
        }
        defaults.sort()
    }
}
