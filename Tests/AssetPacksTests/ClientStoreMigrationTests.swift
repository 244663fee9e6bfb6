@testable import AssetPacks
import Foundation
import TestSupport
import Testing

/// The client store's schema version: a version-1 store (before preservation priorities, commit
/// times and unflushed installs) and a version-2 store (before the trust table) open and migrate
/// to the current version with their rows intact; a store of a newer version is refused.
@Suite struct ClientStoreMigrationTests {
    @Test func aVersion1StoreMigrates() throws {
        let dir = try TemporaryDirectory("store")
        let path = dir.file("state.sqlite")
        do {
            // The version-1 schema of installed_packs and namespace, with one pack.
            let db = try SQLiteDatabase(path: path)
            try db.execute("""
            CREATE TABLE installed_packs (
                id TEXT PRIMARY KEY, version INTEGER NOT NULL, digest TEXT NOT NULL, directory TEXT NOT NULL,
                download_size INTEGER NOT NULL, install_size INTEGER NOT NULL, language TEXT, policy TEXT NOT NULL,
                installed_at INTEGER NOT NULL, last_used INTEGER NOT NULL, index_bytes BLOB NOT NULL, index_offset INTEGER NOT NULL);
            CREATE TABLE namespace (
                path TEXT NOT NULL, pack_id TEXT NOT NULL REFERENCES installed_packs(id) ON DELETE CASCADE,
                PRIMARY KEY (path, pack_id));
            INSERT INTO installed_packs VALUES ('Old', 3, '\(String(repeating: "ab", count: 32))', 'packs/Old/3-abababababababab',
                10, 20, NULL, '{"onDemand":{}}', 1700000000, 1700000100, x'00', 0);
            INSERT INTO namespace VALUES ('old.txt', 'Old');
            PRAGMA user_version = 1;
            """)
        }
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
    }

    @Test func aVersion2StoreGainsTheTrustTable() throws {
        let dir = try TemporaryDirectory("store")
        let path = dir.file("state.sqlite")
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("""
            CREATE TABLE catalog (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                version INTEGER NOT NULL, payload BLOB NOT NULL, envelope BLOB NOT NULL, fetched_at INTEGER NOT NULL);
            INSERT INTO catalog VALUES (1, 7, x'7b7d', x'7b7d', 1700000000);
            PRAGMA user_version = 2;
            """)
        }
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
