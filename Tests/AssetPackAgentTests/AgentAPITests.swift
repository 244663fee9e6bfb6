import AssetPackAgent
import AssetPacks
import Foundation
import TestSupport
import Testing

/// The API through `AgentConnection` (libcurl over the socket), against a real repository.
@Suite struct AgentAPITests {
    @Test func ensureThroughTheSocketInstallsAndServesTheNamespace() async throws {
        let fixture = try AgentFixture()
        let level = patternBytes(300_000, seed: 3)
        try fixture.put("Levels", files: ["level1.bin": level, "readme.txt": Array("hello\n".utf8)])
        try await fixture.publishAndServe()
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)

        let before = try await connection.assetPack(withID: "Levels")
        #expect(before.assetPackStatus == .downloadAvailable)
        let events = EventLog(connection.statusUpdates(forAssetPackWithID: "Levels"))
        try await waitUntil("the event stream to be open", timeout: .seconds(30)) { try await connection.agentStatus().subscribers == 1 }

        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Levels")

        #expect(fixture.installedFile("Levels", "level1.bin") == Data(level))
        let after = try await connection.assetPack(withID: "Levels")
        #expect(after.assetPackStatus.contains(.upToDate) && after.assetPackStatus.contains(.downloaded))
        #expect(after.request == nil, "a finished request leaves the queue")
        #expect(try await connection.namespace() == [AgentNamespaceEntry(path: "level1.bin", packs: ["Levels"]),
                                                    AgentNamespaceEntry(path: "readme.txt", packs: ["Levels"])])
        #expect(try await connection.contents(at: "level1.bin") == Data(level))
        let fd = try await connection.descriptor(for: "readme.txt")
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(fd, &buffer, 16) == 6)
        await #expect(throws: AgentError.self) { try await connection.contents(at: "missing.bin") }

        // The stream carried Apple's events in order, and ended after `finished`.
        try await waitUntil("the stream to end", timeout: .seconds(30)) { events.isFinished }
        let names = events.events
        #expect(names.first == "began")
        #expect(names.last == "finished")
        #expect(names.dropFirst().dropLast().allSatisfy { $0 == "downloading" } && names.count > 2)
        await agent.stopped()
    }

    @Test func unknownPackIsAnErrorNotAQueueEntryThatBlocksOthers() async throws {
        let fixture = try AgentFixture()
        try fixture.put("Real", files: ["a.bin": patternBytes(1000, seed: 1)])
        try await fixture.publishAndServe()
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        do {
            try await connection.ensureLocalAvailability(ofAssetPackWithID: "Nope")
            Issue.record("ensure of a pack the catalog does not hold succeeded")
        } catch AgentError.remote(let status, let kind, _) {
            #expect(status == 404 && kind == "assetPackNotFound")
        }
        do {
            try await connection.ensureLocalAvailability(ofAssetPackWithID: "../etc")
            Issue.record("a malformed ID was accepted")
        } catch AgentError.remote(let status, _, _) {
            #expect(status == 400)
        }
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Real")
        #expect(fixture.installedFile("Real", "a.bin") != nil)
        await agent.stopped()
    }

    @Test func cancelPausesTheDownloadAndEnsureResumesIt() async throws {
        let fixture = try AgentFixture()
        let content = patternBytes(6 << 20, seed: 9)
        try fixture.put("Big", files: ["big.bin": content])
        try await fixture.publishAndServe(bytesPerSecond: 2 << 20)
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        let events = EventLog(connection.statusUpdates)
        try await waitUntil("the event stream to be open", timeout: .seconds(30)) { try await connection.agentStatus().subscribers == 1 }

        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Big", detached: true)
        try await waitUntil("some bytes to arrive", timeout: .seconds(30)) { fixture.stagedBytes() > 0 }
        try await connection.cancel(assetPackWithID: "Big")
        try await waitUntil("the stream to say paused", timeout: .seconds(30)) { events.paused == ["Big"] }
        let paused = try await connection.assetPack(withID: "Big")
        #expect(paused.request == "paused")
        #expect(try await connection.agentStatus().running.isEmpty)
        #expect(fixture.installedFile("Big", "big.bin") == nil)

        // Asked for again, it completes (from what was kept).
        try fixture.serve(bytesPerSecond: 0)
        await agent.stopped()
        let again = try await fixture.startAgent()
        defer { again.stop() }
        #expect(try again.statusReport().running.isEmpty, "a paused request does not resume on its own")
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Big")
        #expect(fixture.installedFile("Big", "big.bin") == Data(content))
        await #expect(throws: AgentError.self) { try await connection.cancel(assetPackWithID: "Big") }

        // Remove goes through the agent too.
        try await connection.remove(assetPackWithID: "Big")
        #expect(fixture.installedFile("Big", "big.bin") == nil)
        #expect(try await connection.assetPack(withID: "Big").assetPackStatus == .downloadAvailable)
        await again.stopped()
    }

    @Test func detachedEnsureAnswersAtOnceAndTheAgentFinishesAlone() async throws {
        let fixture = try AgentFixture()
        let content = patternBytes(3 << 20, seed: 5)
        try fixture.put("Voice", files: ["voice.bin": content])
        try await fixture.publishAndServe(bytesPerSecond: 1 << 20)
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        do {
            let connection = try AgentConnection(root: fixture.root)
            try await connection.ensureLocalAvailability(ofAssetPackWithID: "Voice", detached: true)
            #expect(fixture.installedFile("Voice", "voice.bin") == nil, "a detached ensure answers before the download is done")
            #expect(try agent.statusReport().requests.map(\.id) == ["Voice"], "the request is queued before it is acknowledged")
        }
        // The requesting client is gone; the agent finishes on its own.
        try await waitUntil("the agent to install the pack", timeout: .seconds(60)) { fixture.installedFile("Voice", "voice.bin") == Data(content) }
        try await waitUntil("the request to leave the queue", timeout: .seconds(30)) { try agent.statusReport().requests.isEmpty }
        await agent.stopped()
    }

    @Test func installStepQueuesEssentialAndPrefetchPacksAndWaitsForTheEssentialOnes() async throws {
        let fixture = try AgentFixture()
        try fixture.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["core.bin": patternBytes(400_000, seed: 1)])
        try fixture.put("Extras", policy: .prefetch(installationEventTypes: [.firstInstallation]), files: ["extras.bin": patternBytes(2 << 20, seed: 2)])
        try fixture.put("Later", files: ["later.bin": patternBytes(1000, seed: 3)])
        try await fixture.publishAndServe(bytesPerSecond: 4 << 20)
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        let plan = try await connection.handleInstallationEvent(.firstInstallation)
        #expect(plan == AgentInstallationPlan(essential: ["Core"], prefetch: ["Extras"]))
        #expect(fixture.installedFile("Core", "core.bin") != nil, "the essential pack is installed when the step returns")
        try await waitUntil("the prefetch pack to follow in the agent", timeout: .seconds(60)) { fixture.installedFile("Extras", "extras.bin") != nil }
        #expect(fixture.installedFile("Later", "later.bin") == nil, "on-demand packs are left alone")
        #expect(try await connection.handleInstallationEvent(.subsequentUpdate, detached: true) == AgentInstallationPlan(essential: [], prefetch: []))
        await agent.stopped()
    }

    @Test func aPackACallerWaitsForGoesFirst() async throws {
        let fixture = try AgentFixture()
        for (i, id) in ["First", "Detached", "Waited"].enumerated() { try fixture.put(id, files: ["\(id).bin": patternBytes(3 << 20, seed: UInt64(i))]) }
        // Slow enough (3 s a pack) that First is still under way when Waited is asked for, even
        // on a busy machine.
        try await fixture.publishAndServe(bytesPerSecond: 1 << 20)
        let agent = try await fixture.startAgent(maxParallel: 1)
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        let events = EventLog(connection.statusUpdates)
        try await waitUntil("the event stream to be open", timeout: .seconds(30)) { try await connection.agentStatus().subscribers == 1 }
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "First", detached: true)
        try await waitUntil("First to be under way", timeout: .seconds(30)) { fixture.stagedBytes() > 0 }
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Detached", detached: true)
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Waited")
        // First (background) yielded its only slot to Waited, and resumes ahead of Detached.
        try await waitUntil("all three to finish", timeout: .seconds(60)) { events.finished.count == 3 }
        #expect(events.began == ["First", "Waited", "First", "Detached"])
        #expect(events.paused == ["First"])
        #expect(events.finished == ["Waited", "First", "Detached"])
        await agent.stopped()
    }

    @Test func aBackgroundDownloadYieldsItsSlotToAPackACallerWaitsFor() async throws {
        let fixture = try AgentFixture()
        let big = patternBytes(6 << 20, seed: 71), small = patternBytes(200_000, seed: 72)
        try fixture.put("Prefetched", files: ["big.bin": big])
        try fixture.put("Needed", files: ["small.bin": small])
        try await fixture.publishAndServe(bytesPerSecond: 2 << 20)
        let agent = try await fixture.startAgent(maxParallel: 1)
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Prefetched", detached: true)
        try await waitUntil("the background download to be under way", timeout: .seconds(30)) { fixture.stagedBytes() > 256 << 10 }
        // The only slot is taken; a caller waits for another pack: it does not wait for the 6 MiB.
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Needed")
        #expect(fixture.installedFile("Needed", "small.bin") == Data(small))
        #expect(fixture.installedFile("Prefetched", "big.bin") == nil, "the background pack yielded")
        // ...and it takes its slot back and finishes.
        try await waitUntil("the background pack to finish", timeout: .seconds(60)) { fixture.installedFile("Prefetched", "big.bin") == Data(big) }
        try await waitUntil("the queue to empty", timeout: .seconds(30)) { try agent.statusReport().requests.isEmpty }
        await agent.stopped()
    }
}
