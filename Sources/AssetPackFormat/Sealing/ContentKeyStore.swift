import Foundation

/// The publisher's file of content keys (docs/FORMAT.md, "Key store"): for each sealed pack its
/// current key and the keys it had before a rotation (clients that still hold an older version
/// may need them). `publish --encrypt` creates and extends it; `assetpack key-server` reads it.
///
/// The file is secret: it is created with mode 0600 and refused when anyone but its owner may
/// read or write it, or when it is not a regular file (a symbolic link is not followed).
public struct ContentKeyStore: Sendable, Equatable {
    public static let format = "assetpack-key-store"
    public static let version = 1

    /// Per pack ID, its keys, the current one first.
    public private(set) var packs: [String: [ContentKey]] = [:]

    public init() {}

    /// Why a key store was refused.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public var description: String
        init(_ path: String, _ why: String) { description = "key store \(path): \(why)" }
    }

    /// The current key of `id`, if the pack is sealed.
    public func currentKey(of id: String) -> ContentKey? { packs[id]?.first }

    /// Every key of `id` (current first).
    public func keys(of id: String) -> [ContentKey] { packs[id] ?? [] }

    /// Every key of every pack.
    public var allKeys: [ContentKey] { packs.values.flatMap { $0 } }

    /// The key of `id` with `keyID`, current or earlier.
    public func key(of id: String, keyID: SHA256Digest) -> ContentKey? { packs[id]?.first { $0.keyID == keyID } }

    /// Makes `key` the current key of `id`, keeping the earlier ones.
    public mutating func setCurrent(_ key: ContentKey, of id: String) {
        var keys = packs[id] ?? []
        keys.removeAll { $0 == key }
        keys.insert(key, at: 0)
        packs[id] = keys
    }

    private struct File: Codable {
        var format: String
        var version: Int
        var packs: [String: [String]]
    }

    /// Checks that `path` is a regular file only its owner can read and write.
    public static func checkPermissions(_ path: String) throws(Problem) {
        var st = stat()
        guard lstat(path, &st) == 0 else { throw Problem(path, "cannot be read: \(String(cString: strerror(errno)))") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw Problem(path, "is not a regular file (a symbolic link is not followed)") }
        let mode = st.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw Problem(path, "has mode 0\(String(mode, radix: 8)), so others may read the content keys; it must be 0600 (chmod 600 '\(path)')")
        }
        guard st.st_uid == geteuid() else { throw Problem(path, "belongs to user \(st.st_uid), not to this user (\(geteuid()))") }
    }

    /// Reads the store at `path`; a missing file is an empty store when `missingIsEmpty`.
    public static func load(_ path: String, missingIsEmpty: Bool = false) throws(Problem) -> ContentKeyStore {
        var st = stat()
        if lstat(path, &st) != 0 && errno == ENOENT {
            if missingIsEmpty { return ContentKeyStore() }
            throw Problem(path, "does not exist")
        }
        try checkPermissions(path)
        guard let data = FileManager.default.contents(atPath: path) else { throw Problem(path, "cannot be read") }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw Problem(path, "is not a key store (JSON with format, version and packs): \(error)")
        }
        guard file.format == format else { throw Problem(path, "format is \"\(file.format)\", not \"\(format)\"") }
        guard file.version == version else { throw Problem(path, "version \(file.version) is not supported (this tool reads version \(version))") }
        var store = ContentKeyStore()
        for (id, encoded) in file.packs {
            if let problem = AssetPackID.problem(with: id) { throw Problem(path, "packs.\(id): the pack ID \(problem)") }
            guard !encoded.isEmpty else { throw Problem(path, "packs.\(id) lists no key") }
            var keys: [ContentKey] = []
            for (i, text) in encoded.enumerated() {
                guard let key = ContentKey(base64: text) else { throw Problem(path, "packs.\(id)[\(i)] is not the base64 of 32 bytes") }
                keys.append(key)
            }
            store.packs[id] = keys
        }
        return store
    }

    /// Writes the store to `path` (mode 0600, by write-temporary-then-rename). An existing file
    /// with wrong permissions is refused, not replaced.
    public func save(to path: String) throws(Problem) {
        var st = stat()
        if lstat(path, &st) == 0 { try Self.checkPermissions(path) }
        let file = File(format: Self.format, version: Self.version, packs: packs.mapValues { $0.map(\.base64) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            let out = try AtomicFile(destination: path, mode: 0o600)
            try out.write([UInt8](try encoder.encode(file)) + [0x0A])
            try out.commit()
        } catch {
            throw Problem(path, "cannot be written: \(error)")
        }
    }
}
