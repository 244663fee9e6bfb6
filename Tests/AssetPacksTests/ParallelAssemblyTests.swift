import AssetPackFormat
@testable import AssetPacks
import CPOSIX
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A pack assembled in several parts side by side: chunks whose first use lies in another part
/// (copied once every part is done), files that straddle two parts, empty files, and file modes
/// all come out as packed; a part's connection that drops resumes where it stopped.
@Suite struct ParallelAssemblyTests {
    /// Files in many folders, the same bytes under several names (dedup across parts), empty
    /// files between them, and read-only and executable modes.
    static func files() -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let shared = patternBytes(300_000, seed: 91)
        for i in 0..<12 {
            files[String(format: "d%02d/big.bin", i)] = patternBytes(150_000 + i * 20_000, seed: UInt64(100 + i))
            files[String(format: "d%02d/copy.bin", i)] = shared
            files[String(format: "d%02d/empty", i)] = []
            files[String(format: "d%02d/small.txt", i)] = text("file \(i)\n", repeating: 50 + i)
            files[String(format: "d%02d/shared.cfg", i)] = text("setting \(i)\n", repeating: 20 + i)
        }
        return files
    }

    /// Read-only, executable, group- and world-writable (bits a usual creation mask takes away
    /// when a file is created) and plain modes.
    static func mode(of name: String) -> mode_t {
        name.hasSuffix("small.txt") ? 0o444 : name.hasSuffix("big.bin") ? 0o755 : name.hasSuffix("shared.cfg") ? 0o666 : 0o644
    }

    @Test func partsAssembleEveryFileWithItsMode() async throws {
        let repo = try TestRepository()
        let files = Self.files()
        try repo.put("Pack", files: files)
        for name in files.keys { chmod(repo.dir.file("content/Pack/\(name)"), Self.mode(of: name)) }
        let pack = try repo.publish().packs[0]
        let index = try PackReader(path: repo.path + "/" + pack.path).index
        let plan = InstallPlan(index: index, previous: nil)
        let parts = InstallPart.split(index: index, plan: plan, count: 4)
        // The premises: four parts that tile the stream, a copy deferred to the end, and a file
        // that two parts write.
        try #require(parts.count == 4)
        #expect(parts.map(\.sequences.lowerBound).dropFirst() == parts.map(\.sequences.upperBound).dropLast())
        #expect(parts.map(\.content.lowerBound).dropFirst() == parts.map(\.content.upperBound).dropLast())
        #expect(parts.contains { part in part.sequences.contains { part.defers($0, in: plan) } })
        #expect(parts.dropFirst().contains { index.file(containing: $0.content.lowerBound).map { index.fileOffsets[$0] } != $0.content.lowerBound })

        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server) { $0.parallelDownloads = .init(parts: 4, minimumInstallSize: 0) }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        try Self.expectEveryFileWithItsMode(files, root: root, manager: manager)
        // One request per part (the dedup copies need no network), each frame fetched once.
        #expect(server.packRequests().count == 1 + 4, "\(server.packRequests())")
        #expect(await manager.fetchedBytes <= pack.size)
        #expect(root.stagingEntries.isEmpty)
    }

    /// A root whose folder has a default ACL gives new files their permissions from that ACL
    /// instead of the creation mask: every file still comes out with its packed mode.
    @Test func aRootWithADefaultACLStillGivesEveryFileItsMode() async throws {
        let repo = try TestRepository()
        let files = Self.files()
        try repo.put("Pack", files: files)
        for name in files.keys { chmod(repo.dir.file("content/Pack/\(name)"), Self.mode(of: name)) }
        try repo.publish()
        let root = StorageRoot(path: repo.dir.file("root"))
        try FileManager.default.createDirectory(atPath: root.path, withIntermediateDirectories: true)
        // user::rwx group::r-x other::--- as the folder's default (the xattr's binary form:
        // version 2, then tag, permissions and ID of each entry).
        var acl: [UInt8] = []
        func append(_ value: UInt32, _ width: Int) { for k in 0..<width { acl.append(UInt8((value >> (8 * k)) & 0xFF)) } }
        append(2, 4)
        for (tag, permissions) in [(0x01, 7), (0x04, 5), (0x20, 0)] as [(UInt32, UInt32)] {
            append(tag, 2); append(permissions, 2); append(UInt32.max, 4)
        }
        try #require(cposix_set_attribute(root.path, "system.posix_acl_default", acl, acl.count) == 0, "setxattr: \(String(cString: strerror(errno)))")
        let server = try repo.serve()
        let manager = try repo.manager(root: root.path, server: server) { $0.parallelDownloads = .init(parts: 4, minimumInstallSize: 0) }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        try Self.expectEveryFileWithItsMode(files, root: root, manager: manager)
    }

    /// Every file of `files` reads back through `manager` and has its packed mode on disk.
    private static func expectEveryFileWithItsMode(_ files: [String: [UInt8]], root: StorageRoot, manager: AssetPackManager) throws {
        let directory = try #require(try root.installedDirectory("Pack"))
        for (name, bytes) in files {
            #expect(try manager.contents(at: FilePath(name)) == Data(bytes), "\(name)")
            var st = stat()
            #expect(stat(directory + "/" + name, &st) == 0 && st.st_mode & 0o777 == mode(of: name), "\(name): mode \(String(st.st_mode & 0o777, radix: 8))")
        }
    }

    /// Parts are cut by work, not by bytes alone: a pack whose first half is one large file and
    /// whose second half is many small ones gives the small files more parts, each with fewer
    /// bytes, since starting a file costs as much as writing `InstallPart.fileWeight` bytes.
    @Test func partsWeighFilesAsWellAsBytes() async throws {
        let repo = try TestRepository()
        var files: [String: [UInt8]] = ["a/large.bin": patternBytes(4_000_000, seed: 7)]
        for i in 0..<400 { files[String(format: "b/%03d.txt", i)] = text("record \(i)\n", repeating: 900) }
        try repo.put("Pack", files: files)
        let pack = try repo.publish().packs[0]
        let index = try PackReader(path: repo.path + "/" + pack.path).index
        let small = files.filter { $0.key.hasPrefix("b/") }.values.reduce(0) { $0 + $1.count }
        try #require(small > 3_000_000 && small < 5_000_000, "the premise: both halves hold about as many bytes")
        let parts = InstallPart.split(index: index, plan: InstallPlan(index: index, previous: nil), count: 4)
        try #require(parts.count == 4)
        let firstSmall = index.fileOffsets[try #require(index.fileIndex(of: "b/000.txt"))]
        // By bytes alone two parts would write the large file; weighed, the first part writes it
        // all and the three others share the small files.
        #expect(parts[0].content.upperBound >= firstSmall, "\(parts.map(\.content))")
        #expect(parts.dropFirst().allSatisfy { $0.content.lowerBound >= firstSmall }, "\(parts.map(\.content))")
        // The parts still tile the stream.
        #expect(parts.map(\.content.lowerBound).dropFirst() == parts.map(\.content.upperBound).dropLast())
        #expect(parts.first?.content.lowerBound == 0 && parts.last?.content.upperBound == index.fileOffsets.last.map { $0 + index.files.last!.size })
    }

    @Test func droppedConnectionsOfEveryPartResumeInANewManager() async throws {
        let repo = try TestRepository()
        let files = Self.files()
        try repo.put("Pack", files: files)
        let pack = try repo.publish().packs[0]
        let root = StorageRoot(path: repo.dir.file("root"))

        // Every response stops after 150 kB and the first manager does not retry: each part
        // keeps what it had, its unfinished frame included.
        let flaky = try repo.serve { $0.dropAfterBytes = 150_000 }
        let firstFetched: UInt64
        do {
            // The first manager goes with this scope (one manager per root at a time).
            let first = try repo.manager(root: root.path, server: flaky) {
                $0.retryPolicy = .never
                $0.parallelDownloads = .init(parts: 4, minimumInstallSize: 0)
            }
            #expect(await managerError { try await first.ensureLocalAvailability(of: first.catalogPack(withID: "Pack")) } != nil)
            firstFetched = await first.fetchedBytes
        }
        flaky.stop()

        try await expectResumedWithoutRefetching(repo, root: root, pack: pack, files: files, firstFetched: firstFetched,
                                                 parallel: .init(parts: 4, minimumInstallSize: 0))
    }
}

/// A second manager on `root` finishes the download `Pack` a first one stopped: every file comes
/// out whole, no byte the first one received (`firstFetched`) is fetched again (the index comes
/// twice), and no staging is left.
private func expectResumedWithoutRefetching(_ repo: TestRepository, root: StorageRoot, pack: CatalogPack, files: [String: [UInt8]],
                                            firstFetched: UInt64, parallel: AssetPackManager.ParallelDownloads) async throws {
    let server = try repo.serve()
    let second = try repo.manager(root: root.path, server: server) { $0.parallelDownloads = parallel }
    try await second.ensureLocalAvailability(of: second.catalogPack(withID: "Pack"))
    for (name, bytes) in files { #expect(try second.contents(at: FilePath(name)) == Data(bytes), "\(name)") }
    let fetched = await second.fetchedBytes
    #expect(firstFetched + fetched <= pack.size + UInt64(pack.index.length), "\(firstFetched) + \(fetched) of \(pack.size)")
    #expect(root.stagingEntries.isEmpty)
}

/// A part that finishes takes over half of what the busiest running part has left (`RunningParts`):
/// a pack whose first half is noise (its frames as large as its chunks) and whose second half is
/// text (frames a few percent of their chunks), from a server that sends each connection 2 MB/s.
/// Parts are cut by work, so the text parts download in a moment and the noise parts for a while.
/// These tests must catch the noise parts while their downloads are under way, so they run with
/// the timing-sensitive suites (`scripts/test.sh`).
@Suite struct PartSplitTests {
    static func files() -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for i in 0..<8 {
            files["a/noise-\(i).bin"] = patternBytes(400_000, seed: UInt64(500 + i))
            files["b/text-\(i).txt"] = text("line \(i) of a text that compresses well\n", repeating: 10_000)
        }
        files["b/empty"] = []
        return files
    }

    @Test func aFinishedPartTakesHalfOfTheBusiestPartsRestAndEveryByteComesOnce() async throws {
        let repo = try TestRepository()
        let files = Self.files()
        try repo.put("Pack", files: files)
        for i in 0..<8 { chmod(repo.dir.file("content/Pack/a/noise-\(i).bin"), 0o755) }
        let pack = try repo.publish().packs[0]
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 2_000_000 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server) {
            $0.parallelDownloads = .init(parts: 4, minimumInstallSize: 0, minimumSplit: 64 << 10)
        }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        // More requests than the index and the four parts: parts that finished took over the rest
        // of others, each from where the other's bytes ended.
        #expect(server.packRequests().count > 1 + 4, "\(server.packRequests())")
        // Every byte of the pack but its header and trailer, once.
        let fetched = await manager.fetchedBytes
        #expect(fetched == pack.size - 16 - 64, "fetched \(fetched) of a \(pack.size)-byte pack; \(server.packRequests())")
        let directory = try #require(try root.installedDirectory("Pack"))
        for (name, bytes) in files {
            #expect(try manager.contents(at: FilePath(name)) == Data(bytes), "\(name)")
            var st = stat()
            let mode: mode_t = name.hasPrefix("a/") ? 0o755 : 0o644
            #expect(stat(directory + "/" + name, &st) == 0 && st.st_mode & 0o777 == mode, "\(name): mode \(String(st.st_mode & 0o777, radix: 8))")
        }
        #expect(root.stagingEntries.isEmpty)
    }

    /// A run whose parts split and then lose their connections saves its parts at each split:
    /// the next run takes up the same parts and their spools, so that no byte the first run
    /// received is fetched again.
    @Test func aRunThatSplitAndStoppedIsResumedByTheNext() async throws {
        let repo = try TestRepository()
        let files = Self.files()
        try repo.put("Pack", files: files)
        let pack = try repo.publish().packs[0]
        let root = StorageRoot(path: repo.dir.file("root"))
        let parallel = AssetPackManager.ParallelDownloads(parts: 4, minimumInstallSize: 0, minimumSplit: 64 << 10)
        let flaky = try repo.serve { $0.bandwidthBytesPerSecond = 2_000_000; $0.dropAfterBytes = 500_000 }
        let firstFetched: UInt64
        do {
            let first = try repo.manager(root: root.path, server: flaky) { $0.retryPolicy = .never; $0.parallelDownloads = parallel }
            #expect(await managerError { try await first.ensureLocalAvailability(of: first.catalogPack(withID: "Pack")) } != nil)
            firstFetched = await first.fetchedBytes
        }
        flaky.stop()
        #expect(flaky.packRequests().count > 1 + 4, "the premise: a part split before the connections dropped")
        let staging = try #require(root.stagingEntries.first)
        let saved = try #require(FileManager.default.contents(atPath: root.path + "/staging/\(staging)/parts"))
        #expect(saved.count > 8 + 4 * 8, "more than the four parts the index gives: \(saved.count) bytes")
        try await expectResumedWithoutRefetching(repo, root: root, pack: pack, files: files, firstFetched: firstFetched, parallel: parallel)
    }
}

/// The bounds of a part's download: the network side takes nothing past the end it is given, and
/// a part gives up positions only while none of their bytes is held.
@Suite struct PartLimitTests {
    @Test func aSpoolTakesNothingPastItsLimitAndALimitBelowItsBytesIsRefused() throws {
        let dir = try TemporaryDirectory()
        let spool = try PartSpool(root: ConfinedDirectory(root: dir.path), path: "part-0", capacity: 4096, end: 1000)
        _ = spool.resume(at: 0)
        let bytes = [UInt8](repeating: 7, count: 600)
        #expect(try bytes.withUnsafeBytes { try spool.append($0) } == 600)
        #expect(!spool.limit(to: 500), "bytes up to 600 are held")
        #expect(!spool.limit(to: 1200), "past the part's end")
        #expect(spool.limit(to: 800))
        #expect(spool.downloadEnd == 800)
        #expect(try bytes.withUnsafeBytes { try spool.append($0) } == 200)
        #expect(spool.end == 800)
        #expect(try bytes.withUnsafeBytes { try spool.append($0) } == 0)
    }

    /// Another process wrote a spool whose offsets add up past 2^64: it starts empty.
    @Test func aSpoolFileWhoseOffsetsOverflowStartsEmpty() throws {
        let dir = try TemporaryDirectory()
        var header: [UInt8] = Array("APSPOOL1".utf8)
        for word in [UInt64.max - 10, 20, 0] { withUnsafeBytes(of: word.littleEndian) { header += $0 } }
        try Data(header + [UInt8](repeating: 0, count: 64 - header.count + 4096)).write(to: URL(fileURLWithPath: dir.path + "/part-0"))
        let spool = try PartSpool(root: ConfinedDirectory(root: dir.path), path: "part-0", capacity: 4096, end: 1000)
        #expect(spool.end == 0)
        #expect(spool.resume(at: 100) == 100)
    }

    @Test func aPartCutInTwoTilesItsPositionsBytesAndDownload() async throws {
        let repo = try TestRepository()
        try repo.put("Pack", files: PartSplitTests.files())
        let pack = try repo.publish().packs[0]
        let index = try PackReader(path: repo.path + "/" + pack.path).index
        let plan = InstallPlan(index: index, previous: nil)
        let whole = try #require(InstallPart.split(index: index, plan: plan, count: 1).first)
        let m = index.sequence.count / 2
        let (kept, rest) = whole.split(at: m, index: index, plan: plan)
        #expect(kept.sequences == 0..<m && rest.sequences == m..<index.sequence.count)
        #expect(kept.content.upperBound == rest.content.lowerBound && kept.content.lowerBound == 0 && rest.content.upperBound == whole.content.upperBound)
        #expect(kept.download.upperBound == rest.download.lowerBound && kept.download.lowerBound == whole.download.lowerBound)
        #expect(rest.download.upperBound == whole.download.upperBound)
        #expect(!kept.isLast && rest.isLast)

        // Saved and read back in the order of their numbers; a list that does not tile the
        // stream (a gap, an overlap, a part that ends before it starts) or is not one is refused.
        let third = rest.split(at: (m + index.sequence.count) / 2, index: index, plan: plan)
        let parts = [kept, third.0, third.1]
        #expect(InstallPart.decode(InstallPart.encode(parts), index: index, plan: plan) == parts)
        #expect(InstallPart.decode(InstallPart.encode([third.1, kept, third.0]), index: index, plan: plan) == [third.1, kept, third.0])
        for wrong in [[kept, third.1], [kept, third.0, third.0, third.1], [kept]] {
            #expect(InstallPart.decode(InstallPart.encode(wrong), index: index, plan: plan) == nil)
        }
        var backwards = Array("APPARTS1".utf8)
        for p in [UInt32(index.sequence.count), 0] { withUnsafeBytes(of: p.littleEndian) { backwards += $0 } }
        #expect(InstallPart.decode(backwards, index: index, plan: plan) == nil)
        #expect(InstallPart.decode(InstallPart.encode([whole]), index: index, plan: plan) == [whole])
        #expect(InstallPart.decode(Array(InstallPart.encode(parts).dropLast()), index: index, plan: plan) == nil)
        #expect(InstallPart.decode(Array("APPARTS2".utf8) + InstallPart.encode(parts).dropFirst(8), index: index, plan: plan) == nil)
    }
}

/// A frame that a killed run had received whole, but not yet written, is taken from the part's
/// spool: the next run writes it without asking the server for it again.
@Suite struct PartSpoolTests {
    /// One chunk (the frame is all the part needs) and several.
    @Test(.timeLimit(.minutes(1)), arguments: [40_000, 900_000])
    func aFrameReceivedWholeIsPlacedWithoutFetchingIt(size: Int) async throws {
        let repo = try TestRepository()
        let content = patternBytes(size, seed: 95)
        try repo.put("Pack", files: ["pack.bin": content])
        let pack = try repo.publish().packs[0]
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server) { $0.parallelDownloads = .init(parts: 1, minimumInstallSize: 0) }

        // The state a kill leaves between receiving the first frame and writing its chunk.
        let reader = try PackReader(path: repo.path + "/" + pack.path)
        let first = reader.index.chunks[Int(reader.index.sequence[0])]
        let plan = InstallPlan(index: reader.index, previous: nil)
        guard case .remote(let offset) = plan.sources[0] else { Issue.record("the first chunk is not remote"); return }
        let staging = root.path + "/" + root.layout.stagingDirectory(id: "Pack", digest: pack.digest)
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let largest = reader.index.chunks.map { Int($0.compressedSize) }.max() ?? 0
        let spool = try PartSpool(root: ConfinedDirectory(root: staging), path: "part-0", capacity: max(4 << 20, 2 * largest + (64 << 10)), end: pack.size)
        let handle = try #require(FileHandle(forReadingAtPath: repo.path + "/" + pack.path))
        try handle.seek(toOffset: first.offset)
        let bytes = try #require(try handle.read(upToCount: Int(first.compressedSize)))
        _ = spool.resume(at: offset)
        _ = try bytes.withUnsafeBytes { try spool.append($0) }

        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        #expect(try manager.contents(at: "pack.bin") == Data(content))
        // Every byte of the pack but that frame (and the header and trailer) came from the server.
        #expect(await manager.fetchedBytes == pack.size - UInt64(first.compressedSize) - 16 - 64, "pack \(pack.size)")
        #expect(server.packRequests().allSatisfy { $0.bytes <= pack.size - UInt64(first.compressedSize) })
    }
}
