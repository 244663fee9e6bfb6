/// Rules a decoded catalog must satisfy beyond its JSON shape, so that a client can trust
/// what it builds URLs and Range requests from.
extension Catalog {
    /// The first broken rule, naming its key path; nil when the catalog is sound.
    public var problem: String? {
        guard version >= 1 else { return "version: must be at least 1, found \(version)" }
        var seen = Set<String>()
        for (i, p) in packs.enumerated() {
            let key = "packs[\(i)]"
            if let why = AssetPackID.problem(with: p.id) { return "\(key).id: \"\(p.id)\" \(why)" }
            guard seen.insert(p.id).inserted else { return "\(key).id: \"\(p.id)\" is listed twice" }
            guard p.version >= 1 else { return "\(key).version: must be at least 1, found \(p.version)" }
            if let language = p.language, LanguageTag(language) == nil { return "\(key).language: \"\(language)\" is not a BCP 47 tag" }
            guard !p.platforms.isEmpty else { return "\(key).platforms: must name at least one platform" }
            if let why = RepositoryPath.problem(with: p.path) { return "\(key).path: \"\(p.path)\" \(why)" }
            guard p.digest == p.index.sha256 else { return "\(key).index.sha256: differs from digest (the pack digest is the index's SHA-256)" }
            let (indexEnd, overflow) = p.index.offset.addingReportingOverflow(p.index.length)
            guard !overflow, p.index.offset >= UInt64(PackLayout.headerSize), p.index.length > 0,
                  indexEnd <= UInt64.max - UInt64(PackLayout.trailerSize), indexEnd + UInt64(PackLayout.trailerSize) == p.size else {
                return "\(key).index: range \(p.index.offset)+\(p.index.length) does not end at the trailer of a \(p.size)-byte pack"
            }
            if let why = p.chunking.problem { return "\(key).chunking: \(why)" }
        }
        for (i, r) in retired.enumerated() {
            if let why = RepositoryPath.problem(with: r.path) { return "retired[\(i)].path: \"\(r.path)\" \(why)" }
        }
        for (i, r) in removed.enumerated() where seen.contains(r.id) {
            return "removed[\(i)].id: \"\(r.id)\" is also a current pack"
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
        let allowed = path.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-._/".unicodeScalars.contains($0))
        }
        guard allowed else { return "may contain only ASCII letters, digits, '-', '.', '_' and '/'" }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty, segment != ".", segment != ".." else { return "has an empty, '.' or '..' segment" }
        }
        return nil
    }
}
