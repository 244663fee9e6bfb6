@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `assetpack ensure` killed with SIGKILL in the middle of a download: the next run completes
/// with verified content and fetches little more than the bytes the first run had not kept.
@Suite struct KillResumeTests {
    /// One connection (the default below 32 MiB), and three parts side by side.
    @Test(arguments: [[String](), ["--parts", "3"]])
    func killedInstallResumesWithoutFetchingKeptBytesAgain(parts: [String]) async throws {
        let repo = try TestRepository()
        let content = patternBytes(12 << 20, seed: 81)
        try repo.put("Big", files: ["big.bin": content])
        let pack = try repo.publish().packs[0]
        let root = StorageRoot(path: repo.dir.file("root"))
        let staging = root.path + "/" + root.layout.stagingDirectory(id: "Big", digest: pack.digest)

        // First run: a slow server, killed once a few MiB are on disk. A thread of its own
        // watches and kills, so that a busy test process cannot make it late.
        let slow = try repo.serve { $0.bandwidthBytesPerSecond = 2 << 20 }
        let first = try Assetpack.start(["ensure", "Big", "--repo", slow.url, "--root", root.path, "--public-key", repo.publicKey.text, "--json"] + parts,
                                        output: repo.dir.file("first.out"), error: repo.dir.file("first.err"))
        let killer = Killer(first, when: { stagedBytes(staging) >= 3 << 20 }, within: .seconds(60))
        try await waitUntil("the first run is killed", timeout: .seconds(70), interval: .milliseconds(20)) { killer.isDone }
        // waitpid, not waitUntilExit: Foundation can miss the exit of a child killed beside others.
        let ended = try await ChildExit.wait(for: first, timeout: .seconds(30))
        slow.stop()
        let firstOutput = String(decoding: FileManager.default.contents(atPath: repo.dir.file("first.out")) ?? Data(), as: UTF8.self)
        try #require(ended == ChildExit.Status(code: SIGKILL, signaled: true),
                     "the first run ended before it could be killed: \(firstOutput.suffix(500))")
        // Content bytes on disk: all verified but the chunk being written (at most 1 MiB).
        let kept = stagedBytes(staging)
        #expect(kept >= 3 << 20 && kept < UInt64(content.count), "kept \(kept)")
        #expect(try root.store().pendingDownload("Big") != nil)
        #expect(try root.store().installedPack("Big") == nil)

        // Second run, full speed: completes, and fetches about what was missing.
        let fast = try repo.serve()
        let second = try await Assetpack.run(["ensure", "Big", "--repo", fast.url, "--root", root.path, "--json"] + parts, in: repo.dir.path)
        #expect(second.status == 0, "\(second.stderr)")
        let fetched = try #require(second.jsonLines.last?["fetchedBytes"] as? Int)
        // What the kept content is worth in pack bytes, less one chunk that may be cut short.
        let keptShare = Double(kept) / Double(content.count)
        let missing = (1 - keptShare) * Double(pack.size) + Double(1 << 20)
        print("kill/resume: \(kept) content bytes kept, \(fetched) fetched by the second run of a \(pack.size)-byte pack")
        #expect(Double(fetched) <= missing, "second run fetched \(fetched) bytes; \(kept) of \(content.count) content bytes were kept")
        #expect(try root.installedFile("Big", "big.bin") == content)
        #expect(root.stagingEntries.isEmpty)
        // The server saw only requests for the rest (no request from the start of the pack data).
        #expect(!fast.packRequests().contains { Double($0.bytes) > missing })
    }
}

/// An update by patches killed with SIGKILL halfway: the next run takes up the patch frames its
/// spool kept and the chunks already on disk, exactly as for full frames.
@Suite struct PatchKillResumeTests {
    @Test func killedPatchUpdateResumesWithoutFetchingKeptBytesAgain() async throws {
        let repo = try TestRepository("patch-kill")
        let v1 = patternBytes(12 << 20, seed: 91)
        var v2 = v1
        // 24 KiB rewritten every 256 KiB: every chunk changes, each patch carries ~24 KiB.
        for k in 0..<48 { v2.replaceSubrange(k * (256 << 10) + 4096..<k * (256 << 10) + 4096 + (24 << 10), with: patternBytes(24 << 10, seed: UInt64(300 + k))) }
        try repo.put("Big", files: ["big.bin": v1])
        try repo.publish()
        let root = StorageRoot(path: repo.dir.file("root"))
        let server = try repo.serve()
        let install = try await Assetpack.run(["ensure", "Big", "--repo", server.url, "--root", root.path, "--public-key", repo.publicKey.text], in: repo.dir.path)
        try #require(install.status == 0, "\(install.stderr)")
        server.stop()
        try repo.put("Big", files: ["big.bin": v2])
        let pack = try #require(try repo.publish().pack(withID: "Big"))
        let patch = try #require(pack.patches?.first)
        let patchBytes = patch.size
        #expect(patchBytes < pack.size / 5)
        let staging = root.path + "/" + root.layout.stagingDirectory(id: "Big", digest: pack.digest)

        let slow = try repo.serve { $0.bandwidthBytesPerSecond = 128 << 10 }
        let first = try Assetpack.start(["ensure", "Big", "--latest", "--repo", slow.url, "--root", root.path, "--json"],
                                        output: repo.dir.file("first.out"), error: repo.dir.file("first.err"))
        let killer = Killer(first, when: { stagedBytes(staging) >= 4 << 20 }, within: .seconds(60))
        try await waitUntil("the first run is killed", timeout: .seconds(70), interval: .milliseconds(20)) { killer.isDone }
        first.waitUntilExit()
        slow.stop()
        try #require(first.terminationReason == .uncaughtSignal && first.terminationStatus == SIGKILL, "the first run ended before it could be killed")
        let kept = stagedBytes(staging)
        #expect(kept >= 4 << 20 && kept < UInt64(v2.count), "kept \(kept)")

        let fast = try repo.serve()
        let second = try await Assetpack.run(["ensure", "Big", "--latest", "--repo", fast.url, "--root", root.path, "--json"], in: repo.dir.path)
        #expect(second.status == 0, "\(second.stderr)")
        let fetched = try #require(second.jsonLines.last?["fetchedBytes"] as? Int)
        // The patch frames of what was not kept, and a frame or two in flight: never the full frames.
        let keptShare = Double(kept) / Double(v2.count)
        let missing = (1 - keptShare) * Double(patchBytes) + Double(96 << 10)
        #expect(Double(fetched) <= missing, "second run fetched \(fetched) bytes; \(kept) of \(v2.count) content bytes were kept")
        #expect(!fast.packRequests().contains { $0.path == "/" + pack.path && $0.bytes > pack.index.length })
        #expect(try root.installedFile("Big", "big.bin") == v2)
        #expect(root.stagingEntries.isEmpty)
    }
}

/// Bytes of the files assembled so far in a staging folder: the blocks they use (parts write one
/// file at several places, so its size can run ahead of what is written).
func stagedBytes(_ staging: String) -> UInt64 {
    let files = staging + "/files"
    let names = FileManager.default.subpaths(atPath: files) ?? []
    return names.reduce(0) { total, name in
        var st = stat()
        guard lstat(files + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return total }
        return total + min(UInt64(st.st_size), UInt64(st.st_blocks) * 512)
    }
}
