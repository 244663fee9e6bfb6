import AssetPackFormat
@testable import AssetPacks
import AssetPackTransport
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Seed folders (`Configuration.seedFolders`, `--seed DIR`): chunks found in files on disk are
/// not fetched, and nothing a seed folder holds — links out of it, FIFOs, unreadable files, a
/// file that changes while it is read, a huge folder of unrelated files — gets wrong bytes into
/// an install or holds it up.
@Suite struct SeedInstallTests {
    /// Two large files (chunks of their own) and three small ones (sharing one chunk).
    static let files: [String: [UInt8]] = [
        "big/a.bin": patternBytes(1_200_000, seed: 41), "big/b.bin": patternBytes(700_000, seed: 42),
        "small/one.txt": text("one\n", repeating: 3000), "small/two.txt": text("two\n", repeating: 5000), "small/three.txt": text("3", repeating: 10),
    ]
    static let smallBytes: UInt64 = 12_000 + 20_000 + 10

    func repository() throws -> (TestRepository, TestServer) {
        let repo = try TestRepository()
        try repo.put("Pack", files: Self.files)
        try repo.publish()
        return (repo, try repo.serve())
    }

    /// A seed folder `name` in `repo`'s folder holding `files`.
    func seed(_ repo: TestRepository, _ name: String, _ files: [String: [UInt8]]) throws -> String {
        for (path, bytes) in files { try repo.dir.write("\(name)/\(path)", bytes) }
        if files.isEmpty { try FileManager.default.createDirectory(atPath: repo.dir.file(name), withIntermediateDirectories: true) }
        return repo.dir.file(name)
    }

    /// Installs "Pack" with these seed folders and returns its sources.
    func install(_ repo: TestRepository, _ server: TestServer, seeds: [String], root: String = "root",
                 _ configure: (inout AssetPackManager.Configuration) -> Void = { _ in }) async throws -> AssetPackSources {
        let manager = try repo.manager(root: repo.dir.file(root), server: server) {
            $0.seedFolders = seeds
            configure(&$0)
        }
        try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Pack"))
        for (path, bytes) in Self.files { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
        return try #require(await manager.sources(ofAssetPackWithID: "Pack"))
    }

    func index(_ repo: TestRepository) throws -> PackIndex {
        try PackReader(path: repo.path + "/" + repo.catalog().packs[0].path).index
    }

    @Test func aSeedHoldingTheContentLeavesNothingToFetch() async throws {
        let (repo, server) = try repository()
        let folder = try seed(repo, "seed", Self.files)
        let sources = try await install(repo, server, seeds: [folder])
        let pack = try repo.catalog().packs[0]
        #expect(sources.bytes(from: .seed) == pack.installSize)
        #expect(sources.fetchedBytes == 0)
        #expect(sources.savedBytes(by: .seed) > 0 && sources.savedBytes(by: .seed) < pack.size)
        #expect(sources.entries.map(\.location) == [folder])
        // The index alone was asked for.
        #expect(server.packRequests().map(\.bytes) == [pack.index.length], "\(server.packRequests())")
    }

    @Test func renamedAndEditedFilesAreFoundByChunkingThem() async throws {
        let (repo, server) = try repository()
        var edited = Self.files["big/a.bin"]!
        edited.insert(contentsOf: patternBytes(777, seed: 43), at: 600_000)
        let folder = try seed(repo, "seed", ["elsewhere/renamed.bin": edited, "b-start.bin": Array(Self.files["big/b.bin"]!.prefix(400_000))])
        let sources = try await install(repo, server, seeds: [folder])
        let seeded = sources.bytes(from: .seed)
        // Most of a.bin (all but the chunks around the insertion) and the start of b.bin.
        #expect(seeded > 500_000 && seeded < 1_900_000, "\(seeded)")
        #expect(sources.fetchedBytes > 0)
        #expect(sources.fetchedBytes + sources.savedBytes(by: .seed) <= UInt64(try index(repo).compressedSize) + 64 << 10)
    }

    @Test func linksOutOfTheSeedFolderAreNotFollowed() async throws {
        let (repo, server) = try repository()
        let folder = try seed(repo, "seed", [:])
        let content = repo.dir.file("content/Pack")
        try FileManager.default.createSymbolicLink(atPath: folder + "/big", withDestinationPath: content + "/big")
        try FileManager.default.createSymbolicLink(atPath: folder + "/small", withDestinationPath: content + "/small")
        try FileManager.default.createSymbolicLink(atPath: folder + "/a.bin", withDestinationPath: content + "/big/a.bin")
        let sources = try await install(repo, server, seeds: [folder])
        #expect(sources.bytes(from: .seed) == 0)
        #expect(sources.fetchedBytes > 0)
        let report = SeedScan(paths: [folder], index: try index(repo), limits: .standard).run(wanted: [0], cancellation: CancellationFlag()).report
        #expect(report.links == 3 && report.files == 0)
        // A link inside the folder to a file inside it is not followed either.
        let inside = try seed(repo, "inside", ["real/a.bin": Self.files["big/a.bin"]!])
        try FileManager.default.createSymbolicLink(atPath: inside + "/big", withDestinationPath: inside + "/real")
        let matches = SeedScan(paths: [inside], index: try index(repo), limits: .standard).run(wanted: Set(0..<(try index(repo).chunks.count)), cancellation: CancellationFlag())
        #expect(matches.report.links == 1)
        #expect(matches.locations.values.allSatisfy { $0.allSatisfy { matches.files[$0.file].path == "real/a.bin" } })
    }

    @Test(.timeLimit(.minutes(2))) func aFIFOInTheSeedFolderDoesNotBlock() async throws {
        let (repo, server) = try repository()
        let folder = try seed(repo, "seed", ["big/b.bin": Self.files["big/b.bin"]!])
        #expect(mkfifo(folder + "/big/a.bin", 0o644) == 0)
        #expect(mkfifo(folder + "/pipe", 0o644) == 0)
        let sources = try await install(repo, server, seeds: [folder])
        #expect(sources.bytes(from: .seed) == 700_000)
        let matches = SeedScan(paths: [folder], index: try index(repo), limits: .standard).run(wanted: Set(0..<(try index(repo).chunks.count)), cancellation: CancellationFlag())
        #expect(matches.report.special == 2)
        // A FIFO put in place of a file after the look is not read (nor waited on) either.
        let c = try #require(matches.locations.first { matches.files[$0.value[0].file].path == "big/b.bin" }?.key)
        try FileManager.default.removeItem(atPath: folder + "/big/b.bin")
        #expect(mkfifo(folder + "/big/b.bin", 0o644) == 0)
        #expect(matches.verifiedChunk(c, entry: try index(repo).chunks[c]) == nil)
    }

    @Test func unreadableFilesAndFoldersAreSkipped() async throws {
        let (repo, server) = try repository()
        let folder = try seed(repo, "seed", Self.files)
        chmod(folder + "/big/a.bin", 0)
        chmod(folder + "/big", 0o311)   // b.bin can be opened by name, the folder not listed
        try repo.dir.write("seed/locked/b.bin", Self.files["big/b.bin"]!)
        chmod(folder + "/locked", 0)
        let root = repo.dir.file("root")
        var arguments = [try Assetpack.executable(), "ensure", "Pack", "--repo", server.url, "--root", root,
                         "--public-key", repo.publicKey.text, "--seed", folder, "--json"]
        if getuid() == 0 {
            // Root reads everything: the command runs as nobody, for whom the modes count.
            let setpriv = try #require(["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                       "setpriv (Debian package util-linux) is not installed")
            arguments = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] + arguments
            var directory = repo.dir.path
            while directory != "/" {
                chmod(directory, 0o755 | (directory == repo.dir.path ? 0o777 : 0))
                directory = (directory as NSString).deletingLastPathComponent
            }
            for path in ["content", "content/Pack", "seed/small"] { chmod(repo.dir.file(path), 0o755) }
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            chmod(root, 0o777)
        }
        let result = try await ChildProcess.run(arguments[0], Array(arguments.dropFirst()), in: repo.dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        let done = try #require(result.jsonLines.last)
        let packs = try #require(done["sources"] as? [[String: Any]])
        let entries = try #require(packs.first?["entries"] as? [[String: Any]])
        // Only the small files' chunk came from the seed.
        #expect(entries.filter { $0["kind"] as? String == "seed" }.compactMap { $0["bytes"] as? Int } == [Int(Self.smallBytes)], "\(entries)")
        #expect((done["savedBytes"] as? Int ?? 0) > 0)
    }

    @Test func aSeedFileThatChangesAfterTheLookGivesNoChunk() throws {
        let (repo, _) = try repository()
        let folder = try seed(repo, "seed", Self.files)
        let index = try index(repo)
        let matches = SeedScan(paths: [folder], index: index, limits: .standard).run(wanted: Set(0..<index.chunks.count), cancellation: CancellationFlag())
        #expect(matches.locations.count == index.chunks.count)
        // a.bin's second half changes: its chunks there give nothing, the others still do.
        let fd = open(folder + "/big/a.bin", O_WRONLY)
        #expect(patternBytes(600_000, seed: 44).withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 600_000) } == 600_000)
        close(fd)
        var good = 0, bad = 0
        for (c, pieces) in matches.locations where matches.files[pieces[0].file].path == "big/a.bin" {
            if let found = matches.verifiedChunk(c, entry: index.chunks[c]) { good += 1; #expect(SHA256Digest.hash(found.bytes) == index.chunks[c].digest) } else { bad += 1 }
        }
        #expect(good > 0 && bad > 0)
        // Truncated: nothing.
        truncate(folder + "/big/b.bin", 100)
        for (c, pieces) in matches.locations where matches.files[pieces[0].file].path == "big/b.bin" {
            #expect(matches.verifiedChunk(c, entry: index.chunks[c]) == nil)
        }
    }

    @Test func aSeedFileRewrittenWhileTheInstallReadsItDoesNotPoisonTheResult() async throws {
        let (repo, server) = try repository()
        let folder = try seed(repo, "seed", Self.files)
        let original = Self.files["big/a.bin"]!, garbage = patternBytes(original.count, seed: 45)
        // Rewritten in place, over and over, half right and half wrong, until the install is done.
        let stop = CancellationFlag()
        let writer = Thread {
            let fd = open(folder + "/big/a.bin", O_WRONLY)
            defer { close(fd) }
            var round = 0
            while !stop.isCancelled {
                let bytes = round % 2 == 0 ? garbage : original
                let half = round % 3 == 0 ? 0 : original.count / 2
                _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + half, $0.count - half, off_t(half)) }
                round += 1
            }
        }
        writer.start()
        defer { stop.cancel() }
        let sources = try await install(repo, server, seeds: [folder])
        stop.cancel()
        // b.bin and the small files came from the seed whatever a.bin did meanwhile.
        #expect(sources.bytes(from: .seed) >= 700_000 + Self.smallBytes)
    }

    @Test func aHugeFolderOfUnrelatedFilesIsLookedThroughWithinTheLimits() async throws {
        let (repo, server) = try repository()
        let folder = try seed(repo, "seed", ["unrelated.bin": patternBytes(3_000_000, seed: 46)])
        for k in 0..<1500 { try repo.dir.write("seed/many/\(k % 30)/\(k).txt", text("file \(k)\n")) }
        let limits = AssetPackManager.SeedScanLimits(entries: 400, bytes: 1 << 20)
        let index = try index(repo)
        let report = SeedScan(paths: [folder], index: index, limits: limits).run(wanted: Set(0..<index.chunks.count), cancellation: CancellationFlag()).report
        #expect(report.entryLimitReached)
        #expect(report.bytesRead <= 1 << 20)
        #expect(report.chunksFound == 0)
        let sources = try await install(repo, server, seeds: [folder]) { $0.seedScanLimits = limits }
        #expect(sources.bytes(from: .seed) == 0)
        // Within the byte limit the look stops early, whatever the folder holds.
        let bytesOnly = SeedScan(paths: [folder], index: index, limits: .init(bytes: 200_000)).run(wanted: Set(0..<index.chunks.count), cancellation: CancellationFlag()).report
        #expect(bytesOnly.byteLimitReached && bytesOnly.bytesRead <= 200_000)
    }

    @Test func smallFilesCountOnlyTheBytesReadAgainstTheLimit() throws {
        let (repo, _) = try repository()
        let folder = try seed(repo, "seed", ["renamed.bin": Self.files["big/a.bin"]!])
        for k in 0..<200 { try repo.dir.write("seed/many/\(k).txt", text("file \(k)\n")) }
        let index = try index(repo)
        for workers in [1, 3] {
            let matches = SeedScan(paths: [folder], index: index, limits: .init(bytes: 1_300_000))
                .run(wanted: Set(0..<index.chunks.count), cancellation: CancellationFlag(), workers: workers)
            #expect(!matches.report.byteLimitReached && matches.report.bytesRead <= 1_300_000, "\(matches.report)")
            let found = matches.locations.keys.reduce(0) { $0 + Int(index.chunks[$1].uncompressedSize) }
            #expect(found == 1_200_000, "workers \(workers): \(found)")
        }
    }

    @Test func aDownloadStartedWithoutSeedsGoesOnWithThem() async throws {
        let (repo, _) = try repository()
        let root = StorageRoot(path: repo.dir.file("root"))
        let flaky = try repo.serve { $0.dropAfterBytes = 500_000 }
        do {
            let first = try repo.manager(root: root.path, server: flaky) {
                $0.retryPolicy = .never
                $0.parallelDownloads = .init(parts: 1, minimumInstallSize: 0)
            }
            #expect(await managerError { try await first.ensureLocalAvailability(of: first.catalogPack(withID: "Pack")) } != nil)
        }
        flaky.stop()
        let folder = try seed(repo, "seed", ["big/b.bin": Self.files["big/b.bin"]!])
        let server = try repo.serve()
        let sources = try await install(repo, server, seeds: [folder]) { $0.parallelDownloads = .init(parts: 1, minimumInstallSize: 0) }
        #expect(sources.bytes(from: .seed) > 0)
        #expect(root.stagingEntries.isEmpty)
    }

    @Test func theCommandLineRemembersSeedsWhenAskedAndReportsWhatTheySaved() async throws {
        let (repo, server) = try repository()
        let folder = try seed(repo, "seed", Self.files)
        let root = repo.dir.file("root")
        let run = { (arguments: [String]) in try await Assetpack.run(arguments, in: repo.dir.path) }
        let missing = try await run(["ensure", "Pack", "--repo", server.url, "--root", root, "--public-key", repo.publicKey.text, "--seed", repo.dir.file("nothing")])
        #expect(missing.status == 2 && missing.stderr.contains("--seed"), "\(missing.stderr)")
        let first = try await run(["ensure", "Pack", "--repo", server.url, "--root", root, "--public-key", repo.publicKey.text,
                                   "--seed", "seed", "--remember-seeds", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let done = try #require(first.jsonLines.last)
        #expect(done["fetchedBytes"] as? Int ?? -1 < 4096, "only the index: \(done)")
        #expect((done["savedBytes"] as? Int ?? 0) > 0)
        #expect(try RootSettings.load(root: root).seedFolders == [folder])
        // Remembered: a later command with only --root uses the seed.
        _ = try await run(["remove", "Pack", "--root", root])
        let second = try await run(["ensure", "Pack", "--root", root, "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        let entries = try #require((second.jsonLines.last?["sources"] as? [[String: Any]])?.first?["entries"] as? [[String: Any]])
        #expect(entries.map { $0["kind"] as? String } == ["seed"], "\(entries)")
        // --remember-seeds alone forgets them.
        _ = try await run(["remove", "Pack", "--root", root])
        let third = try await run(["ensure", "Pack", "--root", root, "--remember-seeds", "--json"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try RootSettings.load(root: root).seedFolders.isEmpty)
        #expect((third.jsonLines.last?["fetchedBytes"] as? Int ?? 0) > 1_000_000)
    }
}
