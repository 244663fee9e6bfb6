import AssetPackFormat
@testable import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// The app decided to download a pack (the user bought an expansion: there are no paid packs
/// yet, so the purchase is the decision to ensure it) and the pack is not local yet because the
/// network went away. Status shows it pending and not local, with the reason; the next start
/// with a network completes it — through the agent's durable queue with no client at all.
@Suite struct PendingDownloadTests {
    static let expansion = patternBytes(4 << 20, seed: 71)
    static let core = text("core\n", repeating: 100)

    func repository() throws -> TestRepository {
        let repo = try TestRepository()
        try repo.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["core.txt": Self.core])
        try repo.put("Expansion", files: ["expansion/world.bin": Self.expansion])
        try repo.publish()
        return repo
    }

    /// Library and CLI without an agent: the purchase starts the download, the user leaves
    /// mid-way and comes back offline; the pack shows as downloading (pending) and not local,
    /// `ensure` says why it cannot go on, and back online it completes with what was missing.
    @Test(arguments: Client.allCases)
    func anInterruptedDownloadShowsPendingOfflineAndCompletesOnline(_ client: Client) async throws {
        let repo = try repository()
        let pack = try #require(try repo.catalog().pack(withID: "Expansion"))
        // 4 s for the expansion at 1 MiB/s; the app is gone after about 1 s.
        let slow = try repo.serve { $0.bandwidthBytesPerSecond = 1 << 20 }
        let port = slow.port
        let app = App(client, repo: repo, urls: [slow.url])
        let installed = await app.install()
        try #require(installed.succeeded, "\(installed.error ?? "")")

        // The purchase: the download starts, and the app is gone once 1 MiB is verified.
        let threshold: Int64 = 1 << 20
        switch client {
        case .cli:
            let output = repo.dir.file("purchase.out")
            let run = try app.start(["ensure", "Expansion"] + app.networkArguments, output: output, error: repo.dir.file("purchase.err"))
            let killer = Killer(run, when: { lastCompleted(inJSONLines: output) >= threshold }, within: .seconds(90))
            try await waitUntil("the purchase run is killed", timeout: .seconds(100)) { killer.isDone }
            _ = try await ChildExit.wait(for: run, timeout: .seconds(30))
        case .library:
            let manager = try app.manager()
            let updates = UpdateCollector(manager.statusUpdates)
            let ended = Flag()
            let purchase = Task {
                defer { ended.raise() }
                try await manager.ensureLocalAvailability(of: manager.catalogPack(withID: "Expansion"))
            }
            try await waitUntil("1 MiB is verified", timeout: .seconds(90)) { updates.lastCompleted("Expansion") >= threshold || ended.isRaised }
            if ended.isRaised {
                let result = await purchase.result
                Issue.record("the download ended before the user left: \(result)")
                return
            }
            purchase.cancel()
            _ = await purchase.result
            _ = await updates.stop(afterQuietPeriod: .milliseconds(50))
            app.quit()
        }
        slow.stop()

        // Offline: pending and not local; ensure says what failed and leaves it pending.
        #expect(try await app.status("Expansion").get() == ["downloadAvailable", "downloading"])
        #expect(await app.read("expansion/world.bin") == nil)
        let offline = await app.ensure("Expansion")
        #expect(offline.status == 1)
        #expect((offline.error ?? "").contains("127.0.0.1:\(port)/\(pack.path)") && (offline.error ?? "").lowercased().contains("connect"), "\(offline.error ?? "")")
        #expect(try await app.status("Expansion").get() == ["downloadAvailable", "downloading"])
        #expect(await app.read("core.txt") == Self.core)

        // Back online at the same address: the next start completes it, fetching what was missing.
        app.quit()
        let server = try repo.serve(onPort: port)
        let online = await app.ensure("Expansion")
        #expect(online.succeeded, "\(online.error ?? "")")
        #expect(online.fetchedBytes < pack.size - UInt64(threshold) + (1 << 20), "fetched \(online.fetchedBytes) of \(pack.size)")
        #expect(await app.read("expansion/world.bin") == Self.expansion)
        #expect(try await app.status("Expansion").get().contains("upToDate"))
        _ = server
    }

    /// With the agent: the purchase is handed over detached while offline; status shows the
    /// request queued with the network's error; the agent is stopped, the network returns, and
    /// the agent's next start completes the download with no client asking.
    @Test func theAgentsQueueCompletesAPurchaseMadeOfflineAtItsNextStart() async throws {
        let repo = try repository()
        let first = try repo.serve()
        let port = first.port
        let app = App(.cli, repo: repo, urls: [first.url])
        let installed = await app.install()
        try #require(installed.succeeded, "\(installed.error ?? "")")
        first.stop()

        // Offline: the agent starts on the root (it remembers the repository and key).
        var agent = try await startAgent(app, log: "agent-1")
        let queued = await app.run(["ensure", "Expansion", "--detach", "--root", app.root])
        #expect(queued.status == 0 && queued.stdout.contains("queued Expansion"), "\(queued.stderr)")
        var row: [String: Any] = [:]
        try await waitUntil("status shows the failed attempt", timeout: .seconds(60), interval: .milliseconds(100)) {
            row = await statusRow(app, "Expansion")
            return row["error"] != nil
        }
        #expect(row["request"] as? String == "queued")
        #expect((row["status"] as? [String])?.contains("downloaded") == false)
        let reason = row["error"] as? String ?? ""
        #expect(reason.contains("127.0.0.1:\(port)") && reason.lowercased().contains("connect"), "\(reason)")
        try await stop(agent)

        // The network is back; the agent's next start takes the request up, with no client.
        let server = try repo.serve(onPort: port)
        agent = try await startAgent(app, log: "agent-2")
        try await waitUntil("the agent installed Expansion", timeout: .seconds(90), interval: .milliseconds(100)) {
            (await statusRow(app, "Expansion")["status"] as? [String])?.contains("downloaded") == true
        }
        #expect(await statusRow(app, "Expansion")["request"] == nil)
        #expect(await app.read("expansion/world.bin") == Self.expansion)
        try await stop(agent)
        #expect(!server.packRequests().filter { $0.path.hasPrefix("/packs/Expansion/") }.isEmpty)
    }

    func startAgent(_ app: App, log: String) async throws -> Process {
        let process = try app.start(["agent", "--root", app.root, "--update-interval", "0"], output: app.repo.dir.file(log + ".out"),
                                    error: app.repo.dir.file(log + ".err"))
        try await waitUntil("the agent serves", timeout: .seconds(60)) {
            app.repo.dir.text(log + ".err")?.contains("agent: serving") == true || ChildExit.poll(process) != nil
        }
        try #require(ChildExit.poll(process) == nil, "the agent did not start: \(app.repo.dir.text(log + ".err") ?? "")")
        return process
    }

    func stop(_ agent: Process) async throws {
        agent.terminate()
        #expect(try await ChildExit.wait(for: agent, timeout: .seconds(10)) == ChildExit.Status(code: 0, signaled: false))
    }

    /// `assetpack status ID --json` through the agent: the pack's row.
    func statusRow(_ app: App, _ id: String) async -> [String: Any] {
        let r = await app.run(["status", id, "--json", "--root", app.root])
        return ((try? JSONSerialization.jsonObject(with: r.output)) as? [[String: Any]])?.first ?? [:]
    }
}
