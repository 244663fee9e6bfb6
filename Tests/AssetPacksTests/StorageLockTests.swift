@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// One manager per storage root: a second one, in this process or another, waits for the
/// first to go (deinit, exit, or SIGKILL) and fails after `storageLockTimeout`, naming the root
/// and the holder's process.
@Suite struct StorageLockTests {
    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        try repo.put("Base", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["base.txt": text("base\n")])
        try repo.put("Big", files: ["big.bin": patternBytes(2_000_000, seed: 95)])
        try repo.publish()
        return repo
    }

    func inUse(_ error: AssetPackManagerError?) -> (root: String, pid: Int32?, waited: Duration)? {
        if case .storageRootInUse(let root, let pid, let waited)? = error { return (root, pid, waited) }
        return nil
    }

    @Test func aSecondManagerWaitsThenFailsAndGetsTheRootOnceTheFirstIsGone() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        var first: AssetPackManager? = try repo.manager(root: root, server: server)
        #expect(first != nil)
        #expect(FileManager.default.contents(atPath: root + "/lock") == Data("\(getpid())\n".utf8))

        let started = ContinuousClock.now
        let error = await managerError { _ = try repo.manager(root: root, server: server) { $0.storageLockTimeout = .milliseconds(300) } }
        let refusal = try #require(inUse(error), "expected storageRootInUse, got \(String(describing: error))")
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(refusal.root == root && refusal.pid == getpid() && refusal.waited == .milliseconds(300))
        #expect("\(error!)".contains(root) && "\(error!)".contains("process \(getpid())"), "\(error!)")

        // A manager that is waiting gets the root as soon as the first one goes.
        let waiting = Task.detached { try repo.manager(root: root, server: server) { $0.storageLockTimeout = .seconds(20) } }
        // The waiting manager has opened the lock file (a second descriptor on it in this process)
        // and retries its flock until the first manager goes.
        try await waitUntil("the second manager waits for the lock") { openDescriptors(of: root + "/lock") >= 2 }
        first = nil
        let second = try await waiting.value
        try await second.ensureLocalAvailability(of: second.catalogPack(withID: "Base"))
        #expect(try second.contents(at: "base.txt") == Data(text("base\n")))
    }

    @Test func processesTakeTurnsAndAKilledHolderReleasesTheRoot() async throws {
        let repo = try repository()
        let server = try repo.serve()
        let root = repo.dir.file("root")
        let run = { (arguments: [String]) in try await Assetpack.run(arguments, in: repo.dir.path) }
        let install = try await run(["install", "--repo", server.url, "--root", root, "--public-key", repo.publicKey.text])
        #expect(install.status == 0, "\(install.stderr)")

        // This process holds the root: a command waits, then exits 1 naming it.
        var holder: AssetPackManager? = try repo.manager(root: root, server: server)
        #expect(holder != nil)
        let refused = try await run(["ls", "--root", root, "--lock-timeout", "0.3"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(root) && refused.stderr.contains("process \(getpid())"), "\(refused.stderr)")
        #expect(try await run(["ls", "--root", root, "--lock-timeout", "soon"]).status == 2)
        holder = nil
        let ls = try await run(["ls", "--root", root, "--lock-timeout", "5"])
        #expect(ls.status == 0 && ls.stdout == "base.txt\tBase\n", "\(ls.stderr)")

        // A command downloading from a slow server holds it; killed, it lets go.
        let slow = try repo.serve { $0.bandwidthBytesPerSecond = 200_000 }
        let child = try Assetpack.start(["ensure", "Big", "--repo", slow.url, "--root", root],
                                        output: repo.dir.file("child.out"), error: repo.dir.file("child.err"))
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        let childPID = child.processIdentifier
        try await waitUntil { FileManager.default.contents(atPath: root + "/lock") == Data("\(childPID)\n".utf8) }
        let error = await managerError { _ = try repo.manager(root: root, server: server) { $0.storageLockTimeout = .milliseconds(300) } }
        #expect(inUse(error)?.pid == childPID, "\(String(describing: error))")
        kill(childPID, SIGKILL)
        child.waitUntilExit()
        let after = try repo.manager(root: root, server: server) { $0.storageLockTimeout = .seconds(5) }
        #expect(after.assetPackIsAvailableLocally(withID: "Base"))
    }
}
