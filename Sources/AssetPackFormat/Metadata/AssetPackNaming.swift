/// Asset-pack IDs made from names that may hold characters IDs do not allow.
public enum AssetPackNaming {
    /// The tags joined with `_`; characters outside `[A-Za-z0-9._-]` become `-`,
    /// and an ID that would start with something other than a letter or digit gets a `pack-` prefix.
    public static func id(forTags tags: [String]) -> String {
        id(for: tags.joined(separator: "_"))
    }

    public static func id(for name: String) -> String {
        var out = ""
        for u in name.unicodeScalars {
            let ok = (u >= "a" && u <= "z") || (u >= "A" && u <= "Z") || (u >= "0" && u <= "9") || u == "." || u == "-" || u == "_"
            out.unicodeScalars.append(ok ? u : "-")
        }
        if out.isEmpty || AssetPackID.problem(with: out) != nil { out = "pack-" + out }
        if out.utf8.count > AssetPackID.maximumLength { out = String(out.prefix(AssetPackID.maximumLength)) }
        return out
    }
}
