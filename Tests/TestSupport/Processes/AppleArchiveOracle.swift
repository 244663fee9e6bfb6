import Foundation

/// The independent Apple Archive reader in scripts/aar-oracle.py (Python's zlib and lzma, the
/// reference LZFSE implementation's binding): what the tests check the Swift writer against.
public enum AppleArchiveOracle {
    /// The container and the entries the oracle read.
    public struct Listing: Decodable, Sendable {
        public struct Chunk: Decodable, Sendable { public var raw: Int; public var stored: Int }
        public struct Entry: Decodable, Sendable, Equatable {
            public var type: String
            public var path: String
            public var fields: [String]
            public var mode: Int?
            public var uid: Int?
            public var gid: Int?
            public var flags: Int?
            public var mtime: Int?
            public var ctime: Int?
            public var link: String?
            public var size: Int?
            public var sha256: String?

            public init(type: String, path: String, fields: [String], mode: Int? = nil, uid: Int? = nil, gid: Int? = nil, flags: Int? = nil,
                        mtime: Int? = nil, ctime: Int? = nil, link: String? = nil, size: Int? = nil, sha256: String? = nil) {
                (self.type, self.path, self.fields, self.mode, self.uid, self.gid) = (type, path, fields, mode, uid, gid)
                (self.flags, self.mtime, self.ctime, self.link, self.size, self.sha256) = (flags, mtime, ctime, link, size, sha256)
            }
        }
        /// `pbze`, `pbzz`, `pbzx` or `none`.
        public var container: String
        public var blockSize: Int?
        public var chunks: [Chunk]?
        public var streamSize: Int
        public var entries: [Entry]
    }

    /// Reads the archive at `path`; with `extractingTo`, also writes its tree there. Throws the
    /// oracle's complaint when it refuses the archive.
    public static func read(_ path: String, extractingTo directory: String? = nil) throws -> Listing {
        var arguments = ["python3", script, path]
        if let directory { arguments += ["--extract", directory] }
        let result = try ChildProcess.runBlocking("/usr/bin/env", arguments)
        guard result.status == 0 else { throw TestSupportError("aar-oracle refused \(path): \(result.stderr)") }
        return try JSONDecoder().decode(Listing.self, from: result.output)
    }

    /// scripts/aar-oracle.py of this checkout.
    public static let script: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/aar-oracle.py").path
}
