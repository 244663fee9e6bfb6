import AssetPackFormat
import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The client commands with an agent running for the root: they work through it, print what
/// they print without it, hand work over with --detach, and leave downloads to the agent.
@Suite struct AgentClientCLITests {
    @Test func throughTheAgentTheCommandsPrintWhatTheyPrintWithout() async throws {
        let fixture = try AgentCLIFixture()
        let levels = textBytes(300_000, seed: 41), readme = Array("read me\n".utf8)
        try fixture.repository.put("Levels", files: ["level1.json": levels, "readme.txt": readme])
        try fixture.repository.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["core.bin": patternBytes(200_000, seed: 45)])
        try fixture.repository.put("Extras", policy: .prefetch(installationEventTypes: [.firstInstallation]), files: ["extras.bin": patternBytes(200_000, seed: 46)])
        try await fixture.publishAndServe()
        let local = fixture.dir.file("local"), shared = fixture.dir.file("shared")

        let alone = try await Assetpack.run(["ensure", "Levels", "--root", local] + fixture.settings)
        #expect(alone.status == 0, "\(alone.stderr)")
        let agent = try await fixture.startAgent(root: shared)
        defer { agent.stop() }
        let through = try await Assetpack.run(["ensure", "Levels", "--root", shared])
        #expect(through.status == 0, "\(through.stderr)")
        #expect(progressEvents(through) == progressEvents(alone))
        #expect(progressEvents(through).first == "began Levels" && progressEvents(through).last == "done")
        #expect(through.jsonLines.last?["fetchedBytes"] as? Int == alone.jsonLines.last?["fetchedBytes"] as? Int)
        // The install step: essential and prefetch packs, both waited for (their events may interleave).
        let installAlone = try await Assetpack.run(["install", "--root", local])
        let installThrough = try await Assetpack.run(["install", "--root", shared])
        #expect(installAlone.status == 0 && installThrough.status == 0, "\(installAlone.stderr) \(installThrough.stderr)")
        #expect(progressEvents(installThrough).sorted() == progressEvents(installAlone).sorted())
        #expect(Set(progressEvents(installThrough)).isSuperset(of: ["finished Core", "finished Extras", "done"]))
        // Errors read the same.
        for command in [["ensure", "Nope"], ["remove", "Nope"], ["cat", "nope.txt"]] {
            let a = try await Assetpack.run(command + ["--root", local]), b = try await Assetpack.run(command + ["--root", shared])
            #expect(a.status == b.status && a.status != 0 && a.stderr == b.stderr, "\(command): \(a.stderr) | \(b.stderr)")
        }

        for command in [["ls"], ["ls", "--json"], ["cat", "level1.json"], ["cat", "readme.txt", "--pack", "Levels"], ["status"], ["status", "Levels", "--json"]] {
            let a = try await Assetpack.run(command + ["--root", local]), b = try await Assetpack.run(command + ["--root", shared])
            #expect(a.status == 0 && b.status == 0, "\(command): \(a.stderr) \(b.stderr)")
            #expect(a.output == b.output, "\(command)")
        }
        let cat = try await Assetpack.run(["cat", "level1.json", "--root", shared])
        #expect(cat.output == Data(levels))

        // A setting the agent cannot take while it holds the root: a usage error saying so.
        let refused = try await Assetpack.run(["status", "--root", shared, "--repo", "http://127.0.0.1:9/"])
        #expect(refused.status == 2 && refused.stderr.contains("an agent (process \(agent.process.processIdentifier)) holds the root"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--repo"))
        let flush = try await Assetpack.run(["ensure", "Levels", "--root", shared, "--flush"])
        #expect(flush.status == 2 && flush.stderr.contains("--flush cannot change them from here"), "\(flush.stderr)")
        // The remembered repository given again is fine.
        #expect(try await Assetpack.run(["status", "--root", shared] + fixture.settings).status == 0)

        let removed = try await Assetpack.run(["remove", "Levels", "--root", shared])
        #expect(removed.status == 0 && removed.stderr.contains("removed Levels"), "\(removed.stderr)")
        #expect(!(try await Assetpack.run(["ls", "--root", shared]).stdout.contains("level1.json")))
        let update = try await Assetpack.run(["update", "--root", shared])
        #expect(update.status == 0 && update.stdout.contains("updated: none; removed: none"), "\(update.stdout) \(update.stderr)")
        try await agent.terminate()
    }

    @Test func detachReturnsAtOnceAndTheAgentInstallsWithNoClient() async throws {
        let fixture = try AgentCLIFixture()
        let big = patternBytes(3 << 20, seed: 42)
        try fixture.repository.put("Big", files: ["big.bin": big])
        try await fixture.publishAndServe(bytesPerSecond: 1 << 20)
        let root = fixture.dir.file("root")
        let agent = try await fixture.startAgent(root: root)
        defer { agent.stop() }

        let detached = try await Assetpack.run(["ensure", "Big", "--detach", "--root", root])
        #expect(detached.status == 0 && detached.stdout.hasPrefix("queued Big"), "\(detached.stdout) \(detached.stderr)")
        // It returned while the agent still downloads (3 MiB at 1 MiB/s).
        let right = try await agent.connection.assetPack(withID: "Big")
        #expect(!right.status.contains("downloaded"), "\(right)")
        try await waitUntil("the agent to install Big alone", timeout: .seconds(90)) {
            (try? await agent.connection.contents(at: "big.bin")) == Data(big)
        }
        let json = try await Assetpack.run(["install", "--detach", "--json", "--root", root])
        #expect(json.status == 0 && json.jsonLines.first?["event"] as? String == "queued", "\(json.stdout) \(json.stderr)")
        try await agent.terminate()
    }

    @Test func aKilledWaitingEnsureLeavesTheDownloadToTheAgent() async throws {
        let fixture = try AgentCLIFixture()
        let big = patternBytes(3 << 20, seed: 43)
        try fixture.repository.put("Big", files: ["big.bin": big])
        // 12 s of transfer at 256 KiB/s: a wide window for the polls below to see the download
        // under way, however busy the machine (at 1 MiB/s a loaded suite missed it).
        try await fixture.publishAndServe(bytesPerSecond: 256 << 10)
        let root = fixture.dir.file("root")
        let agent = try await fixture.startAgent(root: root)
        defer { agent.stop() }

        let client = try Assetpack.start(["ensure", "Big", "--root", root], output: fixture.dir.file("ensure.out"), error: fixture.dir.file("ensure.err"))
        try await waitUntil("the agent to be downloading Big", timeout: .seconds(60)) {
            (try? await agent.connection.agentStatus().running.contains("Big")) == true
        }
        kill(client.processIdentifier, SIGKILL)
        try await waitUntil("the killed client to be gone", timeout: .seconds(30)) { !client.isRunning }
        try await waitUntil("the agent to finish Big alone", timeout: .seconds(90)) {
            (try? await agent.connection.contents(at: "big.bin")) == Data(big)
        }
        try await agent.terminate()
    }

    @Test func cancelPausesTheAgentsDownloadAndStatusShowsIt() async throws {
        let fixture = try AgentCLIFixture()
        try fixture.repository.put("Big", files: ["big.bin": patternBytes(4 << 20, seed: 44)])
        try await fixture.publishAndServe(bytesPerSecond: 512 << 10)
        let root = fixture.dir.file("root")
        let agent = try await fixture.startAgent(root: root)
        defer { agent.stop() }

        let waiting = try Assetpack.start(["ensure", "Big", "--root", root], output: fixture.dir.file("ensure.out"), error: fixture.dir.file("ensure.err"))
        try await waitUntil("the agent to be downloading Big", timeout: .seconds(60)) {
            (try? await agent.connection.agentStatus().running.contains("Big")) == true
        }
        let cancel = try await Assetpack.run(["cancel", "Big", "--root", root])
        #expect(cancel.status == 0 && cancel.stderr.contains("paused Big"), "\(cancel.stderr)")
        // The waiting command learns it was paused and fails with the agent's reason.
        try await waitUntil("the waiting ensure to end", timeout: .seconds(30)) { !waiting.isRunning }
        #expect(waiting.terminationStatus == 1)
        #expect(fixture.dir.text("ensure.err")?.contains("the download of Big was cancelled; it is paused") == true, "\(fixture.dir.text("ensure.err") ?? "")")
        let status = try await Assetpack.run(["status", "Big", "--root", root])
        #expect(status.status == 0 && status.stdout.contains("[paused"), "\(status.stdout) \(status.stderr)")
        let json = try await Assetpack.run(["status", "--json", "--root", root])
        #expect(json.stdout.contains("\"request\" : \"paused\""), "\(json.stdout)")
        try await agent.terminate()
    }

    @Test func detachWithoutAnAgentIsAUsageError() async throws {
        let fixture = try AgentCLIFixture()
        let root = fixture.dir.file("root")
        for command in [["ensure", "Big"], ["install"]] {
            let result = try await Assetpack.run(command + ["--detach", "--root", root] + fixture.settings)
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr.contains("--detach needs a running agent: assetpack agent --root \(root)"), "\(result.stderr)")
        }
    }
}

/// The events of a `--json` command's output, consecutive progress lines of a pack folded into
/// one (how many arrive depends on timing), ending with `done`.
private func progressEvents(_ result: ProcessResult) -> [String] {
    var events: [String] = []
    for line in result.jsonLines {
        let event = (line["event"] as? String ?? "?") + (line["assetPackID"].map { " \($0)" } ?? "")
        if event != events.last || !event.hasPrefix("downloading") { events.append(event) }
    }
    return events
}

/// A repository served on loopback and roots beside it.
private final class AgentCLIFixture: @unchecked Sendable {
    let repository: TestRepository
    var dir: TemporaryDirectory { repository.dir }
    private var server: TestServer?

    init() throws { repository = try TestRepository("agent-cli") }

    /// What a first client command passes to set a root up.
    var settings: [String] { ["--repo", server?.url ?? "http://127.0.0.1:9/", "--public-key", repository.publicKey.text] }

    func publishAndServe(bytesPerSecond: UInt64 = 0) async throws {
        let repository = self.repository
        server = try await offPool {
            try repository.publish()
            return try repository.serve { $0.bandwidthBytesPerSecond = bytesPerSecond }
        }
    }

    /// `assetpack agent` for `root`, once it answers.
    func startAgent(root: String) async throws -> AgentProcess {
        let name = UUID().uuidString.prefix(8)
        let process = try Assetpack.start(["agent", "--root", root] + settings, output: dir.file("agent-\(name).out"), error: dir.file("agent-\(name).err"))
        let agent = AgentProcess(process: process, connection: try AgentConnection(root: root))
        try await waitUntil("the agent to answer", timeout: .seconds(60)) {
            guard process.isRunning else { throw TestSupportError("the agent exited: \(self.dir.text("agent-\(name).err") ?? "")") }
            return await agent.connection.isReachable()
        }
        return agent
    }
}

/// A running `assetpack agent`, stopped with SIGTERM.
private struct AgentProcess: Sendable {
    let process: Process
    let connection: AgentConnection

    /// SIGTERM, then waits for a clean exit.
    func terminate() async throws {
        kill(process.processIdentifier, SIGTERM)
        try await waitUntil("the agent to exit", timeout: .seconds(30)) { !process.isRunning }
        #expect(process.terminationStatus == 0)
    }

    /// For `defer`: SIGTERM if it still runs (a test that failed early).
    func stop() { if process.isRunning { kill(process.processIdentifier, SIGTERM) } }
}
