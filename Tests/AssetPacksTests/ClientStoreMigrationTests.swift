@testable import AssetPacks
import Foundation
import TestSupport
import Testing

/// The client store's schema version: a version-1 store (before preservation priorities, commit
/// times and unflushed installs) and a version-2 store (before the trust table) open and migrate
/// to the current version with their rows intact, a version-6 namespace is rebuilt without rowids;
/// a store of a newer version is refused.
@Suite struct ClientStoreMigrationTests {
    /// The version-1 schema of installed_packs and namespace (a rowid table with a foreign key
    /// that deletes a pack's rows with it).
    static let version1Tables = """
        CREATE TABLE installed_packs (
            id TEXT PRIMARY KEY, version INTEGER NOT NULL, digest TEXT NOT NULL, directory TEXT NOT NULL,
            download_size INTEGER NOT NULL, install_size INTEGER NOT NULL, language TEXT, policy TEXT NOT NULL,
            installed_at INTEGER NOT NULL, last_used INTEGER NOT NULL, index_bytes BLOB NOT NULL, index_offset INTEGER NOT NULL);
        CREATE TABLE namespace (
            path TEXT NOT NULL, pack_id TEXT NOT NULL REFERENCES installed_packs(id) ON DELETE CASCADE,
            PRIMARY KEY (path, pack_id));
        """

    /// The path of a store file in `dir` made by `sql`.
    static func store(in dir: TemporaryDirectory, _ sql: String) throws -> String {
        let path = dir.file("state.sqlite")
        try SQLiteDatabase(path: path).execute(sql)
        return path
    }

    @Test func aVersion1StoreMigrates() throws {
        // A version-1 store with one pack.
        let dir = try TemporaryDirectory("store")
        let path = try Self.store(in: dir, """
            \(Self.version1Tables)
            INSERT INTO installed_packs VALUES ('Old', 3, '\(String(repeating: "ab", count: 32))', 'packs/Old/3-abababababababab',
                10, 20, NULL, '{"onDemand":{}}', 1700000000, 1700000100, x'00', 0);
            INSERT INTO namespace VALUES ('old.txt', 'Old');
            PRAGMA user_version = 1;
            """)
        let store = try ClientStore(path: path)
        let old = try #require(try store.installedPack("Old"))
        #expect(old.version == 3 && old.installSize == 20 && old.lastUsed == Date(timeIntervalSince1970: 1_700_000_100))
        #expect(old.preservationPriority == 0.5)
        #expect(old.committedChangeTime == 0, "a pack installed before version 5 has no commit time: the share hashes its chunks")
        #expect(old.unflushed == nil, "every install before version 6 was flushed before its commit")
        #expect(try store.unflushedInstalls().isEmpty)
        #expect(try store.packs(holding: "old.txt") == ["Old"])
        #expect(try store.setPreservationPriority(0.75, of: "Old"))
        #expect(try ClientStore(path: path).installedPack("Old")?.preservationPriority == 0.75)
        #expect(try SQLiteDatabase(path: path).query("PRAGMA user_version").first?.first?.int == ClientStore.schemaVersion)
        // Its stored index does not decode (`x'00'`): removing it finds its namespace rows by
        // a scan.
        try store.removeInstalled("Old")
        #expect(try store.packs(holding: "old.txt").isEmpty)
    }

    /// Version 7 keeps the namespace in one B-tree keyed by (path, pack): a version-6 store's
    /// rowid table, with its index by pack, is rebuilt that way with every row.
    @Test func aVersion6NamespaceIsRebuiltWithoutRowids() throws {
        let dir = try TemporaryDirectory("store")
        let path = try Self.store(in: dir, """
            \(Self.version1Tables)
            ALTER TABLE installed_packs ADD COLUMN preservation_priority REAL NOT NULL DEFAULT 0.5;
            ALTER TABLE installed_packs ADD COLUMN committed_ctime INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE installed_packs ADD COLUMN unflushed_boot TEXT;
            ALTER TABLE installed_packs ADD COLUMN unflushed_uptime INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX namespace_by_pack ON namespace(pack_id);
            INSERT INTO installed_packs(id, version, digest, directory, download_size, install_size, policy, installed_at,
                last_used, index_bytes, index_offset) VALUES
                ('A', 1, '\(String(repeating: "ab", count: 32))', 'packs/A/1-abababababababab', 1, 1, '{"onDemand":{}}', 0, 0, x'00', 0),
                ('B', 1, '\(String(repeating: "cd", count: 32))', 'packs/B/1-cdcdcdcdcdcdcdcd', 1, 1, '{"onDemand":{}}', 0, 0, x'00', 0);
            INSERT INTO namespace VALUES ('shared.txt', 'A'), ('shared.txt', 'B'), ('a.txt', 'A');
            PRAGMA user_version = 6;
            """)
        let store = try ClientStore(path: path)
        #expect(try store.namespaceEntries().map { "\($0.path):\($0.packIDs.joined(separator: ","))" } == ["a.txt:A", "shared.txt:A,B"])
        let db = try SQLiteDatabase(path: path)
        let schema = try db.query("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'namespace' AND sql IS NOT NULL")
        #expect(schema.count == 1 && schema[0][1].string?.contains("WITHOUT ROWID") == true, "\(schema)")
        #expect(try db.query("PRAGMA user_version").first?.first?.int == ClientStore.schemaVersion)
        try store.removeInstalled("A")
        #expect(try store.namespaceEntries().map { "\($0.path):\($0.packIDs.joined(separator: ","))" } == ["shared.txt:B"])
    }

    @Test func aVersion2StoreGainsTheTrustTable() throws {
        let dir = try TemporaryDirectory("store")
        let path = try Self.store(in: dir, """
            CREATE TABLE catalog (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                version INTEGER NOT NULL, payload BLOB NOT NULL, envelope BLOB NOT NULL, fetched_at INTEGER NOT NULL);
            INSERT INTO catalog VALUES (1, 7, x'7b7d', x'7b7d', 1700000000);
            PRAGMA user_version = 2;
            """)
        let store = try ClientStore(path: path)
        #expect(try store.acceptedCatalog()?.version == 7)
        #expect(try store.acceptedTrust() == nil)
        let trust = AcceptedTrust(anchor: "ed25519:x", rootVersion: 2, root: [1], timestampVersion: 5, timestamp: [2],
                                  timestampExpires: Date(timeIntervalSince1970: 1_700_086_400), checkedAt: Date(timeIntervalSince1970: 1_700_000_000))
        try store.acceptTrusted(trust, catalogVersion: 8, payload: [3], envelope: [4], channel: nil)
        #expect(try ClientStore(path: path).acceptedTrust() == trust)
        #expect(try store.acceptedCatalog()?.version == 8)
        #expect(try SQLiteDatabase(path: path).query("PRAGMA user_version").first?.first?.int == ClientStore.schemaVersion)
    }

    @Test func aNewerStoreIsRefused() throws {
        let dir = try TemporaryDirectory("store")
        let path = dir.file("state.sqlite")
        try SQLiteDatabase(path: path).execute("PRAGMA user_version = \(ClientStore.schemaVersion + 1)")
        do {
            _ = try ClientStore(path: path)
            Issue.record("a store of a newer version was opened")
        } catch let AssetPackManagerError.storage(why) {
            #expect(why.contains("schema version \(ClientStore.schemaVersion + 1)") && why.contains("up to \(ClientStore.schemaVersion)"), "\(why)")
        }
    }
}
