import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
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
        let help = try await Assetpack.run([command, "--help"], in: scratch.path)
        #expect(help.status == 0)
        #expect(help.stdout.contains(command) && help.stdout.contains("--root"), "\(help.stdout)")
    }

    @Test(arguments: commands)
    func missingRootIsAUsageError(_ command: String) async throws {
        let scratch = try TemporaryDirectory("cli")
        let arguments = [command] + (["ensure", "cat", "remove"].contains(command) ? ["X"] : [])
        let result = try await Assetpack.run(arguments, in: scratch.path)
        #expect(result.status == 2, "\(command): \(result.stderr)")
        #expect(result.stderr.contains("--root"), "\(result.stderr)")
    }

    @Test func installEnsureStatusLsCatRemoveUpdate() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let run = { (arguments: [String]) in try await Assetpack.run(arguments, in: repo.dir.path) }

        // install: essentials, JSON lines, and the root remembers the repository and key.
        let install = try await run(["install", "--repo", server.url, "--root", root, "--public-key", repo.publicKey.text, "--json"])
        #expect(install.status == 0, "\(install.stderr)")
        let events = install.jsonLines
        #expect(events.contains { $0["event"] as? String == "began" && $0["assetPackID"] as? String == "Base" })
        #expect(events.contains { $0["event"] as? String == "finished" && $0["assetPackID"] as? String == "Base" })
        #expect(events.last?["event"] as? String == "done")
        #expect((events.last?["fetchedBytes"] as? Int ?? 0) > 150_000)
        #expect(!events.contains { $0["assetPackID"] as? String == "Extras" })

        // ensure with only --root: the remembered settings are used.
        let ensure = try await run(["ensure", "Extras", "--root", root, "--json"])
        #expect(ensure.status == 0, "\(ensure.stderr)")
        #expect(ensure.jsonLines.contains { $0["event"] as? String == "finished" && $0["assetPackID"] as? String == "Extras" })

        // status --json: every pack with its status names.
        let status = try await run(["status", "--root", root, "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: status.output) as? [[String: Any]])
        #expect(rows.map { $0["id"] as? String } == ["Base", "Extras"])
        #expect(rows.allSatisfy { ($0["status"] as? [String]) == ["upToDate", "downloaded"] })
        #expect(rows.first?["policy"] as? String == "essential")
        let one = try await run(["status", "Extras", "--root", root])
        #expect(one.status == 0 && one.stdout.contains("Extras") && one.stdout.contains("upToDate"), "\(one.stdout)")

        // ls and cat.
        let ls = try await run(["ls", "--root", root])
        #expect(ls.status == 0)
        #expect(ls.stdout == "base/data.bin\tBase\nbase/hello.txt\tBase\nextras/more.txt\tExtras\n")
        let cat = try await run(["cat", "base/data.bin", "--root", root])
        #expect(cat.status == 0 && cat.output == Data(patternBytes(150_000, seed: 71)))
        let catPack = try await run(["cat", "extras/more.txt", "--root", root, "--pack", "Base"])
        #expect(catPack.status == 1 && catPack.stderr.contains("extras/more.txt"), "\(catPack.stderr)")

        // Failures exit 1 with a message naming the problem.
        let unknown = try await run(["ensure", "Nope", "--root", root])
        #expect(unknown.status == 1 && unknown.stderr.contains("Nope"), "\(unknown.stderr)")
        let missing = try await run(["cat", "no/such/file", "--root", root])
        #expect(missing.status == 1 && missing.stderr.contains("no/such/file"))
        let empty = try await run(["ls", "--root", repo.dir.file("never-installed")])
        #expect(empty.status == 1 && empty.stderr.contains("not an initialised storage root"), "\(empty.stderr)")
        let badEvent = try await run(["install", "--root", root, "--event", "whenever"])
        #expect(badEvent.status == 2)
        let badParts = try await run(["ensure", "Extras", "--root", root, "--parts", "0"])
        #expect(badParts.status == 2 && badParts.stderr.contains("--parts"), "\(badParts.stderr)")

        // remove: files and namespace entries go.
        let remove = try await run(["remove", "Extras", "--root", root])
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(try await run(["cat", "extras/more.txt", "--root", root]).status == 1)
        #expect(try await run(["remove", "Extras", "--root", root]).status == 1)

        // update: a new version of Base arrives, reported in the last JSON line.
        try repo.put("Base", policy: .essential(installationEventTypes: [.firstInstallation]),
                     files: ["base/hello.txt": text("hello again\n"), "base/data.bin": patternBytes(150_000, seed: 71)])
        try repo.publish()
        let update = try await run(["update", "--root", root, "--json"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.jsonLines.last?["updated"] as? [String] == ["Base v2"])
        let hello = try await run(["cat", "base/hello.txt", "--root", root])
        #expect(hello.stdout == "hello again\n")
    }

    @Test func wrongKeyFailsWithTheCatalogError() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let other = try TestRepository()
        let result = try await Assetpack.run(["install", "--repo", server.url, "--root", repo.dir.file("root"),
                                             "--public-key", other.publicKey.text], in: repo.dir.path)
        #expect(result.status == 1)
        #expect(result.stderr.contains("wrong key"), "\(result.stderr)")
        #expect(server.packRequests().isEmpty)
    }
}
