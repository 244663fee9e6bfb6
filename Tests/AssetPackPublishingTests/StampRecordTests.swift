import AssetPackPackaging
@testable import AssetPackPublishing
import Foundation
import TestSupport
import Testing

/// What a publish keeps of its files' stamps to tell, after packaging, which file changed.
@Suite struct StampRecordTests {
    /// `count` files on disk, selected by their own paths.
    private func files(_ dir: TemporaryDirectory, _ count: Int) throws -> SelectedFileList {
        var list = SelectedFileList()
        for i in 0..<count {
            let path = try dir.write("f\(i)", "file \(i)")
            list.append(SelectedFile(packPath: "f\(i)", sourcePath: path, size: UInt64("file \(i)".utf8.count), mode: 0o644))
        }
        return list
    }

    private func record(_ files: SelectedFileList, replacing: (position: Int, digest: (UInt64) -> UInt64)? = nil) throws -> StampRecord {
        var record = StampRecord(capacity: files.count)
        for (i, file) in files.enumerated() {
            let digest = try #require(FileStamp(path: file.sourcePath)).digest
            record.append(replacing.map { $0.position == i ? $0.digest(digest) : digest } ?? digest)
        }
        return record
    }

    /// Below and above the count that stats the files in four stretches at once.
    @Test(arguments: [10, 5000])
    func namesTheFirstFileThatChangedOrWentAway(count: Int) throws {
        let dir = try TemporaryDirectory("stamps"); defer { dir.remove() }
        let files = try files(dir, count)
        let record = try record(files)
        #expect(record.firstChange(in: files) == nil)
        let late = count - 2, early = count / 3
        _ = try dir.write("f\(late)", "file \(late) edited")
        #expect(record.firstChange(in: files) == .file(late))
        try FileManager.default.removeItem(atPath: files[early].sourcePath)
        #expect(record.firstChange(in: files) == .file(early), "a file that cannot be stat'd counts as changed, the first wins")
    }

    /// A digest whose low 16 bits stay the same is caught by the sum, without a name; so are two
    /// files whose stamps swapped places.
    @Test func aChangeThatKeepsTheLow16BitsIsStillSeen() throws {
        let dir = try TemporaryDirectory("stamps"); defer { dir.remove() }
        let files = try files(dir, 5000)
        #expect(try record(files, replacing: (4321, { $0 ^ 0x1_0000 })).firstChange(in: files) == .unnamed)
        #expect(try record(files, replacing: (0, { $0 ^ (1 << 63) })).firstChange(in: files) == .unnamed)
        var swapped = StampRecord(capacity: 2)
        let two = SelectedFileList(Array(files.prefix(2)))
        let digests = try two.map { try #require(FileStamp(path: $0.sourcePath)).digest }
        // The same low bits at both positions, so only the sum can tell them apart.
        swapped.append(digests[1] & ~0xFFFF | digests[0] & 0xFFFF)
        swapped.append(digests[0] & ~0xFFFF | digests[1] & 0xFFFF)
        #expect(swapped.firstChange(in: two) == .unnamed)
    }
}
