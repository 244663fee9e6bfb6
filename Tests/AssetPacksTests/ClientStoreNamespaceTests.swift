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
}
