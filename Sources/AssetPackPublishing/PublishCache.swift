import AssetPackFormat
import Foundation

/// One pack of the last publish: the key of its inputs (`PackCacheKey`) and what the catalog
/// needs to know about the pack file they gave, which lies in the repository at `path`.
struct PublishCacheEntry: Codable, Equatable {
    var key: SHA256Digest
    var id: String
    /// Repository-relative, content-addressed: `packs/<id>/<digest>.pack`.
    var path: String
    var digest: SHA256Digest
    var sha256: SHA256Digest
    var size: UInt64
    var installSize: UInt64
    var indexOffset: UInt64
    var indexLength: UInt64
    /// The pack file's `FileStamp` (`keyText`) once in place in the repository: while the file
    /// there still has it, the file is the one this entry describes and its index is not read
    /// again. Absent in entries written before it, which are checked by their index.
    var packFile: String?
    /// For a pack file with bases: the bytes a fresh install fetches (its frames in the bases
    /// included), and the base's SHA-256 when it has one base (pack format 4) or the bases'
    /// in its index's order when it has a list (format 5). Absent for every other pack file.
    var downloadSize: UInt64?
    var baseSHA256: SHA256Digest?
    var baseSHA256List: [SHA256Digest]?

    /// The SHA-256 of each base of the pack file, in its index's order.
    var baseSHA256s: [SHA256Digest] { baseSHA256.map { [$0] } ?? baseSHA256List ?? [] }

    /// The entry for a pack whose file lies at its content-addressed path.
    init(key: SHA256Digest, info: PackFileInfo) {
        self.key = key
        id = info.metadata.assetPackID
        path = PackFileInfo.repositoryPath(id: id, digest: info.digest)
        digest = info.digest
        sha256 = info.sha256
        size = info.size
        installSize = info.installSize
        indexOffset = info.index.offset
        indexLength = info.index.length
        if !info.baseSHA256s.isEmpty {
            downloadSize = info.downloadSize
            if info.baseSHA256s.count == 1 { baseSHA256 = info.baseSHA256s[0] } else { baseSHA256List = info.baseSHA256s }
        }
    }
}

/// The publish cache file (docs/FORMAT.md, "Publish cache"): what lets a publish skip packaging
/// a pack whose inputs have not changed since the last publish. It is a cache and nothing more:
/// a missing, unreadable, malformed or other-version file counts as empty (with a warning), and
/// every entry is checked against the pack file in the repository before it is used.
struct PublishCache {
    static let format = "assetpack-publish-cache"
    static let version = 1

    private(set) var entries: [SHA256Digest: PublishCacheEntry] = [:]
    /// The Apple Archives the last publishes wrote, by repository-relative path.
    private(set) var appleArchives: [String: AppleArchiveRecord] = [:]

    private struct Header: Codable { var format: String?; var version: Int? }
    private struct Contents: Codable {
        var format: String; var version: Int; var entries: [PublishCacheEntry]
        /// Absent in caches written before Apple Archives were published (and then empty).
        var appleArchives: [AppleArchiveRecord]?
    }

    /// Reads the cache at `path`; a missing file is an empty cache without a warning.
    static func load(path: String) -> (cache: PublishCache, warning: String?) {
        var cache = PublishCache()
        guard FileManager.default.fileExists(atPath: path) else { return (cache, nil) }
        func ignored(_ why: String) -> (PublishCache, String?) {
            (cache, "publish cache \(path): \(why); ignoring it and packaging every pack")
        }
        guard let data = FileManager.default.contents(atPath: path) else { return ignored("cannot read it") }
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else { return ignored("not JSON") }
        guard header.format == format else { return ignored("not a publish cache (\"format\" is not \"\(format)\")") }
        guard header.version == version else {
            return ignored("version \(header.version.map(String.init) ?? "(none)") is not the version this assetpack reads (\(version))")
        }
        let contents: Contents
        do { contents = try JSONDecoder().decode(Contents.self, from: data) } catch {
            return ignored("malformed (\(describe(error)))")
        }
        for entry in contents.entries { cache.entries[entry.key] = entry }
        for record in contents.appleArchives ?? [] { cache.appleArchives[record.path] = record }
        return (cache, nil)
    }

    /// Writes `entries` to `path` atomically: a temporary file beside it, flushed, then renamed.
    static func save(_ entries: [PublishCacheEntry], appleArchives: [AppleArchiveRecord] = [], to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let bytes = try encoder.encode(Contents(format: format, version: version, entries: entries.sorted { $0.id < $1.id },
                                                appleArchives: appleArchives.isEmpty ? nil : appleArchives.sorted { $0.path < $1.path }))
        let file = try AtomicFile(destination: path)
        try file.write([UInt8](bytes) + [0x0A])
        try file.commit()
    }

    private static func describe(_ error: Error) -> String {
        func path(_ keys: [CodingKey]) -> String { keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined() }
        switch error {
        case DecodingError.keyNotFound(let key, let c): return "\(path(c.codingPath + [key])) is missing"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c), DecodingError.dataCorrupted(let c):
            return "\(path(c.codingPath)): \(c.debugDescription)"
        default: return "\(error)"
        }
    }
}
