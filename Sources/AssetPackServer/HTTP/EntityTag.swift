/// A strong entity tag for a file, derived from what changes when the file is replaced or
/// rewritten: inode, size and modification time in nanoseconds (as nginx and Apache do, plus
/// the inode and nanoseconds, so a same-size rewrite within one second still changes it).
struct EntityTag: Equatable {
    /// The opaque tag including its quotes, e.g. `"1a2b-400-17f0c1d2e3"`.
    let quoted: String

    init(inode: UInt64, size: UInt64, modifiedNanoseconds: UInt64) {
        quoted = "\"\(String(inode, radix: 16))-\(String(size, radix: 16))-\(String(modifiedNanoseconds, radix: 16))\""
    }

    /// Whether an `If-None-Match` value matches (weak comparison, RFC 9110 §13.1.2): `*`, or a
    /// list containing this tag with or without the `W/` prefix.
    func matchesNoneMatch(_ header: String) -> Bool {
        let tags = Self.list(header)
        return tags.contains("*") || tags.contains { $0 == quoted || $0 == "W/" + quoted }
    }

    /// Whether an `If-Match` value matches (strong comparison): `*` or this exact tag.
    func matchesMatch(_ header: String) -> Bool {
        let tags = Self.list(header)
        return tags.contains("*") || tags.contains(quoted)
    }

    private static func list(_ header: String) -> [String] {
        header.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
    }
}
