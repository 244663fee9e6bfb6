import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// What the agent's share reads (`InstalledChunks`): chunks of a fresh install are passed on
/// without being hashed again (those within one file as ranges of it, for sendfile), because the
/// install's commit recorded a change time that every file it verified precedes; a file written
/// since (even with its size and modification time put back) is read and hashed, and refused if
/// its bytes changed.
@Suite struct InstalledChunksTests {
    /// The commit's change time follows every file it commits, even one written in the clock tick
    /// just before it (files left to the kernel's writeback: the commit comes at once): the
    /// rename waits for the next tick. Eight packs, each installed and checked file by file.
    @Test func everyFileOfACommitChangedBeforeIt() async throws {
        let repo = try TestRepository()
        for p in 0..<8 { try repo.put("P\(p)", files: ["p\(p)/a.txt": text("pack \(p)\n", repeating: 10), "p\(p)/z/large.bin": patternBytes(1_500_000, seed: UInt64(p))]) }
        _ = try repo.publish()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let manager = try repo.manager(root: root, server: server) { $0.flushesBeforeCommit = false }
        let store = await manager.store
        for p in 0..<8 {
            try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "P\(p)"))
            let row = try #require(try store.installedPack("P\(p)"))
            let index = try PackIndex.decode(row.indexBytes, indexOffset: row.indexOffset)
            for file in index.files {
                let changed = try #require(changeTime(root + "/" + row.directory + "/" + file.path))
                #expect(changed < row.committedChangeTime, "P\(p)/\(file.path) changed at \(changed), the commit at \(row.committedChangeTime)")
            }
        }
    }

    @Test func aFreshInstallIsSharedWithoutHashingAgainAndAFileChangedSinceIsHashedAndRefused() async throws {
        let repo = try TestRepository()
        let notes = Array("notes kept beside the video\n".utf8)
        try repo.put("Course", files: ["video.bin": patternBytes(700_000, seed: 77), "notes.txt": notes])
        _ = try repo.publish()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let manager = try repo.manager(root: root, server: server)
        try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Course"))

        let store = await manager.store
        let row = try #require(try store.installedPack("Course"))
        #expect(row.committedChangeTime > 0, "the commit recorded no change time")
        let index = try PackIndex.decode(row.indexBytes, indexOffset: row.indexOffset)
        for file in index.files {
            let changed = try #require(changeTime(root + "/" + row.directory + "/" + file.path))
            #expect(changed < row.committedChangeTime, "\(file.path) changed at \(changed), the commit at \(row.committedChangeTime)")
        }
        let digests = index.sequence.map { index.chunks[Int($0)].digest }
        #expect(try await verifiedCount(manager, digests) == digests.count)
        // The chunks that lie within video.bin are handed out as ranges of that file (sendfile),
        // and the range holds the chunk.
        let fromFiles = try await chunkFiles(manager, digests)
        #expect(fromFiles.count >= 2, "\(fromFiles.count) of \(digests.count) chunks as file ranges")
        for (digest, bytes) in fromFiles { #expect(SHA256Digest.hash(bytes) == digest) }

        // video.bin rewritten with the same bytes: no longer vouched for by the commit, so its
        // chunks are read and hashed (and pass).
        let video = root + "/" + row.directory + "/video.bin"
        chmod(video, 0o644)
        try Data(patternBytes(700_000, seed: 77)).write(to: URL(fileURLWithPath: video))
        let v = try #require(index.files.firstIndex { $0.path == "video.bin" })
        let inVideo = index.sequence.indices.filter { s in
            let start = index.sequenceOffsets[s], end = start + UInt64(index.chunks[Int(index.sequence[s])].uncompressedSize)
            return start >= index.fileOffsets[v] && end <= index.fileOffsets[v] + index.files[v].size
        }.count
        #expect(inVideo >= 2)
        #expect(try await chunkFiles(manager, digests).count == fromFiles.count - inVideo)
        #expect(try await verifiedCount(manager, digests) == digests.count)

        // notes.txt rewritten with other bytes of the same length, its modification time put back.
        let path = root + "/" + row.directory + "/notes.txt"
        chmod(path, 0o644)
        var before = stat()
        #expect(stat(path, &before) == 0)
        try Data(notes.map { $0 ^ 0x20 }).write(to: URL(fileURLWithPath: path))
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let refused = digests.count - (try await verifiedCount(manager, digests))
        #expect(refused >= 1, "the chunk holding the rewritten file was passed on")

        // The commit time the store records is what spares the hash: one moved past the
        // rewrite vouches for that file too (the client that asks still checks every chunk).
        try SQLiteDatabase(path: root + "/state.sqlite").execute("UPDATE installed_packs SET committed_ctime = \(Int64.max)")
        #expect(try await verifiedCount(manager, digests) == digests.count)
        try SQLiteDatabase(path: root + "/state.sqlite").execute("UPDATE installed_packs SET committed_ctime = 0")
        #expect(try await verifiedCount(manager, digests) == digests.count - refused, "without a commit time every chunk is hashed")

        // A FIFO planted in notes.txt's place (another process of the user) hangs nothing: its
        // chunk is refused, with or without a commit time.
        #expect(unlink(path) == 0 && mkfifo(path, 0o644) == 0)
        #expect(try await verifiedCount(manager, digests) == digests.count - refused)
        try SQLiteDatabase(path: root + "/state.sqlite").execute("UPDATE installed_packs SET committed_ctime = \(Int64.max)")
        #expect(try await verifiedCount(manager, digests) == digests.count - refused)
    }

    /// How many of `digests` a fresh snapshot of the installed chunks reads and vouches for.
    private func verifiedCount(_ manager: AssetPackManager, _ digests: [SHA256Digest]) async throws -> Int {
        let chunks = try await manager.installedChunks()
        return digests.filter { digest in
            guard let size = chunks.size(of: digest) else { return false }
            var buffer = [UInt8](repeating: 0, count: size)
            return buffer.withUnsafeMutableBytes { chunks.readVerifiedChunk(digest, into: $0) }
        }.count
    }

    /// The chunks of `digests` a fresh snapshot hands out as ranges of unchanged files, with the
    /// bytes of each range.
    private func chunkFiles(_ manager: AssetPackManager, _ digests: [SHA256Digest]) async throws -> [(SHA256Digest, [UInt8])] {
        let chunks = try await manager.installedChunks()
        return digests.compactMap { digest in
            guard let file = chunks.unchangedChunkFile(digest) else { return nil }
            defer { close(file.fd) }
            var bytes = [UInt8](repeating: 0, count: file.length)
            let n = bytes.withUnsafeMutableBytes { pread(file.fd, $0.baseAddress, file.length, off_t(file.offset)) }
            return (digest, Array(bytes.prefix(max(0, n))))
        }
    }

    private func changeTime(_ path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
    }
}
