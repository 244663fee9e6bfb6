@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// `--storage-budget` on the commands that download: remembered by the root, cleared by `none`.
@Suite struct StorageBudgetCommandTests {
    @Test func ensureEvictsWithinTheRememberedBudget() async throws {
        let repo = try TestRepository()
        try repo.put("A", files: ["a.bin": patternBytes(30_000, seed: 90)])
        try repo.put("B", files: ["b.bin": patternBytes(30_000, seed: 91)])
        try repo.publish()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let size = try #require(try repo.catalog().pack(withID: "A")).installSize
        let run = { (arguments: [String]) in try await Assetpack.run(arguments, in: repo.dir.path) }

        let first = try await run(["ensure", "A", "--repo", server.url, "--root", root, "--public-key", repo.publicKey.text,
                                   "--storage-budget", "\(size)"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try RootSettings.load(root: root).storageBudget == size)
        // Only --root: the remembered budget makes room for B by evicting A.
        let second = try await run(["ensure", "B", "--root", root])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try await run(["ls", "--root", root]).stdout == "b.bin\tB\n")
        // A unit (decimal: 1K = 1000 bytes), then none: no budget, both stay.
        #expect(try await run(["ensure", "A", "--root", root, "--storage-budget", "1K"]).status == 1)
        #expect(try RootSettings.load(root: root).storageBudget == 1000)
        let cleared = try await run(["ensure", "A", "--root", root, "--storage-budget", "none"])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(try RootSettings.load(root: root).storageBudget == nil)
        #expect(try await run(["ls", "--root", root]).stdout == "a.bin\tA\nb.bin\tB\n")

        let bad = try await run(["ensure", "A", "--root", root, "--storage-budget", "12Q"])
        #expect(bad.status == 2 && bad.stderr.contains("--storage-budget"), "\(bad.stderr)")
    }
}
