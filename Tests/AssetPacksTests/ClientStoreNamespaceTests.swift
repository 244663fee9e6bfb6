@testable import AssetPacks
import AssetPackFormat
import Foundation
import TestSupport
import Testing

/// The namespace rows a commit writes: a pack's paths go to SQLite as JSON arrays of strings, in
/// batches, and come back byte for byte, whatever characters they hold and however many there are.
@Suite struct ClientStoreNamespaceTests {
    static func pack(_ id: String) -> InstalledPack {
        InstalledPack(id: id, version: 1, digest: SHA256Digest.hash(Array(id.utf8)), directory: "packs/\(id)/1-0000000000000000",
                      downloadSize: 1, installSize: 1, language: nil, downloadPolicy: .onDemand,
                      installedAt: Date(timeIntervalSince1970: 0), lastUsed: Date(timeIntervalSince1970: 0),
                      indexBytes: [0], indexOffset: 0)
    }

    /// Quotation marks, reverse solidi, a control character (no pack path has one, but the
    /// encoding does not rely on that), non-ASCII letters and an emoji; and 20,000 more paths
    /// than fit in two batches.
    @Test func everyPathComesBackAsCommitted() throws {
        let dir = try TemporaryDirectory("store")
        let store = try ClientStore(path: dir.file("state.sqlite"))
        let odd = ["a \"quoted\" name.txt", "back\\slash\\\\.txt", "tab\there.txt", "été/über.txt", "emoji 😀.txt", "\\\"/\"\\"]
        let many = (0..<20_000).map { String(format: "many/%02d/file-%05d.json", $0 % 97, $0) }
        let paths = (odd + many).sorted { PackPath.precedes($0, $1) }
        try store.commitInstall(Self.pack("A"), paths: paths)
        try store.commitInstall(Self.pack("B"), paths: odd)
        let entries = try store.namespaceEntries()
        #expect(Set(entries.map(\.path)) == Set(paths))
        #expect(entries.count == paths.count)
        for entry in entries {
            #expect(entry.packIDs == (odd.contains(entry.path) ? ["A", "B"] : ["A"]), "\(entry.path)")
        }
        #expect(try store.packs(holding: "tab\there.txt") == ["A", "B"])
    }

    /// The array's bytes parse as JSON to the same strings, escapes included.
    @Test func theEncodedArrayIsJSON() throws {
        let strings = ["plain", "\"", "\\", "\u{01}\u{1F}", "é😀", ""]
        var bytes: [UInt8] = [0xFF]
        JSONStringArray.encode(strings, into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"["plain","\"","\\","\u0001\u001f","é😀",""]"#)
        #expect(try JSONDecoder().decode([String].self, from: Data(bytes)) == strings)
    }

    static func index(_ paths: [String], formatVersion: UInt32 = PackLayout.formatVersion) -> PackIndex {
        PackIndex(metadata: PackMetadata(assetPackID: "A", downloadPolicy: .onDemand, platforms: [.iOS], language: nil),
                  chunking: .default, chunks: [], sequence: [], files: paths.map { FileEntry(path: $0, mode: 0o644, size: 0) },
                  formatVersion: formatVersion)
    }

    static func version(_ n: Int, _ index: PackIndex) -> InstalledPack {
        var pack = Self.pack("A")
        pack.version = n
        pack.indexBytes = index.encodedForStore()
        pack.indexOffset = UInt64(PackLayout.headerSize)   // no chunks: the index follows the header
        return pack
    }

    /// An update's commit removes the previous version's rows by the index its caller already
    /// decoded, but only when the row still holds exactly the bytes that index came from.
    @Test func theReplacedVersionsIndexIsUsedOnlyForTheBytesItCameFrom() throws {
        let dir = try TemporaryDirectory("store-replace")
        let store = try ClientStore(path: dir.file("state.sqlite"))
        func paths() throws -> [String] { try store.namespaceEntries().map(\.path).sorted() }
        let first = Self.index(["a.txt", "b.txt", "gone.txt"])
        let v1 = Self.version(1, first)
        try store.commitInstall(v1, paths: first.files.map(\.path))

        // The row holds v1's bytes: the given index is the one its rows are removed by. (Here it
        // lists b.txt only, so a.txt and gone.txt stay: proof that it, and not a decode of the
        // row, was used; a real caller passes the decode of those very bytes.)
        let second = Self.index(["c.txt"])
        let v2 = Self.version(2, second)
        try store.commitInstall(v2, paths: ["c.txt"],
                                replacing: .init(indexBytes: v1.indexBytes, indexOffset: v1.indexOffset, index: Self.index(["b.txt"])))
        #expect(try paths() == ["a.txt", "c.txt", "gone.txt"])

        // Bytes that are not the row's (the store changed since the caller read it): the row's own
        // index is decoded, and every path it lists goes.
        let third = Self.index(["d.txt"])
        try store.commitInstall(Self.version(3, third), paths: ["d.txt"],
                                replacing: .init(indexBytes: v1.indexBytes, indexOffset: v1.indexOffset, index: first))
        #expect(try paths() == ["a.txt", "d.txt", "gone.txt"])
    }

    /// An update's commit deletes the rows of the paths the new version no longer holds and
    /// inserts those of its new paths; the rows of the paths both hold are not written again. A
    /// list of new paths out of order costs rows written, never a row lost. (Triggers the test
    /// adds count the rows written.)
    @Test func anUpdateWritesOnlyTheRowsOfPathsThatChanged() throws {
        let dir = try TemporaryDirectory("store-diff")
        let store = try ClientStore(path: dir.file("state.sqlite"))
        let watcher = try SQLiteDatabase(path: dir.file("state.sqlite"))
        try watcher.execute("""
            CREATE TABLE written(op TEXT);
            CREATE TRIGGER inserted AFTER INSERT ON namespace BEGIN INSERT INTO written VALUES ('insert'); END;
            CREATE TRIGGER deleted AFTER DELETE ON namespace BEGIN INSERT INTO written VALUES ('delete'); END;
            """)
        func written() throws -> [String: Int] {
            let counts = try watcher.query("SELECT op, count(*) FROM written GROUP BY op").map { ($0[0].string!, Int($0[1].int!)) }
            try watcher.execute("DELETE FROM written")
            return Dictionary(uniqueKeysWithValues: counts)
        }
        let names = (0..<2_000).map { String(format: "d%d/f%04d.txt", $0 % 7, $0) }.sorted { PackPath.precedes($0, $1) }
        let first = Self.index(names)
        let v1 = Self.version(1, first)
        try store.commitInstall(v1, paths: PackPaths(files: first.files))
        #expect(try written() == ["insert": 2_000])

        let kept = names.filter { $0 != "d0/f0007.txt" && $0 != "d6/f1000.txt" }
        let second = Self.index((kept + ["d9/new.txt"]).sorted { PackPath.precedes($0, $1) })
        let v2 = Self.version(2, second)
        try store.commitInstall(v2, paths: PackPaths(files: second.files),
                                replacing: .init(indexBytes: v1.indexBytes, indexOffset: v1.indexOffset, index: first))
        #expect(try written() == ["delete": 2, "insert": 1])
        #expect(try store.namespaceEntries().map(\.path) == second.files.map(\.path))

        // The same paths listed backwards: every path seems dropped, is deleted and inserted again.
        let third = Self.index(second.files.map(\.path))
        try store.commitInstall(Self.version(3, third), paths: Array(second.files.map(\.path).reversed()),
                                replacing: .init(indexBytes: v2.indexBytes, indexOffset: v2.indexOffset, index: second))
        #expect(try store.namespaceEntries().map(\.path) == second.files.map(\.path))
        #expect(try written()["delete"] ?? 0 >= 1_998)
    }

    /// A sealed pack's stored index is the opened one (version 3 in plaintext), and its rows are
    /// removed by the paths it lists like any pack's, not by a scan of the whole namespace. (The
    /// row for a path the index does not list, written here beside it, shows which way was taken:
    /// a scan would remove it too.)
    @Test func aSealedPacksRowsAreRemovedByItsStoredIndex() throws {
        let dir = try TemporaryDirectory("store-sealed")
        let store = try ClientStore(path: dir.file("state.sqlite"))
        let sealed = Self.index(["a.txt"], formatVersion: SealedIndex.formatVersion)
        try store.commitInstall(Self.version(1, sealed), paths: ["a.txt", "unlisted.txt"])
        try store.removeInstalled("A")
        #expect(try store.namespaceEntries().map(\.path) == ["unlisted.txt"])
    }
}
