@testable import AssetPacks
import AssetPackFormat
import CPOSIX
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Updates by patch: a client with the previous version installed fetches the patch frames the
/// catalog lists instead of full frames, verifies every result by its chunk's SHA-256, and falls
/// back to the full frame for a patch that does not check out.
@Suite struct PatchInstallTests {
    /// Version 1 of a 4 MiB database-like file and a few small files; `edited` rewrites 16-byte
    /// records scattered over the file.
    func files(edited: Bool) -> [String: [UInt8]] {
        var db = patternBytes(4 << 20, seed: 21)
        if edited { for k in 0..<12 { db.replaceSubrange(k * 340_000 + 7..<k * 340_000 + 23, with: patternBytes(16, seed: UInt64(200 + k))) } }
        return ["data/db.bin": db, "data/a.json": textBytes(3000, seed: 3), "data/b.json": textBytes(edited ? 3100 : 3000, seed: 4)]
    }

    /// Publishes v1 and installs it; returns the repository, server, root and v2's files.
    func installedV1(_ label: String) async throws -> (TestRepository, TestServer, StorageRoot, [String: [UInt8]]) {
        let repo = try TestRepository(label)
        try repo.put("DB", files: files(edited: false))
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("DB", root: root.path, server: server)
        return (repo, server, root, files(edited: true))
    }

    @Test func anUpdateFetchesPatchFramesNotFullFrames() async throws {
        let (repo, server, root, v2) = try await installedV1("patch-update")
        try repo.put("DB", files: v2)
        let catalog = try repo.publish()
        let pack = try #require(catalog.pack(withID: "DB"))
        let patch = try #require(pack.patches?.first)
        let manager = try repo.manager(root: root.path, server: server)
        let before = server.packRequests().count
        let (updated, _) = try await manager.installUpdates()
        #expect(updated.map(\.description) == ["DB v2"])
        for (path, bytes) in v2 { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
        let fetched = await manager.fetchedBytes
        // The index, the patch table and some tens of bytes per edit — not 12+ compressed chunks.
        #expect(fetched < pack.index.length + patch.table.length + 12 * 2048 + 16_384, "fetched \(fetched) bytes")
        let requests = server.packRequests().dropFirst(before)
        #expect(requests.contains { $0.path == "/" + patch.path })
        #expect(root.stagingEntries.isEmpty)
    }

    @Test func aPatchThatDoesNotMakeItsChunkIsDiscardedForTheFullFrame() async throws {
        let (repo, server, root, v2) = try await installedV1("patch-corrupt")
        try repo.put("DB", files: v2)
        let catalog = try repo.publish()
        let patch = try #require(catalog.pack(withID: "DB")?.patches?.first)
        // Damage every frame (the table, pinned by the catalog, stays as it is).
        var bytes = try #require(repo.contents(patch.path))
        for i in 16..<Int(patch.table.offset) where i % 3 == 0 { bytes[i] ^= 0x55 }
        try repo.place(patch.path, bytes)
        let manager = try repo.manager(root: root.path, server: server)
        let before = server.packRequests().count
        _ = try await manager.installUpdates()
        for (path, bytes) in v2 { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
        let pack = try #require(catalog.pack(withID: "DB"))
        #expect(server.packRequests().dropFirst(before).contains { $0.path == "/" + pack.path })
    }

    @Test func aBaseModifiedOnDiskOrMissingMeansTheFullFrame() async throws {
        for damage in ["modified", "missing"] {
            let (repo, server, root, v2) = try await installedV1("patch-base-\(damage)")
            let folder = try #require(try root.installedDirectory("DB"))
            let db = folder + "/data/db.bin"
            if damage == "missing" {
                try FileManager.default.removeItem(atPath: db)
            } else {
                // Another process rewrote the installed file in place (bytes the bases cover).
                let handle = try #require(FileHandle(forUpdatingAtPath: db))
                for k in 0..<12 { try handle.seek(toOffset: UInt64(k * 340_000)); handle.write(Data(repeating: 0xEE, count: 64)) }
                try handle.close()
            }
            try repo.put("DB", files: v2)
            try repo.publish()
            let manager = try repo.manager(root: root.path, server: server)
            _ = try await manager.installUpdates()
            for (path, bytes) in v2 { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(damage): \(path)") }
        }
    }

    @Test func aPatchTableThatDoesNotMatchTheCatalogMeansFullFrames() async throws {
        let (repo, server, root, v2) = try await installedV1("patch-table")
        try repo.put("DB", files: v2)
        let catalog = try repo.publish()
        let pack = try #require(catalog.pack(withID: "DB"))
        let patch = try #require(pack.patches?.first)
        var bytes = try #require(repo.contents(patch.path))
        bytes[Int(patch.table.offset) + 20] ^= 1
        try repo.place(patch.path, bytes)
        let manager = try repo.manager(root: root.path, server: server)
        _ = try await manager.installUpdates()
        for (path, bytes) in v2 { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
        let fetched = await manager.fetchedBytes
        #expect(fetched > 12 * 60_000, "full frames were fetched: \(fetched) bytes")
    }
}

/// The index of an update made from the installed one by the patch table's index patch: a
/// pack of many small files has an index far larger than what an edit changes in it.
@Suite struct IndexPatchInstallTests {
    func files(edited: Bool) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for i in 0..<1500 { files["world/\(i / 100)/tile\(10_000 + i).json"] = textBytes(200 + (i * 53) % 1000, seed: UInt64(i)) }
        if edited { for i in [40, 700, 1333] { files["world/\(i / 100)/tile\(10_000 + i).json"] = textBytes(500, seed: UInt64(5000 + i)) } }
        return files
    }

    /// v1 installed and v2 published: the repository, its server, the root and v2's pack entry.
    func updatable(_ label: String) async throws -> (TestRepository, TestServer, StorageRoot, CatalogPack) {
        let repo = try TestRepository(label)
        try repo.put("W", files: files(edited: false))
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("W", root: root.path, server: server)
        try repo.put("W", files: files(edited: true))
        let pack = try #require(try repo.publish().pack(withID: "W"))
        return (repo, server, root, pack)
    }

    @Test func anUpdateMakesTheIndexFromTheInstalledOneInsteadOfFetchingIt() async throws {
        let (repo, server, root, pack) = try await updatable("index-patch-update")
        let patch = try #require(pack.patches?.first)
        let table = try PatchTable.decode(try #require(repo.contents(patch.path)).suffix(Int(patch.table.length)).map { $0 }, tableOffset: patch.table.offset)
        let indexPatch = try #require(table.indexPatch)
        #expect(indexPatch.frame.count * 10 < Int(pack.index.length), "index patch \(indexPatch.frame.count) bytes, index \(pack.index.length)")
        let manager = try repo.manager(root: root.path, server: server)
        let before = server.packRequests().count
        let (updated, _) = try await manager.installUpdates()
        #expect(updated.map(\.description) == ["W v2"])
        for (path, bytes) in files(edited: true) { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
        let requests = Array(server.packRequests().dropFirst(before))
        // The patch table once (the index patch in it); nothing of the pack file's index.
        #expect(requests.filter { $0.path == "/" + patch.path && $0.bytes == patch.table.length }.count == 1, "\(requests)")
        #expect(!requests.contains { $0.path == "/" + pack.path && $0.bytes >= pack.index.length }, "\(requests)")
        let fetched = await manager.fetchedBytes
        #expect(fetched < pack.index.length, "fetched \(fetched) bytes, the index alone is \(pack.index.length)")
        #expect(root.stagingEntries.isEmpty)
    }

    /// A signed catalog whose patch table carries an index patch that decodes, but to an index
    /// other than the one the catalog pins (a publisher's bug, or another zstd): the client
    /// fetches the pack's index and the update completes with the patch frames.
    @Test func anIndexPatchThatMakesAnotherIndexMeansTheIndexIsFetched() async throws {
        let (repo, server, root, pack) = try await updatable("index-patch-lies")
        let patch = try #require(pack.patches?.first)
        var file = try #require(repo.contents(patch.path))
        let table = try PatchTable.decode(Array(file[Int(patch.table.offset)...]), tableOffset: patch.table.offset)
        let packFile = try #require(repo.contents(pack.path))
        var expanded = try ExpandedIndex.expand(Array(packFile[Int(pack.index.offset)..<Int(pack.index.offset + pack.index.length)]), indexOffset: pack.index.offset)
        expanded[expanded.count - 1] ^= 1
        let lying = PatchTable(from: table.from, to: table.to, entries: table.entries,
                               indexPatch: IndexPatch(expandedLength: UInt64(expanded.count), frame: PackFileTableEncoder.frame(of: expanded[...])))
        let tableBytes = lying.encoded()
        file = Array(file[..<Int(patch.table.offset)]) + tableBytes
        try repo.place(patch.path, file)
        var catalog = try repo.catalog()
        let p = try #require(catalog.packs.firstIndex { $0.id == "W" })
        catalog.packs[p].patches![0].table = CatalogIndexLocation(offset: patch.table.offset, length: UInt64(tableBytes.count), sha256: SHA256Digest.hash(tableBytes))
        catalog.packs[p].patches![0].size = UInt64(file.count)
        catalog.packs[p].patches![0].sha256 = SHA256Digest.hash(file)
        let payload = CatalogCoding.encode(catalog)
        try repo.place("catalog.json", SignedCatalog(payload: payload, signatures: [CatalogSignature(keyID: repo.key.publicKey.keyID,
                                                                                                     signature: try repo.key.sign(SignedCatalog.signedMessage(for: payload)))]).encoded())
        let manager = try repo.manager(root: root.path, server: server)
        let before = server.packRequests().count
        _ = try await manager.installUpdates()
        for (path, bytes) in files(edited: true) { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
        let requests = Array(server.packRequests().dropFirst(before))
        #expect(requests.contains { $0.path == "/" + pack.path && $0.bytes == pack.index.length }, "the index was fetched: \(requests)")
        #expect(requests.contains { $0.path == "/" + patch.path && $0.bytes != UInt64(tableBytes.count) }, "patch frames were fetched: \(requests)")
    }
}

/// Unchanged files of an update are hard links of the installed ones: never written again.
@Suite struct UnchangedFileLinkTests {
    /// A repository of pack "L" holding `files`, published, served, and installed into a fresh
    /// root: the repository, its server, the root and the installed version's folder.
    private func installedPack(_ name: String, _ files: [String: [UInt8]]) async throws
        -> (repo: TestRepository, server: TestServer, root: StorageRoot, installed: String) {
        let repo = try TestRepository(name)
        try repo.put("L", files: files)
        try repo.publish()
        let server = try repo.serve()
        let root = StorageRoot(path: repo.dir.file("root"))
        try await repo.install("L", root: root.path, server: server)
        return (repo, server, root, try #require(try root.installedDirectory("L")))
    }

    /// Installs pack "L" of `files`, publishes them with `changes` as its next version and updates
    /// to it, checking every file's bytes after: each file's inode before and after the update.
    /// `touched`: files whose change time moves after the install (their bytes unchanged).
    private func inodesAcrossUpdate(_ name: String, _ files: [String: [UInt8]], changes: [String: [UInt8]], touched: [String] = []) async throws
        -> (before: [String: UInt64], after: [String: UInt64], manager: AssetPackManager) {
        let (repo, server, root, v1) = try await installedPack(name, files)
        func inodes(in folder: String) -> [String: UInt64] {
            Dictionary(uniqueKeysWithValues: files.keys.map { path in
                var st = stat()
                return (path, stat(folder + "/" + path, &st) == 0 ? UInt64(st.st_ino) : 0)
            })
        }
        let before = inodes(in: v1)
        for path in touched { #expect(utimes(v1 + "/" + path, nil) == 0) }
        let next = files.merging(changes) { $1 }
        try repo.put("L", files: next)
        try repo.publish()
        let manager = try repo.manager(root: root.path, server: server)
        _ = try await manager.installUpdates()
        let v2 = try #require(try root.installedDirectory("L"))
        #expect(v2 != v1)
        for (path, bytes) in next { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "\(path)") }
        return (before, inodes(in: v2), manager)
    }

    @Test func unchangedFilesAreHardLinksAndOnlyChangedFilesAreWritten() async throws {
        var b = patternBytes(3 << 20, seed: 2)
        b[2_000_000] ^= 1
        let (before, after, _) = try await inodesAcrossUpdate("links", ["big/a.bin": patternBytes(3 << 20, seed: 1), "big/b.bin": patternBytes(3 << 20, seed: 2),
                                                                     "big/c.bin": patternBytes(1 << 20, seed: 3), "empty.txt": []],
                                                           changes: ["big/b.bin": b])
        // a.bin and c.bin are the very files installed before; b.bin was written anew.
        #expect(after["big/a.bin"] == before["big/a.bin"] && after["big/c.bin"] == before["big/c.bin"] && after["big/b.bin"] != before["big/b.bin"])
    }

    /// Unchanged files are linked through their folder, held open while the next files come from
    /// it: files at the top, in sibling and nested folders, and folders left and entered again in
    /// path order are each the very file installed before.
    @Test func unchangedFilesInManyFoldersAreLinkedFolderByFolder() async throws {
        let names = ["top.txt", "a/x/1.txt", "a/x/2.txt", "a/x/3.txt", "a/y/1.txt", "a/z.txt", "b/1.txt", "b/c/d/e/deep.txt", "b/c/f.txt", "zz.txt"]
        var files: [String: [UInt8]] = [:]
        // Each larger than the smallest chunk, so that each has chunks of its own (small files share
        // theirs, and a change rewrites its neighbours too).
        for (i, name) in names.enumerated() { files[name] = patternBytes(200_000 + i, seed: UInt64(40 + i)) }
        let (before, after, _) = try await inodesAcrossUpdate("links-folders", files, changes: ["a/x/2.txt": Array("changed".utf8)])
        for name in names where name != "a/x/2.txt" { #expect(after[name] == before[name], "\(name) is linked") }
        #expect(after["a/x/2.txt"] != before["a/x/2.txt"])
    }

    /// Small files share chunks, so one edit changes a chunk of many files and the update makes
    /// it from a patch: the files of that chunk whose bytes did not change are linked from the
    /// installed version, not written, except one whose change time moved since its install
    /// (nothing then vouches that the bytes the base held are still its bytes).
    @Test func unchangedFilesOfAPatchedChunkAreLinked() async throws {
        var files: [String: [UInt8]] = [:]
        for i in 0..<240 { files["d\(i / 40)/f\(1000 + i).json"] = patternBytes(700 + i, seed: UInt64(i)) }
        var edited = try #require(files["d2/f1100.json"])
        edited[9] ^= 1
        let touched = "d2/f1101.json"
        let (before, after, manager) = try await inodesAcrossUpdate("links-patched", files, changes: ["d2/f1100.json": edited], touched: [touched])
        let linked = await manager.filesLinkedFromPatchedChunks
        #expect(linked > 0)
        #expect(after["d2/f1100.json"] != before["d2/f1100.json"] && after[touched] != before[touched])
        for path in files.keys where path != "d2/f1100.json" && path != touched { #expect(after[path] == before[path], "\(path) is linked") }
    }

    /// The unchanged chunks of a file an update rewrites are copied from the installed file
    /// inside the kernel, unread, when that file is unchanged since its verified install. One
    /// rewritten in place since (its change time moved) has its chunks read and hashed instead:
    /// none is copied, and the chunk that no longer hashes right is fetched.
    @Test func unchangedChunksOfARewrittenFileAreCopiedOnlyFromFilesUnchangedSinceTheirInstall() async throws {
        var files = ["a.bin": patternBytes(3 << 20, seed: 11), "b.bin": patternBytes(3 << 20, seed: 12)]
        let (repo, server, root, v1) = try await installedPack("copied-chunks", files)
        try rewriteInPlace(v1 + "/a.bin", at: 2_500_000)
        for (step, changed) in [(1, "a.bin"), (2, "b.bin")] {
            files[changed]![1_000_000] ^= 1
            try repo.put("L", files: files)
            try repo.publish()
            let manager = try repo.manager(root: root.path, server: server)
            _ = try await manager.installUpdates()
            for (path, bytes) in files { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "update \(step): \(path)") }
            let copied = await manager.chunksCopiedUnread
            // A 3 MiB file holds at least 3 chunks of at most 1 MiB, and an edit changes at most 2.
            if step == 1 {
                #expect(copied == 0, "a.bin changed on disk: its chunks are read and hashed")
            } else if kernelCopies(in: root.path) {
                #expect(copied >= 1)
            } else {
                #expect(copied == 0, "a file system the kernel does not copy within: every chunk is read and written")
            }
        }
    }

    /// Another process rewrites 64 bytes of the file at `path` in place from `offset`, its size
    /// unchanged: only its change time tells.
    private func rewriteInPlace(_ path: String, at offset: UInt64) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: offset)
        handle.write(Data(repeating: 0xEE, count: 64))
        try handle.close()
    }

    /// Whether the kernel copies between two files of the folder `folder` (`copy_file_range`).
    private func kernelCopies(in folder: String) -> Bool {
        let (a, b) = (folder + "/copy-probe-a", folder + "/copy-probe-b")
        guard FileManager.default.createFile(atPath: a, contents: Data(repeating: 7, count: 8192)) else { return false }
        let input = open(a, O_RDONLY), output = open(b, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        defer { close(input); close(output); unlink(a); unlink(b) }
        var from: Int64 = 0, to: Int64 = 0
        return input >= 0 && output >= 0 && cposix_copy_file_range(input, &from, output, &to, 8192) == 8192
    }

    /// An unchanged file whose change time is earlier than its install's commit is linked
    /// without being read; one changed on disk since (a later change time) is read, fails its
    /// hash and is written. The next update links unread what the first one linked: the commit's
    /// change time is taken again once the old version's names of shared files are gone.
    @Test func filesUnchangedSinceTheirVerifiedInstallAreLinkedUnreadUpdateAfterUpdate() async throws {
        // Each larger than the largest chunk: a change to one leaves the others' chunks as they were.
        var files = ["a.bin": patternBytes(1_100_000, seed: 1), "b.bin": patternBytes(1_100_000, seed: 2), "c.bin": patternBytes(1_100_000, seed: 3)]
        let (repo, server, root, v1) = try await installedPack("links-unread", files)
        func inode(_ path: String) -> UInt64 {
            var st = stat()
            return stat(path, &st) == 0 ? UInt64(st.st_ino) : 0
        }
        let installed = ["a.bin": inode(v1 + "/a.bin"), "c.bin": inode(v1 + "/c.bin")]
        try rewriteInPlace(v1 + "/a.bin", at: 500_000)
        for (step, changed, unread) in [(1, "b.bin", 1), (2, "c.bin", 2)] {
            files[changed]![7] ^= 1
            try repo.put("L", files: files)
            try repo.publish()
            let manager = try repo.manager(root: root.path, server: server)
            _ = try await manager.installUpdates()
            for (path, bytes) in files { #expect(try manager.contents(at: FilePath(path)) == Data(bytes), "update \(step): \(path)") }
            // Update 1: c.bin unread, a.bin (changed on disk) hashed and written. Update 2: a.bin and b.bin.
            #expect(await manager.filesLinkedUnread == unread, "update \(step)")
            if step == 1 {
                // c.bin is the very file installed; a.bin was written anew.
                let v2 = try #require(try root.installedDirectory("L"))
                #expect(inode(v2 + "/c.bin") == installed["c.bin"] && inode(v2 + "/a.bin") != installed["a.bin"])
            }
        }
    }
}
