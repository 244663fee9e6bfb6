import AssetPackFormat
import AssetPackPackaging
@testable import AssetPackPublishing
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The publish cache: unchanged packs reuse their file in the repository; any change to what
/// decides a pack's bytes packages it again; a bad cache is a warning, never a failure.
@Suite struct PublishCacheTests {
    /// A workspace with two packs whose files are older than the current clock tick (so that
    /// the first publish may cache them).
    private func twoPacks() async throws -> (ws: TestRepository, manifests: [String]) {
        let ws = try workspace()
        let alpha = try ws.put("Alpha", policy: .prefetch(installationEventTypes: [.firstInstallation]),
                                files: ["big.bin": patternBytes(300_000, seed: 1), "small.txt": Array("alpha".utf8)])
        let beta = try ws.put("Beta", language: "en", files: ["words.txt": Array(repeating: 0x61, count: 40_000)])
        await settle(ws)
        return (ws, [alpha, beta])
    }

    private func publish(_ ws: TestRepository, _ manifests: [String], _ configure: (inout PublishOptions) -> Void = { _ in }) throws -> PublishReport {
        try Publisher(key: testKey, options: ws.options(configure)).publish(manifests: manifests)
    }

    @Test func unchangedRepublishReusesThePackFiles() async throws {
        let (ws, manifests) = try await twoPacks()
        let first = try publish(ws, manifests)
        #expect(first.builds == [PackBuild(id: "Alpha", reused: false, cached: true), PackBuild(id: "Beta", reused: false, cached: true)])
        #expect(first.cachePath == "\(ws.dir.path)/.repo.publish-cache.json")
        #expect(FileManager.default.fileExists(atPath: first.cachePath!))
        let catalog1 = first.catalog!
        let inodes = catalog1.packs.map { inode("\(ws.path)/\($0.path)") }

        let second = try publish(ws, manifests) { $0.now += 60 }
        #expect(second.builds == [PackBuild(id: "Alpha", reused: true, cached: true), PackBuild(id: "Beta", reused: true, cached: true)])
        #expect(second.cacheWarnings.isEmpty)
        #expect(second.changes.map(\.kind) == [.unchanged, .unchanged])
        let catalog2 = try CatalogVerifier(publicKey: testKey.publicKey).verify(ws.catalogBytes(), now: ws.options().now + 60)
        #expect(catalog2.version == 2 && catalog2.packs == catalog1.packs)
        #expect(catalog2.packs.map { inode("\(ws.path)/\($0.path)") } == inodes)
        // The reused files are what a publish without the cache makes, byte for byte.
        let fresh = try publish(ws, manifests) { $0.cacheUse = .off; $0.repository = "\(ws.dir.path)/fresh" }
        #expect(fresh.builds.allSatisfy { !$0.reused && !$0.cached })
        #expect(fresh.catalog!.packs == catalog2.packs)
        for pack in catalog2.packs {
            let ours = FileManager.default.contents(atPath: "\(ws.path)/\(pack.path)")
            #expect(ours != nil && ours == FileManager.default.contents(atPath: "\(ws.dir.path)/fresh/\(pack.path)"))
        }
        // And a client reading it gets the files back.
        let alpha = try PackReader(path: "\(ws.path)/\(catalog2.pack(withID: "Alpha")!.path)")
        #expect(try alpha.contents(of: "big.bin") == patternBytes(300_000, seed: 1))
        #expect(Set(ws.snapshot().keys) == Set(["catalog.json", "packs/", "packs/Alpha/", "packs/Beta/", "history/", "history/1.catalog.json", "history/2.catalog.json"] + catalog2.packs.map(\.path)))
    }

    @Test func aVariantWithABaseIsReusedUntilItsDefaultChanges() async throws {
        let ws = try workspace()
        let shared = patternBytes(400_000, seed: 3)
        let def = try ws.put("Tex", files: ["shared.bin": shared, "tex.bin": patternBytes(100_000, seed: 4)])
        let astc = try ws.put("Tex", variant: ["textureFormat": "astc"], variantName: "astc", files: ["shared.bin": shared, "tex.bin": patternBytes(100_000, seed: 5)])
        await settle(ws)
        let first = try publish(ws, [def, astc])
        let v1 = try #require(first.catalog?.packs.first?.variants?.first)
        #expect(v1.base == first.catalog?.packs.first?.path && v1.size < 150_000 && v1.downloadSize > 400_000)
        #expect(first.builds.map(\.cached) == [true, true])
        // Unchanged: both files reused as they lie, the variant's with its base.
        let second = try publish(ws, [def, astc]) { $0.now += 60 }
        #expect(second.builds.map(\.reused) == [true, true], "\(second.builds) \(second.cacheWarnings)")
        #expect(second.catalog?.packs.first?.variants?.first == v1)
        // The default changes: the variant's inputs did not, but its base did, so it is made again.
        try ws.dir.write("content/Tex/tex.bin", patternBytes(100_000, seed: 6))
        await settle(ws)
        let third = try publish(ws, [def, astc]) { $0.now += 120 }
        #expect(third.builds.map(\.reused) == [false, false], "\(third.builds)")
        let entry = try #require(third.catalog?.packs.first)
        let v3 = try #require(entry.variants?.first)
        #expect(v3.base == entry.path && v3.digest != v1.digest)
        let reader = try PackReader(path: "\(ws.path)/\(v3.path)")
        try reader.attachBase(path: "\(ws.path)/\(entry.path)")
        #expect(try reader.contents(of: "shared.bin") == shared)
        // The old variant file and its base are retired together, the base named.
        #expect(third.catalog?.retired.contains { $0.path == v1.path && $0.base == first.catalog?.packs.first?.path } == true)
    }

    @Test func aVariantWithAnEarlierVariantAsBaseIsReusedUntilThatVariantChanges() async throws {
        let ws = try workspace()
        let shared = patternBytes(300_000, seed: 3), astcTex = patternBytes(300_000, seed: 5)
        let def = try ws.put("Tex", files: ["shared.bin": shared, "tex.bin": patternBytes(100_000, seed: 4)])
        let astc = try ws.put("Tex", variant: ["textureFormat": "astc"], variantName: "astc", files: ["shared.bin": shared, "tex.bin": astcTex])
        let big = try ws.put("Tex", variant: ["textureFormat": "astc", "minimumMemory": "8GiB"], variantName: "astc-8GiB",
                             files: ["shared.bin": shared, "tex.bin": astcTex, "hires.bin": patternBytes(100_000, seed: 7)])
        await settle(ws)
        let first = try publish(ws, [def, astc, big])
        let entry1 = try #require(first.catalog?.packs.first)
        let (a1, b1) = (try #require(entry1.variants?.first), try #require(entry1.variants?.last))
        #expect(b1.bases == [entry1.path, a1.path] && b1.size < 120_000, "\(b1)")
        #expect(first.builds.map(\.cached) == [true, true, true])
        // Unchanged: every file reused as it lies, the later variant's with both its bases.
        let second = try publish(ws, [def, astc, big]) { $0.now += 60 }
        #expect(second.builds.map(\.reused) == [true, true, true], "\(second.builds) \(second.cacheWarnings)")
        #expect(second.catalog?.packs.first?.variants == entry1.variants)
        // astc changes a file astc-8GiB does not have: astc-8GiB's inputs did not change, but
        // a file it may take frames from did, so it is made again (still taking the textures
        // from astc's new file), and its old file is retired naming both its bases.
        try ws.put("Tex", variant: ["textureFormat": "astc"], variantName: "astc",
                   files: ["shared.bin": shared, "tex.bin": astcTex, "extra.bin": patternBytes(10_000, seed: 8)])
        await settle(ws)
        let third = try publish(ws, [def, astc, big]) { $0.now += 120 }
        #expect(third.builds.map(\.reused) == [true, false, false], "\(third.builds)")
        let entry3 = try #require(third.catalog?.packs.first)
        let (a3, b3) = (try #require(entry3.variants?.first), try #require(entry3.variants?.last))
        #expect(a3.digest != a1.digest && b3.digest != b1.digest && b3.bases == [entry3.path, a3.path])
        let reader = try PackReader(path: "\(ws.path)/\(b3.path)")
        try reader.attachBase(path: "\(ws.path)/\(a3.path)")
        #expect(try reader.contents(of: "tex.bin") == astcTex)
        #expect(third.catalog?.retired.contains { $0.path == b1.path && $0.bases == [entry1.path, a1.path] } == true)
        #expect(third.catalog?.retired.contains { $0.path == a1.path } == true)
        // The default did not change: no patch (patches lead from a default's earlier file, never
        // from a retired variant's, whose frames lie partly in other files).
        #expect(entry3.patches == nil)
    }

    @Test func newContentOfTheSameSizeIsPackagedAgain() async throws {
        let (ws, manifests) = try await twoPacks()
        let first = try publish(ws, manifests).catalog!
        try ws.dir.write("content/Alpha/small.txt", "ALPHA")
        await settle(ws)
        let report = try publish(ws, manifests)
        #expect(report.builds.map(\.reused) == [false, true])
        #expect(report.changes.map(\.kind) == [.updated, .unchanged])
        #expect(report.catalog!.pack(withID: "Alpha")!.digest != first.pack(withID: "Alpha")!.digest)
        #expect(try PackReader(path: "\(ws.path)/\(report.catalog!.pack(withID: "Alpha")!.path)").contents(of: "small.txt") == Array("ALPHA".utf8))
    }

    /// An edit that keeps the size and the mtime's second (first case) or the whole mtime
    /// (second case, as `touch -r` or a careful tool would) is still caught.
    @Test(arguments: [false, true]) func sameSecondEditIsCaught(restoreWholeMtime: Bool) async throws {
        let (ws, manifests) = try await twoPacks()
        let path = "\(ws.dir.path)/content/Alpha/small.txt"
        let first = try publish(ws, manifests).catalog!
        let before = try #require(FileStamp(path: path))
        overwrite(path, "ALPHa")
        #expect(FileStamp(path: path)?.inode == before.inode)
        var times = [timespec(tv_sec: Int(before.modified.seconds), tv_nsec: Int(before.modified.nanoseconds)),
                     timespec(tv_sec: Int(before.modified.seconds), tv_nsec: Int(before.modified.nanoseconds))]
        if !restoreWholeMtime { times[1].tv_nsec = (times[1].tv_nsec + 1) % 1_000_000_000 }
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let after = try #require(FileStamp(path: path))
        #expect(after.size == before.size && after.modified.seconds == before.modified.seconds)
        #expect(restoreWholeMtime == (after.modified == before.modified))
        await settle(ws)
        let report = try publish(ws, manifests)
        #expect(report.builds.map(\.reused) == [false, true])
        #expect(report.catalog!.pack(withID: "Alpha")!.digest != first.pack(withID: "Alpha")!.digest)
    }

    @Test func modeChangeIsAMiss() async throws {
        let (ws, manifests) = try await twoPacks()
        let first = try publish(ws, manifests).catalog!
        #expect(chmod("\(ws.dir.path)/content/Beta/words.txt", 0o755) == 0)
        await settle(ws)
        let report = try publish(ws, manifests)
        #expect(report.builds.map(\.reused) == [true, false])
        let beta = report.catalog!.pack(withID: "Beta")!
        #expect(beta.digest != first.pack(withID: "Beta")!.digest)
        #expect(try PackReader(path: "\(ws.path)/\(beta.path)").index.files.map(\.mode) == [0o755])
    }

    @Test func manifestChangeIsAMiss() async throws {
        let (ws, manifests) = try await twoPacks()
        let first = try publish(ws, manifests).catalog!
        // The same files, untouched, under another download policy: the pack's metadata, hence
        // its bytes, change.
        let manifest = try String(contentsOfFile: manifests[0], encoding: .utf8)
        let prefetchPolicy = #"{"prefetch":{"installationEventTypes":["firstInstallation"]}}"#
        #expect(manifest.contains(prefetchPolicy))
        try ws.dir.write("Alpha.json", manifest.replacingOccurrences(of: prefetchPolicy, with: #"{"onDemand":{}}"#))
        var report = try publish(ws, manifests)
        #expect(report.builds.map(\.reused) == [false, true])
        #expect(report.catalog!.pack(withID: "Alpha")!.digest != first.pack(withID: "Alpha")!.digest)
        #expect(report.catalog!.pack(withID: "Alpha")!.downloadPolicy == .onDemand)
        // Another compression level changes the bytes too.
        report = try publish(ws, manifests) { $0.writer.compressionLevel = 5 }
        #expect(report.builds.map(\.reused) == [false, false])
    }

    @Test func corruptOrForeignCacheIsAWarningAndAFullPublish() async throws {
        let (ws, manifests) = try await twoPacks()
        _ = try publish(ws, manifests)
        let cachePath = "\(ws.dir.path)/.repo.publish-cache.json"
        for (bytes, complaint) in [("{ not json", "not JSON"),
                                   (#"{"format": "assetpack-publish-cache", "version": 99, "entries": []}"#, "version 99"),
                                   (#"{"format": "assetpack-publish-cache", "version": 1, "entries": [{"id": "Alpha"}]}"#, "malformed"),
                                   (#"{"format": "something-else", "version": 1}"#, "not a publish cache")] {
            try Data(bytes.utf8).write(to: URL(fileURLWithPath: cachePath))
            let report = try publish(ws, manifests)
            #expect(report.builds.map(\.reused) == [false, false], "\(bytes)")
            #expect(report.cacheWarnings.count == 1 && report.cacheWarnings[0].contains(complaint), "\(report.cacheWarnings)")
            #expect(report.catalog != nil)
            // The cache is written afresh, and the next publish uses it.
            #expect(try publish(ws, manifests).builds.map(\.reused) == [true, true])
        }
    }

    @Test func entryForADeletedOrDamagedPackFileIsPackagedAgain() async throws {
        let (ws, manifests) = try await twoPacks()
        let first = try publish(ws, manifests).catalog!
        let alpha = first.pack(withID: "Alpha")!
        #expect(unlink("\(ws.path)/\(alpha.path)") == 0)
        let report = try publish(ws, manifests)
        #expect(report.builds.map(\.reused) == [false, true])
        #expect(report.cacheWarnings == ["publish cache: \(alpha.path) cannot be reused (\(ws.path)/\(alpha.path): "
                                         + "cannot open it: No such file or directory); packaging Alpha again"])
        #expect(report.catalog!.pack(withID: "Alpha") == alpha)
        #expect(try PackReader(path: "\(ws.path)/\(alpha.path)").digest == alpha.digest)
        #expect(try publish(ws, manifests).builds.map(\.reused) == [true, true])

        // A damaged index (same size): not reused, and the publish refuses to keep the damaged file.
        let path = "\(ws.path)/\(alpha.path)"
        var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        bytes[Int(alpha.index.offset) + 20] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: PublishError.self) { try publish(ws, manifests) }
    }

    @Test func aNewRepositoryIgnoresACacheLeftBehind() async throws {
        let (ws, manifests) = try await twoPacks()
        _ = try publish(ws, manifests)
        try FileManager.default.removeItem(atPath: ws.path)
        let report = try publish(ws, manifests)
        #expect(report.cacheWarnings.isEmpty && report.builds.map(\.reused) == [false, false])
        #expect(try publish(ws, manifests).builds.map(\.reused) == [true, true])
    }

    /// Of several files changed while a pack of thousands was packaged, the warning names the
    /// first in pack order: the files are stat'd again in stretches at once, and a change found in
    /// a later stretch does not hide an earlier one.
    @Test func ofFilesChangedWhilePackagedTheFirstIsNamed() async throws {
        let ws = try workspace()
        var files: [String: [UInt8]] = [:]
        for i in 0..<5000 { files["f/\(1000 + i).txt"] = Array("\(i)".utf8) }
        try ws.put("Many", files: files)
        // One folder selector: the files are stat'd through their folder.
        let manifest = try ws.dir.write("Many.json", #"{"assetPackID": "Many", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "f"}], "platforms": ["iOS"], "sourceRoot": "content/Many"}"#)
        await settle(ws)
        let report = try publish(ws, [manifest]) { o in
            o.afterPackaging = { _ in for i in [5990, 5000, 2300] { try ws.dir.write("content/Many/f/\(i).txt", "changed") } }
        }
        #expect(report.builds == [PackBuild(id: "Many", reused: false, cached: false)])
        #expect(report.cacheWarnings.count == 1 && report.cacheWarnings[0].contains("f/2300.txt changed while it was packaged"), "\(report.cacheWarnings)")
        await settle(ws)
        let unchanged = try publish(ws, [manifest])
        #expect(unchanged.cacheWarnings.isEmpty && unchanged.builds == [PackBuild(id: "Many", reused: false, cached: true)], "\(unchanged.cacheWarnings)")
    }

    @Test func fileChangedWhilePackagedIsNotCached() async throws {
        let (ws, manifests) = try await twoPacks()
        let report = try publish(ws, manifests) { o in
            o.afterPackaging = { id in if id == "Alpha" { try ws.dir.write("content/Alpha/small.txt", "ALPHA") } }
        }
        #expect(report.builds == [PackBuild(id: "Alpha", reused: false, cached: false), PackBuild(id: "Beta", reused: false, cached: true)])
        #expect(report.cacheWarnings.count == 1 && report.cacheWarnings[0].contains("small.txt changed while it was packaged"))
        let cache = PublishCache.load(path: report.cachePath!)
        #expect(cache.warning == nil && cache.cache.entries.values.map(\.id) == ["Beta"])
        await settle(ws)
        let next = try publish(ws, manifests)
        #expect(next.builds.map(\.reused) == [false, true])
        #expect(try PackReader(path: "\(ws.path)/\(next.catalog!.pack(withID: "Alpha")!.path)").contents(of: "small.txt") == Array("ALPHA".utf8))
    }

    /// A file changed just before the publish starts could change again within the file
    /// system's time granularity without its times moving: such a pack is packaged but not
    /// cached. Changed over a whole second before the start, it is.
    @Test func filesChangedJustBeforeThePublishAreNotCached() async throws {
        let (ws, manifests) = try await twoPacks()
        let input = ResolvedManifest(path: manifests[0], baseDirectory: ws.dir.path)
        let changed = input.files.compactMap { FileStamp(path: $0.sourcePath)?.changed }
        let newest = try #require(changed.max())
        let clocks = [(newest, false), (FileStamp.Timestamp(seconds: newest.seconds + 1, nanoseconds: 999_999_999), false),
                      (FileStamp.Timestamp(seconds: newest.seconds + 2, nanoseconds: 0), true)]
        for (clock, cached) in clocks {
            var builder = PackBuilder(repository: ws.path, folder: try? ConfinedDirectory(root: ws.path), writer: ws.options().writer, cache: nil, afterPackaging: nil)
            builder.clock = { clock }
            let built = try builder.build(input, metadata: PackMetadata(input.manifest!), stagedAt: "\(ws.dir.path)/staged.pack")
            #expect((built.cacheKey != nil) == cached, "\(clock) for a file changed at \(newest)")
            #expect(!built.reused)
        }
    }

    @Test func checkReadsTheCacheAndWritesNothing() async throws {
        let (ws, manifests) = try await twoPacks()
        _ = try publish(ws, manifests)
        let cachePath = "\(ws.dir.path)/.repo.publish-cache.json"
        let before = (FileManager.default.contents(atPath: cachePath), FileStamp(path: cachePath))
        let snapshot = ws.snapshot()
        let report = try publish(ws, manifests) { $0.checkOnly = true; $0.lint.downloadAllowance = 1 << 30 }
        #expect(report.catalog == nil)
        #expect(report.builds == [PackBuild(id: "Alpha", reused: true, cached: false), PackBuild(id: "Beta", reused: true, cached: false)])
        #expect(FileManager.default.contents(atPath: cachePath) == before.0 && FileStamp(path: cachePath) == before.1)
        #expect(ws.snapshot() == snapshot)
        // A limit still sees the reused pack's compressed size.
        #expect(throws: PublishError.self) {
            try publish(ws, manifests) { $0.checkOnly = true; $0.lint.downloadAllowance = 1000; $0.lint.essentialDownloadAllowance = 1000 }
        }
    }

    @Test func noCachePackagesEverythingAndRefreshesTheCache() async throws {
        let (ws, manifests) = try await twoPacks()
        let custom = "\(ws.dir.path)/elsewhere.json"
        _ = try publish(ws, manifests) { $0.cachePath = custom }
        let report = try publish(ws, manifests) { $0.cachePath = custom; $0.cacheUse = .refresh }
        #expect(report.builds == [PackBuild(id: "Alpha", reused: false, cached: true), PackBuild(id: "Beta", reused: false, cached: true)])
        #expect(try publish(ws, manifests) { $0.cachePath = custom }.builds.map(\.reused) == [true, true])
        #expect(!FileManager.default.fileExists(atPath: "\(ws.dir.path)/.repo.publish-cache.json"))
    }

    @Test func unwritableCacheIsAWarning() async throws {
        let (ws, manifests) = try await twoPacks()
        let report = try publish(ws, manifests) { $0.cachePath = "\(ws.dir.path)/no-such-folder/cache.json" }
        #expect(report.catalog != nil && report.builds.allSatisfy { !$0.cached })
        #expect(report.cacheWarnings.count == 1 && report.cacheWarnings[0].contains("could not write the publish cache"), "\(report.cacheWarnings)")
        #expect(try CatalogVerifier(publicKey: testKey.publicKey).verify(ws.catalogBytes(), now: ws.options().now).version == 1)
    }

    @Test func cacheInsideTheRepositoryIsRefused() async throws {
        let (ws, manifests) = try await twoPacks()
        #expect(throws: PublishError.self) { try publish(ws, manifests) { $0.cachePath = "\(ws.path)/.cache.json" } }
        #expect(!FileManager.default.fileExists(atPath: ws.path))
        #expect(PublishOptions.defaultCachePath(repository: "/srv/site/") == "/srv/.site.publish-cache.json")
    }

    /// The key is the SHA-256 of the text docs/FORMAT.md spells, line for line, whatever the
    /// files' paths and times (a key that moved would make every cached pack be packaged
    /// again); the stamps taken through each file's folder are those `stat` of its path gives.
    @Test func theKeyHashesTheDocumentedTextAndStampsAreThoseOfStat() async throws {
        let ws = try workspace()
        // A folder selector: its files are listed in their folders.
        let content = ws.dir.file("gamma")
        for (name, bytes) in ["b.txt": Array("b".utf8), "levels/é 1/a.json": Array("{}".utf8), "levels/é 1/c.bin": patternBytes(5000, seed: 4)] {
            try FileManager.default.createDirectory(atPath: (content + "/content/" + name as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: content + "/content/" + name))
        }
        let manifest = content + "/Manifest.json"
        try Data(#"{"assetPackID": "Gamma", "downloadPolicy": {"onDemand": {}}, "fileSelectors": [{"directory": "content"}], "platforms": ["iOS"]}"#.utf8)
            .write(to: URL(fileURLWithPath: manifest))
        let input = ResolvedManifest(path: manifest, baseDirectory: content)
        try #require(input.isValid && input.files.count == 3, "\(input.diagnostics)")
        let outside = ws.dir.file("outside.txt")
        try Data("outside".utf8).write(to: URL(fileURLWithPath: outside))
        var files = input.files
        files.append(SelectedFile(packPath: "z/outside.txt", sourcePath: outside, size: 7, mode: 0o644))
        var stamps: [FileStamp] = []
        let stamper = SourceStamper()
        for file in files {
            let stamp = stamper.stamp(file)
            let byPath = try #require(FileStamp(path: file.sourcePath), "\(file.sourcePath)")
            #expect(stamp == byPath, "\(file.sourcePath)")
            stamps.append(byPath)
        }
        #expect(files.filter { $0.sourceFolder != nil }.count == 3, "the selection's files come with their folder")
        // Times before 1970 and large numbers are spelled as Swift prints them.
        stamps[1].modified = FileStamp.Timestamp(seconds: -86_401, nanoseconds: 7)
        stamps[2].inode = .max
        let writer = ws.options().writer
        let metadata = PackMetadata(input.manifest!)
        let p = writer.parameters
        var text = "assetpack-publish-cache-key \(PublishCache.version)\n\(writer.outputIdentity)\n"
            + "chunking \(p.minimumSize) \(p.averageSize) \(p.maximumSize)\n"
            + "metadata \(String(decoding: metadata.canonicalJSON(), as: UTF8.self))\nfiles \(files.count)\n"
        for (file, s) in zip(files, stamps) {
            text += "file \(file.packPath.utf8.count):\(file.packPath) \(file.sourcePath.utf8.count):\(file.sourcePath) "
                + "\(s.mode) \(s.size) \(s.modified.seconds).\(s.modified.nanoseconds) \(s.changed.seconds).\(s.changed.nanoseconds) \(s.inode) \(s.device)\n"
        }
        #expect(text.contains("-86401.7 ") && text.contains(" \(UInt64.max) ") && text.contains("é 1/a.json"))
        #expect(PackCacheKey.of(metadata: metadata, files: files, writer: writer) { stamps[$0] } == SHA256Digest.hash(Array(text.utf8)))
        #expect(stamps[1].keyText.hasPrefix("\(stamps[1].mode) \(stamps[1].size) -86401.7 "))
    }

    @Test func commandLineReportsReuse() async throws {
        let (ws, _) = try await twoPacks()
        let dir = ws.dir.path
        #expect(try await Assetpack.run(["keygen", "-o", "key.pem"], in: dir).status == 0)
        var r = try await Assetpack.run(["publish", "Alpha.json", "--repo", "site", "--key", "key.pem", "--cache", "c.json"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("packaged 1 pack(s), reused 0"))
        r = try await Assetpack.run(["publish", "Alpha.json", "--repo", "site", "--key", "key.pem", "--cache", "c.json", "--json"], in: dir)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let packaging = json?["packaging"] as? [[String: Any]]
        #expect(packaging?.first?["reused"] as? Bool == true && packaging?.first?["cached"] as? Bool == true)
        r = try await Assetpack.run(["publish", "Alpha.json", "--repo", "site", "--key", "key.pem", "--cache", "c.json", "--no-cache"], in: dir)
        #expect(r.status == 0 && r.stdout.contains("packaged 1 pack(s), reused 0"), "\(r.stdout)")
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: "\(dir)/c.json"))
        r = try await Assetpack.run(["publish", "Alpha.json", "--repo", "site", "--key", "key.pem", "--cache", "c.json"], in: dir)
        #expect(r.status == 0 && r.stderr.contains("warning: publish cache") && r.stderr.contains("not JSON"), "\(r.stderr)")
        r = try await Assetpack.run(["publish", "Alpha.json", "--repo", "site", "--key", "key.pem", "--cache", "site/c.json"], in: dir)
        #expect(r.status == 2 && r.stderr.contains("inside the repository"), "\(r.stderr)")
    }
}

/// Waits until every file in the workspace is old enough for the publish cache to trust its
/// stamp (changed over a whole second ago), as any file not edited in the last two seconds is.
func settle(_ ws: TestRepository) async {
    var newest = FileStamp.Timestamp(timespec())
    if let e = FileManager.default.enumerator(atPath: ws.dir.path) {
        for case let rel as String in e {
            if let s = FileStamp(path: "\(ws.dir.path)/\(rel)"), newest < s.changed { newest = s.changed }
        }
    }
    try? await waitUntil("the workspace's files are settled", timeout: .seconds(5), interval: .milliseconds(20)) {
        newest < FileStamp.Timestamp.settledBefore(FileStamp.Timestamp.fileSystemNow())
    }
}

/// Rewrites a file in place (same inode), as an editor that does not save by rename does.
func overwrite(_ path: String, _ text: String) {
    let fd = open(path, O_WRONLY | O_TRUNC)
    precondition(fd >= 0)
    _ = text.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) }
    close(fd)
}

func inode(_ path: String) -> UInt64? {
    var st = stat()
    return stat(path, &st) == 0 ? UInt64(st.st_ino) : nil
}
