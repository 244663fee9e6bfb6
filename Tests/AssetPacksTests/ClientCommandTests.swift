import AssetPackFormat
@testable import AssetPacks
import Foundation
import LoopbackServers
import Testing

/// The client commands of the `assetpack` binary against a RepositoryServer in this process.
@Suite struct ClientCommandTests {
    static let commands = ["install", "ensure", "status", "ls", "cat", "remove", "update"]

    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        try repo.put("Base", policy: .essential(installationEventTypes: [.firstInstallation]),
                     files: ["base/hello.txt": text("hello\n"), "base/data.bin": patternBytes(150_000, seed: 71)])
        try repo.put("Extras", files: ["extras/more.txt": text("more\n", repeating: 1000)])
        try repo.publish()
        return repo
    }

    @Test(arguments: commands)
    func helpDescribesTheCommand(_ command: String) async throws {
        let scratch = try TemporaryDirectory("cli")
        let help = try await AssetpackProcess.run([command, "--help"], in: scratch.path)
        #expect(help.status == 0)
        #expect(help.text.contains(command) && help.text.contains("--root"), "\(help.text)")
    }

    @Test(arguments: commands)
    func missingRootIsAUsageError(_ command: String) async throws {
        let scratch = try TemporaryDirectory("cli")
        let arguments = [command] + (["ensure", "cat", "remove"].contains(command) ? ["X"] : [])
        let result = try await AssetpackProcess.run(arguments, in: scratch.path)
        #expect(result.status == 2, "\(command): \(result.error)")
        #expect(result.error.contains("--root"), "\(result.error)")
    }

    @Test func installEnsureStatusLsCatRemoveUpdate() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let run = { (arguments: [String]) in try await AssetpackProcess.run(arguments, in: repo.dir.path) }

        // install: essentials, JSON lines, and the root remembers the repository and key.
        let install = try await run(["install", "--repo", server.url, "--root", root, "--public-key", repo.publicKey.text, "--json"])
        #expect(install.status == 0, "\(install.error)")
        let events = install.jsonLines
        #expect(events.contains { $0["event"] as? String == "began" && $0["assetPackID"] as? String == "Base" })
        #expect(events.contains { $0["event"] as? String == "finished" && $0["assetPackID"] as? String == "Base" })
        #expect(events.last?["event"] as? String == "done")
        #expect((events.last?["fetchedBytes"] as? Int ?? 0) > 150_000)
        #expect(!events.contains { $0["assetPackID"] as? String == "Extras" })

        // ensure with only --root: the remembered settings are used.
        let ensure = try await run(["ensure", "Extras", "--root", root, "--json"])
        #expect(ensure.status == 0, "\(ensure.error)")
        #expect(ensure.jsonLines.contains { $0["event"] as? String == "finished" && $0["assetPackID"] as? String == "Extras" })

        // status --json: every pack with its status names.
        let status = try await run(["status", "--root", root, "--json"])
        #expect(status.status == 0, "\(status.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: status.output) as? [[String: Any]])
        #expect(rows.map { $0["id"] as? String } == ["Base", "Extras"])
        #expect(rows.allSatisfy { ($0["status"] as? [String]) == ["upToDate", "downloaded"] })
        #expect(rows.first?["policy"] as? String == "essential")
        let one = try await run(["status", "Extras", "--root", root])
        #expect(one.status == 0 && one.text.contains("Extras") && one.text.contains("upToDate"), "\(one.text)")

        // ls and cat.
        let ls = try await run(["ls", "--root", root])
        #expect(ls.status == 0)
        #expect(ls.text == "base/data.bin\tBase\nbase/hello.txt\tBase\nextras/more.txt\tExtras\n")
        let cat = try await run(["cat", "base/data.bin", "--root", root])
        #expect(cat.status == 0 && cat.output == Data(patternBytes(150_000, seed: 71)))
        let catPack = try await run(["cat", "extras/more.txt", "--root", root, "--pack", "Base"])
        #expect(catPack.status == 1 && catPack.error.contains("extras/more.txt"), "\(catPack.error)")

        // Failures exit 1 with a message naming the problem.
        let unknown = try await run(["ensure", "Nope", "--root", root])
        #expect(unknown.status == 1 && unknown.error.contains("Nope"), "\(unknown.error)")
        let missing = try await run(["cat", "no/such/file", "--root", root])
        #expect(missing.status == 1 && missing.error.contains("no/such/file"))
        let empty = try await run(["ls", "--root", repo.dir.file("never-installed")])
        #expect(empty.status == 1 && empty.error.contains("not an initialised storage root"), "\(empty.error)")
        let badEvent = try await run(["install", "--root", root, "--event", "whenever"])
        #expect(badEvent.status == 2)
        let badParts = try await run(["ensure", "Extras", "--root", root, "--parts", "0"])
        #expect(badParts.status == 2 && badParts.error.contains("--parts"), "\(badParts.error)")

        // remove: files and namespace entries go.
        let remove = try await run(["remove", "Extras", "--root", root])
        #expect(remove.status == 0, "\(remove.error)")
        #expect(try await run(["cat", "extras/more.txt", "--root", root]).status == 1)
        #expect(try await run(["remove", "Extras", "--root", root]).status == 1)

        // update: a new version of Base arrives, reported in the last JSON line.
        try repo.put("Base", policy: .essential(installationEventTypes: [.firstInstallation]),
                     files: ["base/hello.txt": text("hello again\n"), "base/data.bin": patternBytes(150_000, seed: 71)])
        try repo.publish()
        let update = try await run(["update", "--root", root, "--json"])
        #expect(update.status == 0, "\(update.error)")
        #expect(update.jsonLines.last?["updated"] as? [String] == ["Base v2"])
        let hello = try await run(["cat", "base/hello.txt", "--root", root])
        #expect(hello.text == "hello again\n")
    }

    @Test func wrongKeyFailsWithTheCatalogError() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let other = try TestRepository()
        let result = try await AssetpackProcess.run(["install", "--repo", server.url, "--root", repo.dir.file("root"),
                                                     "--public-key", other.publicKey.text], in: repo.dir.path)
        #expect(result.status == 1)
        #expect(result.error.contains("wrong key"), "\(result.error)")
        #expect(server.packRequests().isEmpty)
    }
}
