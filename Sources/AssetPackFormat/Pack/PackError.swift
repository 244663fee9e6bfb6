/// Why a pack could not be read, verified or extracted. Every case says where.
public enum PackError: Error, Equatable, CustomStringConvertible {
    /// A structural problem in `region` (header, trailer, index, chunk table, …) at a file offset.
    case malformed(String, at: UInt64, String)
    case unsupportedVersion(UInt32)
    case notAPack(String)
    case indexDigestMismatch(expected: SHA256Digest, actual: SHA256Digest)
    /// Chunk `index` (stored at `offset`) failed; `files` are the paths that use it.
    case chunkCorrupt(index: Int, digest: SHA256Digest, offset: UInt64, files: [String], reason: String)
    case io(String)
    /// The pack is sealed (format version 3) and no content key with this ID was given.
    case contentKeyRequired(keyID: SHA256Digest)
    /// A content key was given that is not the one the pack names.
    case wrongContentKey(expected: SHA256Digest, given: SHA256Digest)

    public var description: String {
        switch self {
        case let .malformed(region, offset, why): return "malformed \(region) at byte \(offset): \(why)"
        case let .unsupportedVersion(v): return "unsupported pack format version \(v) (this tool reads versions \(PackLayout.readableVersions.lowerBound) to \(PackLayout.readableVersions.upperBound))"
        case let .notAPack(why): return "not an asset pack: \(why)"
        case let .indexDigestMismatch(e, a): return "index digest mismatch: the trailer pins \(e) but the index hashes to \(a)"
        case let .chunkCorrupt(i, digest, offset, files, why):
            let list = files.prefix(5).joined(separator: ", ") + (files.count > 5 ? " and \(files.count - 5) more" : "")
            return "chunk \(i) (\(digest.hex.prefix(16))…, at byte \(offset)) is corrupt: \(why); it belongs to \(list)"
        case let .io(why): return why
        case let .contentKeyRequired(id): return "the pack is sealed (encrypted) under content key \(id.hex.prefix(16))…, and no such key was given"
        case let .wrongContentKey(e, g): return "the content key \(g.hex.prefix(16))… is not the one the pack is sealed under (\(e.hex.prefix(16))…)"
        }
    }
}
