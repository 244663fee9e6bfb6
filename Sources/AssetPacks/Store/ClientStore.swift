import AssetPackFormat
import Foundation

/// A pack as installed: which version, where its files are, and its index (for reads, deltas
/// and the namespace).
struct InstalledPack: Sendable {
    var id: String
    var version: Int
    var digest: SHA256Digest
    /// Relative to the storage root.
    var directory: String
    var downloadSize: UInt64
    var installSize: UInt64
    var language: String?
    var downloadPolicy: DownloadPolicy
    var installedAt: Date
    var lastUsed: Date
    var indexBytes: [UInt8]
    var indexOffset: UInt64
    /// 0…1: with a storage budget, packs of lower priority are evicted first (ODR's
    /// preservation priority). Kept across updates of the pack.
    var preservationPriority: Double = ClientStore.defaultPreservationPriority
    /// The change time (ns since the epoch) the install folder got from the rename that committed
    /// it; 0 when unknown (installed before store version 5). A file of the install whose change
    /// time is earlier has not been written, linked or renamed since the installer verified it.
    var committedChangeTime: Int64 = 0
    /// The boot the install was committed in when its files were left for the kernel to write
    /// back (`Configuration.flushesBeforeCommit` false); nil once they are known to be on the
    /// disk: flushed before the commit, flushed later, or read back intact in a later boot.
    var unflushed: BootSession? = nil
}

/// A download that has started and not yet been installed (it resumes after a restart).
struct PendingDownload: Sendable, Equatable {
    var id: String
    var version: Int
    var digest: SHA256Digest
    /// Relative to the storage root.
    var staging: String
    /// The previous version's digest the plan reused chunks from ("" for none): a resumed
    /// download is only valid against the same base.
    var base: String
}

/// The root and timestamp a client last accepted (root mode), as the store keeps them.
struct AcceptedTrust: Sendable, Equatable {
    /// The pinned root key the chain started from (`ed25519:…`): a different pin starts over.
    var anchor: String
    var rootVersion: Int
    /// The accepted root file's bytes.
    var root: [UInt8]
    var timestampVersion: Int
    /// The accepted `timestamp.json` bytes.
    var timestamp: [UInt8]
    var timestampExpires: Date
    /// When the whole chain was last checked online (by the manager's clock).
    var checkedAt: Date
}

/// The client's state in SQLite (WAL), changed only in transactions, so that a crash at any
/// moment leaves it consistent: settings, the last accepted catalog, installed packs, the merged
/// namespace, and downloads in progress. Schema: docs/FORMAT.md, "Client store".
final class ClientStore: @unchecked Sendable {
    static let schemaVersion: Int64 = 7
    static let defaultPreservationPriority = 0.5
    private let db: SQLiteDatabase

    init(path: String) throws {
        db = try SQLiteDatabase(path: path)
        let version = try db.query("PRAGMA user_version").first?.first?.int ?? 0
        guard version <= Self.schemaVersion else {
            throw AssetPackManagerError.storage("\(path) has schema version \(version); this client understands up to \(Self.schemaVersion)")
        }
        try db.transaction {
            if version == 1 {
                // 1 → 2: the preservation priority of installed packs.
                try db.execute("ALTER TABLE installed_packs ADD COLUMN preservation_priority REAL NOT NULL DEFAULT \(Self.defaultPreservationPriority)")
            }
            // 1…4 → 5: the change time of each install's commit (0: unknown, its files are
            // hashed), where the table exists already (a store of those versions may lack it).
            if (1..<5).contains(version),
               try db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'installed_packs'").first != nil {
                try db.execute("ALTER TABLE installed_packs ADD COLUMN committed_ctime INTEGER NOT NULL DEFAULT 0")
            }
            // 1…5 → 6: the boot an install whose files were not flushed was committed in (NULL:
            // flushed, as every install of those versions was).
            if (1..<6).contains(version),
               try db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'installed_packs'").first != nil {
                try db.execute("ALTER TABLE installed_packs ADD COLUMN unflushed_boot TEXT")
                try db.execute("ALTER TABLE installed_packs ADD COLUMN unflushed_uptime INTEGER NOT NULL DEFAULT 0")
            }
            // 1…6 → 7: the namespace becomes one B-tree keyed by (path, pack_id), without the
            // rowid table, its index of the key and the by-pack index each insert also wrote.
            if (1..<7).contains(version),
               try db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'namespace'").first != nil {
                try db.execute("""
                CREATE TABLE namespace_7 (path TEXT NOT NULL, pack_id TEXT NOT NULL, PRIMARY KEY (path, pack_id)) WITHOUT ROWID;
                INSERT INTO namespace_7(path, pack_id) SELECT path, pack_id FROM namespace;
                DROP TABLE namespace;
                ALTER TABLE namespace_7 RENAME TO namespace;
                """)
            }
            try db.execute("""
            CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS catalog (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                version INTEGER NOT NULL, payload BLOB NOT NULL, envelope BLOB NOT NULL, fetched_at INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS installed_packs (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, digest TEXT NOT NULL, directory TEXT NOT NULL,
                download_size INTEGER NOT NULL, install_size INTEGER NOT NULL, language TEXT, policy TEXT NOT NULL,
                installed_at INTEGER NOT NULL, last_used INTEGER NOT NULL, index_bytes BLOB NOT NULL, index_offset INTEGER NOT NULL,
                preservation_priority REAL NOT NULL DEFAULT \(Self.defaultPreservationPriority),
                committed_ctime INTEGER NOT NULL DEFAULT 0, unflushed_boot TEXT, unflushed_uptime INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE IF NOT EXISTS namespace (
                path TEXT NOT NULL, pack_id TEXT NOT NULL, PRIMARY KEY (path, pack_id)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS trust (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                anchor TEXT NOT NULL, root_version INTEGER NOT NULL, root BLOB NOT NULL,
                timestamp_version INTEGER NOT NULL, timestamp BLOB NOT NULL, timestamp_expires INTEGER NOT NULL,
                checked_at INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS content_keys (
                pack_id TEXT NOT NULL, key_id TEXT NOT NULL, key BLOB NOT NULL, PRIMARY KEY (pack_id, key_id));
            CREATE TABLE IF NOT EXISTS downloads (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, digest TEXT NOT NULL, staging TEXT NOT NULL,
                base TEXT NOT NULL, started_at INTEGER NOT NULL);
            PRAGMA user_version = \(Self.schemaVersion);
            """)
        }
    }

    // MARK: Settings

    func setting(_ key: String) throws -> String? {
        try db.query("SELECT value FROM settings WHERE key = ?1", [.text(key)]).first?.first?.string
    }

    func setSetting(_ key: String, _ value: String?) throws {
        if let value {
            try db.query("INSERT INTO settings(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [.text(key), .text(value)])
        } else {
            try db.query("DELETE FROM settings WHERE key = ?1", [.text(key)])
        }
    }

    // MARK: Catalog

    /// The last accepted catalog: its version, the verified payload and the signed file.
    func acceptedCatalog() throws -> (version: Int, payload: [UInt8], envelope: [UInt8])? {
        guard let row = try db.query("SELECT version, payload, envelope FROM catalog WHERE singleton = 1").first,
              let v = row[0].int, let payload = row[1].bytes, let envelope = row[2].bytes else { return nil }
        return (Int(v), payload, envelope)
    }

    /// Records an accepted catalog of `channel` (nil: the default channel) and raises that
    /// channel's rollback floor to its version, in one transaction.
    func acceptCatalog(version: Int, payload: [UInt8], envelope: [UInt8], channel: String?) throws {
        try db.transaction { try recordCatalog(version: version, payload: payload, envelope: envelope, channel: channel) }
    }

    /// The entity tag a mirror sent with the accepted catalog (`CatalogValidator`); nil when none.
    func catalogValidator() throws -> CatalogValidator? {
        try setting(CatalogValidator.settingKey).flatMap(CatalogValidator.init(text:))
    }

    func setCatalogValidator(_ validator: CatalogValidator?) throws {
        try setSetting(CatalogValidator.settingKey, validator?.text)
    }

    /// The highest catalog version accepted from `channel` (the `catalogFloor.NAME` setting; for
    /// the default channel, before any channel was followed, the catalog row's version); nil
    /// when none was.
    func catalogFloor(channel: String?) throws -> Int? {
        if let text = try setting(Self.floorKey(channel)) { return Int(text) }
        guard channel == nil, let accepted = try acceptedCatalog(),
              (try? CatalogCoding.decode(accepted.payload))?.channel == nil else { return nil }
        return accepted.version
    }

    /// The storage root's rollout bucket (0…99): drawn at random the first time it is asked for,
    /// then kept (the `rolloutBucket` setting), so that the root stays on its side of a rollout.
    func rolloutBucket() throws -> Int {
        if let text = try setting("rolloutBucket"), let bucket = Int(text), (0..<100).contains(bucket) { return bucket }
        let bucket = Int.random(in: 0..<100)
        try setSetting("rolloutBucket", String(bucket))
        return bucket
    }

    private static func floorKey(_ channel: String?) -> String { "catalogFloor.\(channel ?? ChannelName.defaultName)" }

    private func recordCatalog(version: Int, payload: [UInt8], envelope: [UInt8], channel: String?) throws {
        // A store from before channels keeps its default channel's floor in the catalog row only:
        // written out before another channel's catalog replaces the row.
        if let accepted = try acceptedCatalog(), let previous = try? CatalogCoding.decode(accepted.payload),
           try setting(Self.floorKey(previous.channel)) == nil {
            try setSetting(Self.floorKey(previous.channel), String(accepted.version))
        }
        if version > (try catalogFloor(channel: channel) ?? 0) { try setSetting(Self.floorKey(channel), String(version)) }
        try db.query("""
            INSERT INTO catalog(singleton, version, payload, envelope, fetched_at) VALUES (1, ?1, ?2, ?3, ?4)
            ON CONFLICT(singleton) DO UPDATE SET version = excluded.version, payload = excluded.payload,
            envelope = excluded.envelope, fetched_at = excluded.fetched_at
            """, [.integer(Int64(version)), .blob(payload), .blob(envelope), .integer(Int64(Date().timeIntervalSince1970))])
    }

    // MARK: Root and timestamp

    /// The root and timestamp last accepted, with the pinned key the chain started from.
    func acceptedTrust() throws -> AcceptedTrust? {
        guard let r = try db.query("""
            SELECT anchor, root_version, root, timestamp_version, timestamp, timestamp_expires, checked_at FROM trust WHERE singleton = 1
            """).first, let anchor = r[0].string, let rootVersion = r[1].int, let root = r[2].bytes, let tsVersion = r[3].int,
              let ts = r[4].bytes, let expires = r[5].int, let checked = r[6].int else { return nil }
        return AcceptedTrust(anchor: anchor, rootVersion: Int(rootVersion), root: root, timestampVersion: Int(tsVersion), timestamp: ts,
                             timestampExpires: Date(timeIntervalSince1970: Double(expires)), checkedAt: Date(timeIntervalSince1970: Double(checked)))
    }

    /// Records an accepted root, timestamp and catalog in one transaction: nothing of a refresh
    /// is kept unless every check of all three passed. A nil `payload` keeps the catalog row as
    /// it is (the catalog accepted is the one held).
    func acceptTrusted(_ trust: AcceptedTrust, catalogVersion: Int, payload: [UInt8]?, envelope: [UInt8], channel: String?) throws {
        try db.transaction {
            try db.query("""
                INSERT INTO trust(singleton, anchor, root_version, root, timestamp_version, timestamp, timestamp_expires, checked_at)
                VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)
                ON CONFLICT(singleton) DO UPDATE SET anchor = excluded.anchor, root_version = excluded.root_version, root = excluded.root,
                timestamp_version = excluded.timestamp_version, timestamp = excluded.timestamp,
                timestamp_expires = excluded.timestamp_expires, checked_at = excluded.checked_at
                """, [.text(trust.anchor), .integer(Int64(trust.rootVersion)), .blob(trust.root), .integer(Int64(trust.timestampVersion)),
                      .blob(trust.timestamp), .integer(Int64(trust.timestampExpires.timeIntervalSince1970)),
                      .integer(Int64(trust.checkedAt.timeIntervalSince1970))])
            if let payload { try recordCatalog(version: catalogVersion, payload: payload, envelope: envelope, channel: channel) }
        }
    }

    // MARK: Installed packs

    func installedPacks() throws -> [InstalledPack] {
        try db.query("""
            SELECT id, version, digest, directory, download_size, install_size, language, policy, installed_at, last_used,
                   index_bytes, index_offset, preservation_priority, committed_ctime FROM installed_packs ORDER BY id
            """).compactMap(Self.installedPack)
    }

    func installedPack(_ id: String) throws -> InstalledPack? {
        try db.query("""
            SELECT id, version, digest, directory, download_size, install_size, language, policy, installed_at, last_used,
                   index_bytes, index_offset, preservation_priority, committed_ctime FROM installed_packs WHERE id = ?1
            """, [.text(id)]).first.flatMap(Self.installedPack)
    }

    private static func installedPack(_ r: [SQLiteValue]) -> InstalledPack? {
        guard let id = r[0].string, let version = r[1].int, let digestHex = r[2].string, let digest = SHA256Digest(hex: digestHex),
              let directory = r[3].string, let download = r[4].int, let install = r[5].int, let policyJSON = r[7].string,
              let policy = try? JSONDecoder().decode(DownloadPolicy.self, from: Data(policyJSON.utf8)),
              let installed = r[8].int, let used = r[9].int, let index = r[10].bytes, let offset = r[11].int,
              let priority = r[12].double, let committed = r[13].int else { return nil }
        return InstalledPack(id: id, version: Int(version), digest: digest, directory: directory, downloadSize: UInt64(download),
                             installSize: UInt64(install), language: r[6].string, downloadPolicy: policy,
                             installedAt: Date(timeIntervalSince1970: Double(installed)), lastUsed: Date(timeIntervalSince1970: Double(used)),
                             indexBytes: index, indexOffset: UInt64(offset), preservationPriority: priority,
                             committedChangeTime: committed)
    }

    /// The installed version a commit replaces, as its caller decoded it from the store: its
    /// stored index bytes and offset, and the index they decode to.
    struct ReplacedVersion {
        var indexBytes: [UInt8]
        var indexOffset: UInt64
        var index: PackIndex
    }

    /// Records `pack` as installed (replacing any earlier version, whose preservation priority it
    /// keeps), its paths in the namespace, and the end of its download, in one transaction.
    /// `replacing`: the earlier version as the caller decoded it; its index stands in for the
    /// stored one when the row still holds exactly those bytes, so that an update does not hold a
    /// third decoded index (beside the new and the previous one) while it commits.
    func commitInstall(_ pack: InstalledPack, paths: some BoundTexts, replacing: ReplacedVersion? = nil) throws {
        let policy = String(decoding: try JSONEncoder().encode(pack.downloadPolicy), as: UTF8.self)
        try db.transaction {
            let priority = try db.query("SELECT preservation_priority FROM installed_packs WHERE id = ?1", [.text(pack.id)])
                .first?.first?.double ?? pack.preservationPriority
            try deletePack(pack.id, decoded: replacing, keeping: paths)
            try db.query("""
                INSERT INTO installed_packs(id, version, digest, directory, download_size, install_size, language, policy,
                    installed_at, last_used, index_bytes, index_offset, preservation_priority, committed_ctime,
                    unflushed_boot, unflushed_uptime)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)
                """, [.text(pack.id), .integer(Int64(pack.version)), .text(pack.digest.hex), .text(pack.directory),
                      .integer(Int64(pack.downloadSize)), .integer(Int64(pack.installSize)), pack.language.map { .text($0) } ?? .null,
                      .text(policy), .integer(Int64(pack.installedAt.timeIntervalSince1970)),
                      .integer(Int64(pack.lastUsed.timeIntervalSince1970)), .blob(pack.indexBytes), .integer(Int64(pack.indexOffset)),
                      .real(priority), .integer(pack.committedChangeTime),
                      pack.unflushed.map { .text($0.id) } ?? .null, .integer(pack.unflushed?.uptime ?? 0)])
            // A row already there for a path of this pack (one its earlier index did not list, so
            // the keyed deletion left it: a tampered store) is the row wanted.
            // (`WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT.)
            try db.run("INSERT INTO namespace(path, pack_id) SELECT value, ?2 FROM json_each(?1) WHERE true ON CONFLICT DO NOTHING",
                       constant: .text(pack.id), jsonArraysOf: paths)
            try db.query("DELETE FROM downloads WHERE id = ?1", [.text(pack.id)])
        }
    }

    // MARK: Content keys

    /// The cached content key of pack `id` with `keyID`, if any.
    func contentKey(of id: String, keyID: SHA256Digest) throws -> ContentKey? {
        guard let bytes = try db.query("SELECT key FROM content_keys WHERE pack_id = ?1 AND key_id = ?2", [.text(id), .text(keyID.hex)])
            .first?.first?.bytes, let key = ContentKey(bytes: bytes), key.keyID == keyID else { return nil }
        return key
    }

    /// Caches `key` for pack `id`.
    func cacheContentKey(_ key: ContentKey, of id: String) throws {
        try db.query("INSERT OR REPLACE INTO content_keys(pack_id, key_id, key) VALUES (?1, ?2, ?3)",
                     [.text(id), .text(key.keyID.hex), .blob(key.bytes)])
    }

    /// Keeps only the content key `keyID` of pack `id` (the installed version's); nil drops all.
    func keepContentKey(_ keyID: SHA256Digest?, of id: String) throws {
        try db.query("DELETE FROM content_keys WHERE pack_id = ?1 AND key_id != ?2", [.text(id), .text(keyID?.hex ?? "")])
    }

    func removeInstalled(_ id: String) throws {
        try db.transaction { try deletePack(id) }
    }

    /// Deletes the row of installed pack `id` and its namespace rows: one primary-key lookup
    /// for each path its stored index lists, so that the cost is the pack's and not the whole
    /// namespace's; a scan of the namespace when that index does not decode (a store from
    /// before indexes were kept, or a damaged one). The store keeps a sealed pack's index opened
    /// (version 3 in plaintext). `decoded`: an index the caller already
    /// decoded, used when the row holds exactly its bytes and offset.
    ///
    /// `keeping`: the paths of the version that replaces it, in pack order. The rows of the paths
    /// both versions hold are left as they are (the insertion of the new version's paths finds
    /// them there and writes nothing): an update that changes a few files of a hundred thousand
    /// writes a few rows, not every row twice.
    private func deletePack(_ id: String, decoded: ReplacedVersion? = nil, keeping: (some BoundTexts)? = [String]?.none) throws {
        guard let row = try db.query("SELECT index_bytes, index_offset FROM installed_packs WHERE id = ?1", [.text(id)]).first else {
            return
        }
        if let bytes = row[0].bytes, let offset = row[1].int, offset >= 0,
           let index = decoded.flatMap({ $0.indexBytes == bytes && $0.indexOffset == UInt64(offset) ? $0.index : nil })
            ?? (try? PackIndex.decode(bytes, indexOffset: UInt64(offset), opened: true)) {
            let paths = keeping.map { PackPaths.dropped(from: index.files, keeping: $0) } ?? PackPaths(files: index.files)
            try db.run("DELETE FROM namespace WHERE path = ?1 AND pack_id = ?2", constant: .text(id), forEach: paths)
        } else {
            try db.query("DELETE FROM namespace WHERE pack_id = ?1", [.text(id)])
        }
        try db.query("DELETE FROM installed_packs WHERE id = ?1", [.text(id)])
    }

    /// Marks pack `id` used at `date` (whole seconds). A read in the second already recorded
    /// changes no row, so it writes nothing and waits for no flush.
    func touch(_ id: String, at date: Date) throws {
        try db.query("UPDATE installed_packs SET last_used = ?2 WHERE id = ?1 AND last_used <> ?2",
                     [.text(id), .integer(Int64(date.timeIntervalSince1970))])
    }

    /// The installed packs whose files were left for the kernel to write back, with the boot
    /// each was committed in.
    func unflushedInstalls() throws -> [InstalledPack] {
        try db.query("""
            SELECT id, version, digest, directory, download_size, install_size, language, policy, installed_at, last_used,
                   index_bytes, index_offset, preservation_priority, committed_ctime, unflushed_boot, unflushed_uptime
            FROM installed_packs WHERE unflushed_boot IS NOT NULL ORDER BY id
            """).compactMap { r in
            guard var pack = Self.installedPack(r), let boot = r[14].string, let uptime = r[15].int else { return nil }
            pack.unflushed = BootSession(id: boot, uptime: uptime)
            return pack
        }
    }

    /// Records that the files of each install in `packs` are on the disk; a pack installed again
    /// since (another digest) is left as it is. One statement a pack, no transaction of its own:
    /// it may run on a thread beside another one's transaction, and a mark lost with that
    /// transaction's rollback costs only a check later.
    func markFlushed(_ packs: [InstalledPack]) throws {
        for p in packs {
            try db.query("UPDATE installed_packs SET unflushed_boot = NULL, unflushed_uptime = 0 WHERE id = ?1 AND digest = ?2",
                         [.text(p.id), .text(p.digest.hex)])
        }
    }

    /// Records a later change time that the install of pack `id` at `digest` vouches for
    /// (`InstalledPack.committedChangeTime`); a pack installed again since is left as it is.
    func setCommittedChangeTime(_ time: Int64, of id: String, digest: SHA256Digest) throws {
        try db.query("UPDATE installed_packs SET committed_ctime = ?3 WHERE id = ?1 AND digest = ?2",
                     [.text(id), .text(digest.hex), .integer(time)])
    }

    /// The folders of the installed packs, without reading their indexes (for recovery at start).
    func installedDirectories() throws -> [String] {
        try db.query("SELECT directory FROM installed_packs").compactMap { $0[0].string }
    }

    /// Sets the preservation priority of installed pack `id`; false when it is not installed.
    func setPreservationPriority(_ priority: Double, of id: String) throws -> Bool {
        try db.query("UPDATE installed_packs SET preservation_priority = ?2 WHERE id = ?1 RETURNING id", [.text(id), .real(priority)])
            .isEmpty == false
    }

    // MARK: Namespace

    /// The installed packs that hold `path`, by ID.
    func packs(holding path: String) throws -> [String] {
        try db.query("SELECT pack_id FROM namespace WHERE path = ?1 ORDER BY pack_id", [.text(path)]).compactMap { $0[0].string }
    }

    /// An installed pack that holds a path: what a lookup needs to choose among holders and open
    /// the file, without the pack's index.
    struct Holder: Sendable {
        var id: String
        var directory: String
        var language: String?
    }

    /// The installed packs that hold `path`, by ID: one indexed lookup (the namespace's primary
    /// key starts with the path) joined with the packs' rows.
    func holders(of path: String) throws -> [Holder] {
        try db.query("""
            SELECT p.id, p.directory, p.language FROM namespace n JOIN installed_packs p ON p.id = n.pack_id
            WHERE n.path = ?1 ORDER BY p.id
            """, [.text(path)]).compactMap { r in
            guard let id = r[0].string, let directory = r[1].string else { return nil }
            return Holder(id: id, directory: directory, language: r[2].string)
        }
    }

    /// Every path with the packs that hold it, in path order, read in one pass over the
    /// namespace's primary key (no sort) and grouped as the rows arrive; a row whose path is the
    /// previous one's adds its pack without making a string of the path again. (SQLite's own
    /// GROUP BY with group_concat is several times slower than this plain scan.)
    func namespaceEntries() throws -> [(path: String, packIDs: [String])] {
        var out: [(path: String, packIDs: [String])] = []
        var last: [UInt8] = []
        try db.forEachRow("SELECT path, pack_id FROM namespace ORDER BY path, pack_id") { row in
            guard let id = row.text(1) else { return }
            let same = row.withText(0) { path in !out.isEmpty && path.elementsEqual(last) }
            if same {
                out[out.count - 1].packIDs.append(id)
            } else if let path = row.text(0) {
                last = Array(path.utf8)
                out.append((path, [id]))
            }
        }
        return out
    }

    /// Each namespace row (path, pack ID) as bytes, in path order, without making strings:
    /// for a listing written straight to the output.
    func forEachNamespaceRow(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) throws {
        try db.forEachRow("SELECT path, pack_id FROM namespace ORDER BY path, pack_id") { row in
            row.withText(0) { path in row.withText(1) { id in body(path, id) } }
        }
    }

    // MARK: Downloads

    func pendingDownload(_ id: String) throws -> PendingDownload? {
        guard let r = try db.query("SELECT id, version, digest, staging, base FROM downloads WHERE id = ?1", [.text(id)]).first,
              let version = r[1].int, let hex = r[2].string, let digest = SHA256Digest(hex: hex), let staging = r[3].string,
              let base = r[4].string else { return nil }
        return PendingDownload(id: id, version: Int(version), digest: digest, staging: staging, base: base)
    }

    func pendingDownloads() throws -> [PendingDownload] {
        try db.query("SELECT id FROM downloads ORDER BY id").compactMap { $0[0].string }.compactMap { try pendingDownload($0) }
    }

    func beginDownload(_ d: PendingDownload) throws {
        try db.query("""
            INSERT INTO downloads(id, version, digest, staging, base, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT(id) DO UPDATE SET version = excluded.version, digest = excluded.digest, staging = excluded.staging,
            base = excluded.base, started_at = excluded.started_at
            """, [.text(d.id), .integer(Int64(d.version)), .text(d.digest.hex), .text(d.staging), .text(d.base),
                  .integer(Int64(Date().timeIntervalSince1970))])
    }

    func endDownload(_ id: String) throws {
        try db.query("DELETE FROM downloads WHERE id = ?1", [.text(id)])
    }
}
