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
