@testable import AssetPacks
import AssetPackFormat
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Progressive access (`AssetReadAccess.progressive`): one file of a pack that is not installed,
/// or is downloading, fetched ahead of the rest, verified, placed; the pack's guarantees stay.
@Suite struct ProgressiveAccessTests {
    /// Files `f00.bin`… of `size` bytes each, distinct content.
    static func files(_ count: Int, size: Int, seed: UInt64) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for k in 0..<count { files[String(format: "f%02d.bin", k)] = patternBytes(size, seed: seed + UInt64(k)) }
        return files
    }

    /// The pack's index, read from the repository's pack file.
    static func index(_ repo: TestRepository, _ pack: CatalogPack) throws -> PackIndex {
        let file = try #require(repo.contents(pack.path))
        return try PackIndex.decode(Array(file[Int(pack.index.offset)..<Int(pack.index.offset + pack.index.length)]), indexOffset: pack.index.offset)
    }

    /// Compressed bytes of the chunks that hold file `path`.
    static func chunkBytes(of path: String, in index: PackIndex) throws -> UInt64 {
        let f = try #require(index.fileIndex(of: path))
        return Set(index.spans(ofFile: f).map(\.chunkIndex)).reduce(0) { $0 + UInt64(index.chunks[$1].compressedSize) }
    }

    @Test func oneFileIsFetchedAloneAndTheLaterDownloadLinksIt() async throws {
        let repo = try TestRepository("progressive")
        let files = Self.files(12, size: 700 << 10, seed: 500)
        try repo.put("Levels", files: files)
        let pack = try repo.publish().packs[0]
        let index = try Self.index(repo, pack)
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)

        let data = try await manager.contents(at: "f09.bin", searchingInAssetPackWithID: "Levels", access: .progressive)
        #expect([UInt8](data) == files["f09.bin"])
        // Only that file's chunks moved (and the index); the pack is not installed.
        let fetched = await manager.fetchedBytes
        let chunks = try Self.chunkBytes(of: "f09.bin", in: index)
        #expect(fetched <= chunks * 11 / 10 + pack.index.length, "fetched \(fetched) for \(chunks) bytes of chunks")
        #expect(manager.assetPackIsAvailableLocally(withID: "Levels") == false)
        #expect(try root.store().installedPack("Levels") == nil)
        // A second read is served from what was placed: nothing more moves.
        let again = try await manager.contents(at: "f09.bin", searchingInAssetPackWithID: "Levels", access: .progressive)
        #expect([UInt8](again) == files["f09.bin"])
        #expect(await manager.fetchedBytes == fetched)
        // descriptor and url read the same placed file.
        let fd = try await manager.descriptor(for: "f09.bin", searchingInAssetPackWithID: "Levels", access: .progressive).rawValue
        var st = stat()
        #expect(fstat(fd, &st) == 0 && UInt64(st.st_size) == UInt64(700 << 10))
        close(fd)
        let url = try await manager.url(for: "f08.bin", searchingInAssetPackWithID: "Levels", access: .progressive)
        #expect(FileManager.default.contents(atPath: url.path).map { [UInt8]($0) } == files["f08.bin"])
        // Apple-shaped calls keep Apple's semantics: not installed is not found.
        #expect(throws: AssetPackManagerError.self) { _ = try manager.contents(at: "f09.bin") }

        // The full download does not fetch the files read before again.
        let before = await manager.fetchedBytes
        try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Levels"))
        let download = await manager.fetchedBytes - before
        let read = chunks + (try Self.chunkBytes(of: "f08.bin", in: index))
        #expect(download <= pack.size - read + (4 << 20), "the download fetched \(download) of a \(pack.size)-byte pack after \(read) were read")
        for (name, bytes) in files { #expect(try root.installedFile("Levels", name) == bytes, "\(name)") }
        #expect(root.stagingEntries.isEmpty)
        // Installed now: read as installed.
        #expect([UInt8](try manager.contents(at: "f09.bin")) == files["f09.bin"])
    }

    @Test func aRangeFetchesOnlyTheChunksCoveringIt() async throws {
        let repo = try TestRepository("progressive-range")
        let big = patternBytes(16 << 20, seed: 610)
        try repo.put("Video", files: ["movie.bin": big, "other.bin": patternBytes(1 << 20, seed: 611)])
        let pack = try repo.publish().packs[0]
        let index = try Self.index(repo, pack)
        let server = try repo.serve()
        let manager = try repo.manager(root: repo.dir.file("root"), server: server)
        let range: Range<UInt64> = 9_000_000..<9_000_500
        let data = try await manager.contents(at: "movie.bin", searchingInAssetPackWithID: "Video", access: .progressive(range: range))
        #expect([UInt8](data) == Array(big[9_000_000..<9_000_500]))
        let largest = index.chunks.map { UInt64($0.compressedSize) }.max() ?? 0
        let fetched = await manager.fetchedBytes
        #expect(fetched <= 2 * largest + pack.index.length, "fetched \(fetched); the largest frame is \(largest)")
        // A range past the end is cut at it.
        let tail = try await manager.contents(at: "other.bin", searchingInAssetPackWithID: "Video", access: .progressive(range: (1 << 20) - 10..<(2 << 20)))
        #expect(tail.count == 10)
        // A descriptor with a range: the range's bytes at their offsets.
        let fd = try await manager.descriptor(for: "movie.bin", searchingInAssetPackWithID: "Video", access: .progressive(range: range)).rawValue
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 500)
        #expect(pread(fd, &bytes, 500, off_t(range.lowerBound)) == 500)
        #expect(bytes == Array(big[9_000_000..<9_000_500]))
    }

    @Test func aPathNotInThePackIsFileNotFoundWithoutFetchingAChunk() async throws {
        let repo = try TestRepository("progressive-missing")
        try repo.put("Levels", files: Self.files(4, size: 300 << 10, seed: 700))
        let pack = try repo.publish().packs[0]
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        for path in ["nope.bin", "../f01.bin", "/etc/passwd"] {
            await #expect {
                _ = try await manager.contents(at: FilePath(path), searchingInAssetPackWithID: "Levels", access: .progressive)
            } throws: { error in
                if case AssetPackManagerError.fileNotFound = error { return true }
                return false
            }
        }
        // Without a pack ID and no download under way, nothing is asked of the server at all.
        await #expect(throws: AssetPackManagerError.self) { _ = try await manager.contents(at: "f01.bin", access: .progressive) }
        // Only the index was asked for (once), never a chunk.
        let requests = server.packRequests()
        #expect(requests.allSatisfy { $0.bytes <= pack.index.length }, "\(requests)")
        let fetched = await manager.fetchedBytes
        #expect(fetched <= pack.index.length, "fetched \(fetched); the index is \(pack.index.length) bytes; \(requests)")
        // An unknown pack is assetPackNotFound.
        await #expect {
            _ = try await manager.contents(at: "f01.bin", searchingInAssetPackWithID: "Nope", access: .progressive)
        } throws: { error in
            if case AssetPackManagerError.assetPackNotFound = error { return true }
            return false
        }
    }

    @Test func sixtyFourConcurrentReadsOfDifferentFiles() async throws {
        let repo = try TestRepository("progressive-64")
        var files: [String: [UInt8]] = [:]
        for k in 0..<64 { files["d/\(k).bin"] = patternBytes(96 << 10, seed: 800 + UInt64(k)) }
        try repo.put("Many", files: files)
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        let results = try await withThrowingTaskGroup(of: (String, Data).self) { group in
            for k in 0..<64 {
                group.addTask { ("d/\(k).bin", try await manager.contents(at: FilePath("d/\(k).bin"), searchingInAssetPackWithID: "Many", access: .progressive)) }
            }
            var out: [String: Data] = [:]
            for try await (path, data) in group { out[path] = data }
            return out
        }
        #expect(results.count == 64)
        for (path, data) in results { #expect([UInt8](data) == files[path], "\(path)") }
        // One index fetch shared by all, then the download links every file.
        try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Many"))
        for (path, bytes) in files { #expect(try root.installedFile("Many", path) == bytes, "\(path)") }
        #expect(root.stagingEntries.isEmpty)
    }

    @Test func aCorruptChunkFailsThatReadOnlyWhileTheDownloadGoesOn() async throws {
        let repo = try TestRepository("progressive-corrupt")
        // The damaged file last in the stream, which the download (one part) reaches last.
        var files = Self.files(16, size: 1 << 20, seed: 900)
        files["zz.bin"] = patternBytes(256 << 10, seed: 999)
        try repo.put("Levels", files: files)
        let pack = try repo.publish().packs[0]
        let index = try Self.index(repo, pack)
        // The first chunk of zz.bin, damaged in the repository's pack file (every mirror serves it so).
        let badFile = try #require(index.fileIndex(of: "zz.bin"))
        let span = try #require(index.spans(ofFile: badFile).first)
        let entry = index.chunks[span.chunkIndex]
        var packFile = try #require(repo.contents(pack.path))
        for k in 0..<16 { packFile[Int(entry.offset) + Int(entry.compressedSize) / 2 + k] ^= 0x5A }
        try repo.place(pack.path, packFile)
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 1 << 20 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server) { $0.parallelDownloads = .init(parts: 1, minimumInstallSize: 0) }
        let assetPack = try await manager.catalogPack(withID: "Levels")
        let download = Task { try await manager.ensureLocalAvailability(of: assetPack) }
        try await waitUntil("the download runs") { try await manager.status(relativeTo: assetPack).contains(.downloading) }

        await #expect {
            _ = try await manager.contents(at: "zz.bin", searchingInAssetPackWithID: "Levels", access: .progressive)
        } throws: { error in
            guard case AssetPackManagerError.verification(let why) = error else { return false }
            return why.contains("zz.bin") && why.contains("attempts")
        }
        // The download was not stopped by that read, and another file still reads.
        #expect(try await manager.status(relativeTo: assetPack).contains(.downloading))
        let good = try await manager.contents(at: "f03.bin", searchingInAssetPackWithID: "Levels", access: .progressive)
        #expect([UInt8](good) == files["f03.bin"])
        // Nothing half-written is visible: no placed bad.bin.
        let staging = root.path + "/" + root.layout.stagingDirectory(id: "Levels", digest: pack.digest)
        #expect(!FileManager.default.fileExists(atPath: StorageLayout.progressiveFiles(staging) + "/zz.bin"))
        download.cancel()
        _ = await download.result
    }

    @Test func aReadRacingWithRemoveEndsCleanly() async throws {
        let repo = try TestRepository("progressive-remove")
        let big = patternBytes(6 << 20, seed: 1000)
        try repo.put("Levels", files: ["big.bin": big, "small.bin": patternBytes(1000, seed: 1001)])
        let pack = try repo.publish().packs[0]
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 1 << 20 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server)
        let read = WatchedTask { try await manager.contents(at: "big.bin", searchingInAssetPackWithID: "Levels", access: .progressive) }
        let incoming = root.path + "/" + StorageLayout.progressiveIncoming(root.layout.stagingDirectory(id: "Levels", digest: pack.digest))
        let placed = root.path + "/" + StorageLayout.progressiveFiles(root.layout.stagingDirectory(id: "Levels", digest: pack.digest)) + "/big.bin"
        // Under way (its file in incoming/), or, on a machine so busy that this looked late, done.
        try await waitUntil("the read has begun writing") {
            read.hasEnded || !(FileManager.default.subpaths(atPath: incoming) ?? []).isEmpty || FileManager.default.fileExists(atPath: placed)
        }
        if read.hasEnded { _ = try await read.value }
        try await manager.remove(assetPackWithID: "Levels")
        switch await read.result {
        case .success(let data): #expect([UInt8](data) == big)
        case .failure(let error):
            if case AssetPackManagerError.cancelled = error {} else { Issue.record("unexpected \(error)") }
        }
        #expect(root.stagingEntries.isEmpty)
        #expect(try root.store().installedPack("Levels") == nil)
        #expect(try root.store().pendingDownload("Levels") == nil)
    }

    @Test func aReadRacingWithAnUpdateIsOfOneVersion() async throws {
        let repo = try TestRepository("progressive-update")
        let v1 = patternBytes(4 << 20, seed: 1100), v2 = patternBytes(4 << 20, seed: 1200)
        try repo.put("Levels", files: ["level.bin": v1])
        let first = try repo.publish().packs[0]
        let server = try repo.serve { $0.bandwidthBytesPerSecond = 2 << 20 }
        let root = StorageRoot(path: repo.dir.file("root"))
        let manager = try repo.manager(root: root.path, server: server) { $0.catalogMaxAge = .zero }
        let read = WatchedTask { try await manager.contents(at: "level.bin", searchingInAssetPackWithID: "Levels", access: .progressive) }
        let incoming = root.path + "/" + StorageLayout.progressiveIncoming(root.layout.stagingDirectory(id: "Levels", digest: first.digest))
        let placed = root.path + "/" + StorageLayout.progressiveFiles(root.layout.stagingDirectory(id: "Levels", digest: first.digest)) + "/level.bin"
        try await waitUntil("the read of v1 has begun") {
            read.hasEnded || !(FileManager.default.subpaths(atPath: incoming) ?? []).isEmpty || FileManager.default.fileExists(atPath: placed)
        }
        if read.hasEnded { _ = try await read.value }
        try repo.put("Levels", files: ["level.bin": v2])
        try repo.publish()
        try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Levels"))
        let data = try await read.value
        #expect([UInt8](data) == v1 || [UInt8](data) == v2)
        #expect([UInt8](data) == v1, "the read began on version 1")
        #expect(try root.installedFile("Levels", "level.bin") == v2)
        #expect([UInt8](try await manager.contents(at: "level.bin", searchingInAssetPackWithID: "Levels", access: .progressive)) == v2)
        try await waitUntil("what the read of v1 left is gone", timeout: .seconds(10)) { root.stagingEntries.isEmpty }
    }

    @Test func aKilledCatLeavesNothingHalfWritten() async throws {
        let repo = try TestRepository("progressive-kill")
        let big = patternBytes(8 << 20, seed: 1300)
        try repo.put("Levels", files: ["big.bin": big, "small.bin": patternBytes(2000, seed: 1301)])
        try repo.put("Tiny", files: ["t.bin": patternBytes(100, seed: 1302)])
        let pack = try #require(try repo.publish().pack(withID: "Levels"))
        let root = StorageRoot(path: repo.dir.file("root"))
        let fast = try repo.serve()
        let setup = try await Assetpack.run(["ensure", "Tiny", "--repo", fast.url, "--root", root.path, "--public-key", repo.publicKey.text], in: repo.dir.path)
        try #require(setup.status == 0, "\(setup.stderr)")
        fast.stop()

        // The root remembers the slow server from now on.
        let slow = try repo.serve { $0.bandwidthBytesPerSecond = 1 << 20 }
        try Self.remember(slow.url, root: root.path)
        let staging = root.path + "/" + root.layout.stagingDirectory(id: "Levels", digest: pack.digest)
        let incoming = StorageLayout.progressiveIncoming(staging)
        let cat = try Assetpack.start(["cat", "big.bin", "--pack", "Levels", "--root", root.path],
                                      output: repo.dir.file("cat.out"), error: repo.dir.file("cat.err"))
        let killer = Killer(cat, when: { stagedBytes(incoming + "/..", folder: "incoming") >= 1 << 20 }, within: .seconds(60))
        try await waitUntil("cat is killed", timeout: .seconds(70), interval: .milliseconds(20)) { killer.isDone }
        let ended = try await ChildExit.wait(for: cat, timeout: .seconds(30))
        slow.stop()
        try #require(ended == ChildExit.Status(code: SIGKILL, signaled: true), "cat ended before it could be killed")
        #expect(!FileManager.default.fileExists(atPath: StorageLayout.progressiveFiles(staging) + "/big.bin"))

        // The next run reads the whole file, byte-exact, and leaves no temporary file behind.
        let again = try repo.serve()
        try Self.remember(again.url, root: root.path)
        let second = try await Assetpack.run(["cat", "big.bin", "--pack", "Levels", "--root", root.path], in: repo.dir.path)
        #expect(second.status == 0, "\(second.stderr)")
        #expect([UInt8](second.output) == big)
        #expect((FileManager.default.subpaths(atPath: incoming) ?? []).isEmpty)
        // A range read through the command.
        let part = try await Assetpack.run(["cat", "small.bin", "--pack", "Levels", "--root", root.path, "--range", "100-199"], in: repo.dir.path)
        #expect(part.status == 0, "\(part.stderr)")
        #expect([UInt8](part.output) == Array(patternBytes(2000, seed: 1301)[100..<200]))
        let bad = try await Assetpack.run(["cat", "small.bin", "--pack", "Levels", "--root", root.path, "--range", "9-3"], in: repo.dir.path)
        #expect(bad.status == 2 && bad.stderr.contains("--range"), "\(bad.stderr)")
        // Then the pack installs, complete and exact.
        let ensure = try await Assetpack.run(["ensure", "Levels", "--root", root.path], in: repo.dir.path)
        #expect(ensure.status == 0, "\(ensure.stderr)")
        #expect(try root.installedFile("Levels", "big.bin") == big)
        #expect(root.stagingEntries.isEmpty)
    }

    /// Makes the root remember `url` as its repository (as `--repo` would).
    static func remember(_ url: String, root: String) throws {
        var settings = try RootSettings.load(root: root)
        settings.repositoryURLs = [url]
        try settings.save(root: root)
    }
}

/// Bytes written so far into the files of `folder` inside `parent` (blocks in use).
func stagedBytes(_ parent: String, folder: String) -> UInt64 {
    let files = parent + "/" + folder
    let names = FileManager.default.subpaths(atPath: files) ?? []
    return names.reduce(0) { total, name in
        var st = stat()
        guard lstat(files + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return total }
        return total + min(UInt64(st.st_size), UInt64(st.st_blocks) * 512)
    }
}
