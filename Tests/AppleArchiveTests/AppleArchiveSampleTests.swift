import AppleArchive
import AssetPackFormat
import Foundation
import TestSupport
import Testing

/// The real Apple-made archive must extract to exactly the tar's tree, and list as the
/// independent listing says.
@Suite struct AppleArchiveSampleTests {
    @Test(arguments: ["raw.aa", "aar"])
    func extractsToTheTarTree(_ sample: String) throws {
        let folder = try TemporaryDirectory("aar-sample"); defer { folder.remove() }
        let summary = try AppleArchiveExtractor().extract(archiveAt: try SparkleSample.path(sample), to: folder.file("out"))
        #expect(summary.files == 152 && summary.directories == 69 && summary.symbolicLinks == 6 && summary.skipped.isEmpty)
        let ours = try TreeSnapshot(folder.file("out"))
        let tar = try SparkleSample.tarTree(in: folder)
        #expect(ours.nodes.count == 227)
        #expect(ours == tar, "\(ours.differences(from: tar))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["out", "tar"])
    }

    @Test func listsWhatTheIndependentListingSays() throws {
        let tsv = try String(contentsOfFile: try SparkleSample.path("expected.tsv"), encoding: .utf8)
        let rows = tsv.split(separator: "\n").dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let reader = try AppleArchiveReader(path: try SparkleSample.path("raw.aa"))
        #expect(reader.compression == .none)
        var count = 0
        while let e = try reader.nextEntry() {
            let row = rows[count]
            #expect(e.index == Int(row[0]))
            #expect(String(e.type.letter) == row[1], "\(e.path)")
            #expect(e.mode.map { "0o" + String($0, radix: 8) } == row[2], "\(e.path)")
            #expect(e.uid == UInt64(row[3]) && e.gid == UInt64(row[4]) && e.flags == UInt64(row[5]), "\(e.path)")
            #expect(e.modificationTime?.seconds == Int64(row[6]), "\(e.path)")
            #expect(e.size == UInt64(row[7]) ?? 0 && e.hasData == !row[7].isEmpty, "\(e.path)")
            #expect(e.extendedAttributesSize == UInt64(row[9]), "\(e.path)")
            #expect(e.linkTarget == (row[10].isEmpty ? nil : row[10]) && e.path == row[11])
            #expect(e.unexpectedKeys.isEmpty)
            if e.hasData {
                let hasher = SHA256Hasher()
                try reader.readData { hasher.update($0) }
                #expect(hasher.finalize().hex == row[8], "\(e.path)")
            }
            count += 1
        }
        #expect(count == rows.count && count == 227)
    }

    @Test func encryptedArchiveIsRefusedByName() throws {
        let folder = try TemporaryDirectory("aar-aea"); defer { folder.remove() }
        #expect {
            try AppleArchiveExtractor().extract(archiveAt: try SparkleSample.path("enc.aar"), to: folder.file("out"))
        } throws: { error in
            let e = error as? AppleArchiveError
            return e?.kind == .unsupported && e?.description.contains("encrypted Apple Archive (AEA1), not supported") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
