@testable import AssetPackFormat
@testable import AssetPackPackaging
import Foundation
import TestSupport
import Testing

/// Each limit a pack is held to, at its edge: a pack exactly at the limit is written and reads
/// back, one past it is refused with an error naming the limit and nothing is written. The
/// limits are lowered (`PackWriter.limits`) so that the edge costs kilobytes, not gigabytes;
/// the path length is tested at its real value, 4096 bytes.
@Suite struct PackLimitTests {
    static let metadata = PackMetadata(assetPackID: "Limits", downloadPolicy: .onDemand, platforms: [.iOS], language: nil)

    /// Three small files and one large enough to have chunks of its own.
    func files(in dir: TemporaryDirectory, paths: [String] = ["a.txt", "b/c.json", "d.bin"]) throws -> [SelectedFile] {
        try paths.enumerated().map { k, path in
            let bytes = k == paths.count - 1 ? patternBytes(300_000, seed: 3) : text("file \(k)\n", repeating: 50)
            let source = try dir.write("source/\(k)", bytes)
            return SelectedFile(packPath: path, sourcePath: source, size: UInt64(bytes.count), mode: 0o644)
        }
    }

    enum Outcome: Equatable {
        /// The pack's file paths as read back.
        case written([String])
        /// The error's text.
        case refused(String)
    }

    func write(_ files: [SelectedFile], _ limits: PackLimits, in dir: TemporaryDirectory) -> Outcome {
        var writer = PackWriter()
        writer.limits = limits
        let destination = dir.file("out.pack")
        try? FileManager.default.removeItem(atPath: destination)
        do {
            _ = try writer.write(metadata: Self.metadata, files: files, to: destination)
            return .written(try PackReader(path: destination).index.files.map(\.path))
        } catch {
            #expect(!dir.exists("out.pack"), "nothing is written when a limit is passed")
            return .refused("\(error)")
        }
    }

    /// The index's length, from the pack's trailer.
    func indexLength(_ files: [SelectedFile], in dir: TemporaryDirectory) throws -> Int {
        _ = try PackWriter().write(metadata: Self.metadata, files: files, to: dir.file("measured.pack"))
        let pack = readFile(dir.file("measured.pack"))
        return Int(pack[(pack.count - 56)..<(pack.count - 48)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    @Test func filesPerPack() throws {
        let dir = try TemporaryDirectory("limits"); defer { dir.remove() }
        let files = try files(in: dir)
        var limits = PackLimits()
        limits.maximumFileCount = files.count
        #expect(write(files, limits, in: dir) == .written(files.map(\.packPath)))
        limits.maximumFileCount = files.count - 1
        #expect(write(files, limits, in: dir)
            == .refused("3 files selected; a pack holds at most 2 files (the files-per-pack limit): split them into several packs"))
        #expect(PackLimits.maximumFileCount == 10_000_000)
    }

    @Test func fileTableSize() throws {
        let dir = try TemporaryDirectory("limits"); defer { dir.remove() }
        let files = try files(in: dir)
        let entries = files.map { FileEntry(path: $0.packPath, mode: $0.mode, size: $0.size) }
        let length = Int(PackIndex.decodedFileTableLength(PackIndex.encodedFileTable(PackFiles(entries), formatVersion: 2), formatVersion: 2))
        #expect(length > 3 * 5 && length < 100)
        var limits = PackLimits()
        limits.maximumFileTableSize = length
        #expect(write(files, limits, in: dir) == .written(files.map(\.packPath)))
        limits.maximumFileTableSize = length - 1
        #expect(write(files, limits, in: dir) == .refused("the file table of 3 files takes \(length) bytes, more than the \(length - 1) bytes a pack's file table may hold (the file-table limit): split the pack or shorten its paths"))
    }

    /// The paths' bytes added up, each path whole, however well the table front-codes them.
    @Test func pathBytesTogether() throws {
        let dir = try TemporaryDirectory("limits"); defer { dir.remove() }
        let files = try files(in: dir)
        let length = files.reduce(0) { $0 + $1.packPath.utf8.count }
        var limits = PackLimits()
        limits.maximumPathBytes = length
        #expect(write(files, limits, in: dir) == .written(files.map(\.packPath)))
        limits.maximumPathBytes = length - 1
        #expect(write(files, limits, in: dir) == .refused("the paths of 3 files take \(length) bytes together, more than the \(length - 1) bytes a pack's paths may take (the path-bytes limit): split the pack or shorten its paths"))
        #expect(PackLimits.maximumPathBytes == 1 << 30)
    }

    /// The index bounds a pack's size (about five million chunks): at its edge, the same.
    @Test func packSizeThroughTheIndex() throws {
        let dir = try TemporaryDirectory("limits"); defer { dir.remove() }
        let files = try files(in: dir)
        let length = try indexLength(files, in: dir)
        var limits = PackLimits()
        limits.maximumIndexSize = length
        #expect(write(files, limits, in: dir) == .written(files.map(\.packPath)))
        limits.maximumIndexSize = length - 1
        guard case .refused(let why) = write(files, limits, in: dir) else { Issue.record("an index past the limit was written"); return }
        #expect(why.hasPrefix("the pack's index would take \(length) bytes ("))
        #expect(why.contains("more than the \(length - 1) bytes an index may hold (the pack-size limit)"))
    }

    /// A pack path of 4096 bytes is written and read back; one of 4097 is refused, naming the file.
    @Test func pathLength() throws {
        let dir = try TemporaryDirectory("limits"); defer { dir.remove() }
        func path(_ length: Int) -> String {
            let folders = String(repeating: String(repeating: "f", count: 199) + "/", count: 20)
            return folders + String(repeating: "n", count: length - folders.utf8.count)
        }
        #expect(path(4096).utf8.count == 4096)
        let atLimit = try files(in: dir, paths: ["a.txt", path(4096)])
        #expect(write(atLimit, PackLimits(), in: dir) == .written(atLimit.map(\.packPath)))
        // And written out again: extracted below a folder, the whole path is past what the kernel
        // takes at once, and the file still gets its bytes.
        let extracted = dir.file("extracted")
        try PackExtractor(reader: PackReader(path: dir.file("out.pack"))).extract(to: extracted)
        let tree = try ConfinedDirectory(root: extracted)
        #expect(try tree.contents(of: path(4096)) == Array(try Data(contentsOf: URL(fileURLWithPath: atLimit[1].sourcePath))))
        #expect(try tree.contents(of: "a.txt") == Array(try Data(contentsOf: URL(fileURLWithPath: atLimit[0].sourcePath))))
        let past = try files(in: dir, paths: ["a.txt", path(4097)])
        guard case .refused(let why) = write(past, PackLimits(), in: dir) else { Issue.record("a 4097-byte path was written"); return }
        #expect(why.hasPrefix("file 1 (\(past[1].sourcePath)): \"ffff"))
        #expect(why.hasSuffix("cannot be a pack path: it is longer than 4096 bytes"))
    }
}
