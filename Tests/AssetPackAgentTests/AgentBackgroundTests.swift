import AssetPackAgent
import AssetPacks
import Foundation
import TestSupport
import Testing

/// What the agent does on its own: the should-download hook before the downloads it starts,
/// and automatic updates.
@Suite struct AgentBackgroundTests {
    struct HookCase: Sendable, CustomStringConvertible {
        var command: String
        var coreInstalled: Bool
        var extrasInstalled: Bool
        /// In the skipped requests' reason.
        var reason: String?
        var description: String { command }
    }

    static let hooks: [HookCase] = [
        HookCase(command: "cat > /dev/null; exit 0", coreInstalled: true, extrasInstalled: true),
        HookCase(command: "exit 3", coreInstalled: false, extrasInstalled: false, reason: "exit status 3"),
        // Reads the pack's JSON: only Extras may go.
        HookCase(command: "grep -q '\"id\":\"Extras\"'", coreInstalled: false, extrasInstalled: true, reason: "exit status 1"),
        HookCase(command: "sleep 30", coreInstalled: false, extrasInstalled: false, reason: "no answer"),
        HookCase(command: "kill -SEGV $$", coreInstalled: false, extrasInstalled: false, reason: "signal"),
        // Garbage on its output changes nothing: the exit status decides.
        HookCase(command: "head -c 3000 /dev/urandom; echo '{{{not json'; exit 0", coreInstalled: true, extrasInstalled: true),
    ]

    @Test(arguments: hooks)
    func shouldDownloadHookDecidesTheDownloadsTheAgentStartsOnItsOwn(_ hook: HookCase) async throws {
        let fixture = try AgentFixture()
        try fixture.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["core.bin": patternBytes(20_000, seed: 1)])
        try fixture.put("Extras", policy: .prefetch(installationEventTypes: [.firstInstallation]), files: ["extras.bin": patternBytes(20_000, seed: 2)])
        try await fixture.publishAndServe()
        let agent = try await fixture.startAgent(shouldDownload: ShouldDownloadHook(command: hook.command, timeout: .seconds(3)))
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        try await connection.handleInstallationEvent(.firstInstallation, detached: true)
        // Every request ends: installed (gone from the queue) or skipped with the reason.
        try await waitUntil("both requests to be decided", timeout: .seconds(30)) {
            try agent.statusReport().requests.allSatisfy { $0.state == "skipped" }
        }
        #expect((fixture.installedFile("Core", "core.bin") != nil) == hook.coreInstalled)
        #expect((fixture.installedFile("Extras", "extras.bin") != nil) == hook.extrasInstalled)
        let skipped = try agent.statusReport().requests
        if let reason = hook.reason {
            #expect(!skipped.isEmpty && skipped.allSatisfy { $0.error?.contains(reason) == true }, "\(skipped)")
        } else {
            #expect(skipped.isEmpty, "\(skipped)")
        }
        // A pack a caller asks for is the caller's decision: no hook.
        if !hook.coreInstalled {
            try await connection.ensureLocalAvailability(ofAssetPackWithID: "Core")
            #expect(fixture.installedFile("Core", "core.bin") != nil)
        }
        await agent.stopped()
    }

    @Test func automaticUpdatesUpdateInstalledPacksAndRemoveDroppedOnes() async throws {
        let fixture = try AgentFixture()
        try fixture.put("Levels", files: ["level.bin": patternBytes(50_000, seed: 1)])
        try fixture.put("Retired", files: ["old.bin": patternBytes(1000, seed: 2)])
        try fixture.put("NotInstalled", files: ["n.bin": patternBytes(1000, seed: 3)])
        try await fixture.publishAndServe()
        let agent = try await fixture.startAgent(updateInterval: .milliseconds(300))
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Levels")
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Retired")

        let newLevel = patternBytes(50_000, seed: 11)
        try fixture.put("Levels", files: ["level.bin": newLevel])
        try fixture.put("NotInstalled", files: ["n.bin": patternBytes(1000, seed: 13)])
        fixture.drop("Retired")
        try await fixture.republish()

        try await waitUntil("the agent to update Levels on its own", timeout: .seconds(30)) { fixture.installedFile("Levels", "level.bin") == Data(newLevel) }
        try await waitUntil("the agent to remove the dropped pack", timeout: .seconds(30)) { fixture.installedFile("Retired", "old.bin") == nil }
        #expect(fixture.installedFile("NotInstalled", "n.bin") == nil, "updates touch installed packs only")
        #expect(try await connection.assetPack(withID: "Levels").version == 2)
        await agent.stopped()
    }

    @Test func maxRateCapsBackgroundDownloadsAndLeavesForegroundOnesAlone() async throws {
        let fixture = try AgentFixture()
        try fixture.put("Background", files: ["bg.bin": patternBytes(3 << 20, seed: 1)])
        try fixture.put("Foreground", files: ["fg.bin": patternBytes(3 << 20, seed: 2)])
        try await fixture.publishAndServe()
        // At this cap the background pack needs 48 s: however slow the machine, a foreground
        // pack of the same size that is not held to it finishes first.
        let cap: UInt64 = 64 << 10
        let agent = try await fixture.startAgent(maxBackgroundRate: cap)
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)

        let backgroundStart = ContinuousClock.now
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Background", detached: true)
        try await waitUntil("the background download to be under way", timeout: .seconds(30)) { fixture.stagedBytes() > 0 }
        // A pack a caller waits for, meanwhile: not held to the cap.
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Foreground")
        #expect(fixture.installedFile("Foreground", "fg.bin") == Data(patternBytes(3 << 20, seed: 2)))
        #expect(fixture.installedFile("Background", "bg.bin") == nil, "the background pack is still on its way")
        // The background bytes so far stay within the cap (plus its tenth of a second of burst and
        // one slice): a busy machine only makes them fewer.
        let staged = fixture.stagedBytes()
        let elapsed = ContinuousClock.now - backgroundStart
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("max-rate \(cap) B/s: \(staged) background bytes in \(seconds) s")
        #expect(staged > 0 && Double(staged) <= Double(cap) * (seconds + 0.1) + 16_384, "\(staged) bytes in \(seconds) s")
        try await connection.cancel(assetPackWithID: "Background")
        await agent.stopped()
    }
}
