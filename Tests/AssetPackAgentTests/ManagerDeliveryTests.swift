import AssetPackFormat
import AssetPackTransport
import AssetPacks
import Foundation
import TestSupport
import Testing

/// Code written against the in-process `AssetPackManager` runs unchanged through the agent: each
/// test body runs twice, once with a manager that works in this process and once with a manager
/// made with `delivery = .agent(socketPath:)` against a real `assetpack agent` process, and
/// checks the same outcomes, errors and status updates.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ManagerDeliveryTests {
    enum Mode: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case inProcess, agent
        var testDescription: String { rawValue }
    }

    @Test(arguments: Mode.allCases) func ensureThenReadTheNamespace(_ mode: Mode) async throws {
        let fixture = try AgentFixture()
        let level = patternBytes(300_000, seed: 41)
        try fixture.put("Levels", files: ["level1.bin": level, "readme.txt": Array("hello\n".utf8)])
        try await fixture.publishAndServe()
        let subject = try await ManagerUnderTest(mode, fixture)
        let manager = subject.manager

        let pack = try await manager.catalogPack(withID: "Levels")
        #expect(try await manager.catalogPacks == [pack])
        #expect(try await manager.status(relativeTo: pack) == .downloadAvailable)
        #expect(manager.assetPackIsAvailableLocally(withID: "Levels") == false)

        try await manager.ensureLocalAvailability(of: pack)

        #expect(try manager.contents(at: "level1.bin") == Data(level))
        #expect(try manager.contents(at: "readme.txt", searchingInAssetPackWithID: "Levels") == Data("hello\n".utf8))
        #expect(FileManager.default.contents(atPath: try manager.url(for: "level1.bin").path) == Data(level))
        let fd = try manager.descriptor(for: "readme.txt")
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(fd.rawValue, &buffer, 16) == 6)
        try fd.close()
        #expect(try await manager.namespace().map { "\($0.path) \($0.packIDs)" } == ["level1.bin [\"Levels\"]", "readme.txt [\"Levels\"]"])
        #expect(try await manager.status(relativeTo: pack) == [.downloaded, .upToDate])
        #expect(await manager.localStatus(ofAssetPackWithID: "Levels") == [.downloaded, .upToDate])
        #expect(manager.assetPackIsAvailableLocally(withID: "Levels"))
        // Asked again: nothing to do.
        try await manager.ensureLocalAvailability(of: [pack])

        #expect(try await manager.preservationPriority(ofAssetPackWithID: "Levels") == 0.5)
        try await manager.setPreservationPriority(0.25, forAssetPackWithID: "Levels")
        #expect(try await manager.preservationPriority(ofAssetPackWithID: "Levels") == 0.25)
        await #expect(throws: AssetPackManagerError.self) { try await manager.setPreservationPriority(2, forAssetPackWithID: "Levels") }
        do {
            try await manager.setPreservationPriority(2, forAssetPackWithID: "Levels")
        } catch AssetPackManagerError.invalidPreservationPriority(let priority, let id) {
            #expect(priority == 2 && id == "Levels")
        }
        await subject.stop()
    }

    @Test(arguments: Mode.allCases) func statusUpdatesRunFromBeganToFinished(_ mode: Mode) async throws {
        let fixture = try AgentFixture()
        try fixture.put("Levels", files: ["level1.bin": patternBytes(2 << 20, seed: 42)])
        try fixture.put("Other", files: ["other.bin": patternBytes(1000, seed: 43)])
        try await fixture.publishAndServe(bytesPerSecond: 8 << 20)
        let subject = try await ManagerUnderTest(mode, fixture)
        let manager = subject.manager

        // Taken before the call, as with Apple's manager: nothing of the download is missed.
        let forLevels = manager.statusUpdates(forAssetPackWithID: "Levels")
        let all = EventLog(manager.statusUpdates)
        try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Levels"))
        try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Other"))

        var names: [String] = []
        var last: Progress?
        for await update in forLevels {
            #expect(update.assetPack.id == "Levels" && update.assetPack.version == 1)
            names.append(AgentEvent(update).event)
            if case .downloading(_, let progress) = update { last = progress }
        }
        #expect(names.first == "began")
        #expect(names.last == "finished")
        #expect(names.dropFirst().dropLast().allSatisfy { $0 == "downloading" } && names.count > 2, "\(names)")
        #expect(last.map { $0.completedUnitCount == $0.totalUnitCount && $0.totalUnitCount > 0 } == true)
        // The stream of every pack saw both downloads end.
        try await waitUntil("both finished updates", timeout: .seconds(30)) { all.finished == ["Levels", "Other"] }
        #expect(all.began == ["Levels", "Other"])
        await subject.stop()
    }

    @Test(arguments: Mode.allCases) func aCorruptOrMissingPackFailsWithTheManagersError(_ mode: Mode) async throws {
        let fixture = try AgentFixture()
        try fixture.put("Corrupt", files: ["c.bin": patternBytes(1 << 20, seed: 44)])
        try fixture.put("Gone", files: ["g.bin": patternBytes(1 << 20, seed: 45)])
        try await fixture.publishAndServe()
        let catalog = try fixture.repository.catalog()
        // Corrupt's chunks are overwritten in place (the index at the end stays right); Gone's
        // file is deleted from the server.
        let corrupt = try #require(catalog.pack(withID: "Corrupt"))
        var bytes = try #require(fixture.repository.contents(corrupt.path))
        for i in 64..<(bytes.count / 2) { bytes[i] ^= 0x5A }
        _ = try fixture.repository.place(corrupt.path, bytes)
        try FileManager.default.removeItem(atPath: fixture.repository.path + "/" + (try #require(catalog.pack(withID: "Gone"))).path)
        let subject = try await ManagerUnderTest(mode, fixture)
        let manager = subject.manager

        let corruptUpdates = manager.statusUpdates(forAssetPackWithID: "Corrupt")
        do {
            try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Corrupt"))
            Issue.record("a corrupt pack installed")
        } catch AssetPackManagerError.verification(let why) {
            #expect(!why.isEmpty)
        }
        var failure: (any Error)?
        for await update in corruptUpdates { if case .failed(_, let error) = update { failure = error } }
        guard case AssetPackManagerError.verification? = failure else {
            Issue.record("the stream's last update is not failed with a verification error: \(String(describing: failure))")
            return await subject.stop()
        }

        let goneUpdates = manager.statusUpdates(forAssetPackWithID: "Gone")
        do {
            try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Gone"))
            Issue.record("a pack the server does not have installed")
        } catch AssetPackManagerError.transport(.httpStatus(let url, let status, _)) {
            #expect(status == 404 && url.hasSuffix(".pack"))
        }
        var goneFailure: (any Error)?
        for await update in goneUpdates { if case .failed(_, let error) = update { goneFailure = error } }
        guard case AssetPackManagerError.transport(.httpStatus(_, 404, _))? = goneFailure else {
            Issue.record("the stream's last update is not failed with HTTP 404: \(String(describing: goneFailure))")
            return await subject.stop()
        }
        #expect(manager.assetPackIsAvailableLocally(withID: "Corrupt") == false)
        #expect(fixture.installedFile("Corrupt", "c.bin") == nil)
        await subject.stop()
    }

    @Test(arguments: Mode.allCases) func removeTakesThePackAndItsFiles(_ mode: Mode) async throws {
        let fixture = try AgentFixture()
        try fixture.put("Levels", files: ["level1.bin": patternBytes(10_000, seed: 46)])
        try await fixture.publishAndServe()
        let subject = try await ManagerUnderTest(mode, fixture)
        let manager = subject.manager
        try await manager.ensureLocalAvailability(of: try await manager.catalogPack(withID: "Levels"))
        #expect(fixture.installedFile("Levels", "level1.bin") != nil)

        try await manager.remove(assetPackWithID: "Levels")

        #expect(fixture.installedFile("Levels", "level1.bin") == nil)
        #expect(manager.assetPackIsAvailableLocally(withID: "Levels") == false)
        #expect(try await manager.status(relativeTo: try await manager.catalogPack(withID: "Levels")) == .downloadAvailable)
        do {
            _ = try manager.contents(at: "level1.bin")
            Issue.record("a removed pack's file was read")
        } catch AssetPackManagerError.fileNotFound(let path) {
            #expect(path == "level1.bin")
        }
        do {
            try await manager.remove(assetPackWithID: "Levels")
            Issue.record("removing a pack that is not installed succeeded")
        } catch AssetPackManagerError.assetPackNotFound(let id) {
            #expect(id == "Levels")
        }
        await subject.stop()
    }

    @Test(arguments: Mode.allCases) func checkForUpdatesAfterARepublish(_ mode: Mode) async throws {
        let fixture = try AgentFixture()
        try fixture.put("Levels", files: ["level1.bin": patternBytes(200_000, seed: 47)])
        try fixture.put("Old", files: ["old.bin": patternBytes(1000, seed: 48)])
        try await fixture.publishAndServe()
        let subject = try await ManagerUnderTest(mode, fixture)
        let manager = subject.manager
        try await manager.ensureLocalAvailability(of: [try await manager.catalogPack(withID: "Levels"), try await manager.catalogPack(withID: "Old")])

        let changed = patternBytes(200_000, seed: 49)
        try fixture.put("Levels", files: ["level1.bin": changed])
        fixture.drop("Old")
        try await fixture.republish()
        let updates = EventLog(manager.statusUpdates)
        let (updated, removed) = try await manager.installUpdates()

        #expect(updated.map(\.description) == ["Levels v2"])
        #expect(removed == ["Old"])
        #expect(try manager.contents(at: "level1.bin") == Data(changed))
        #expect(manager.assetPackIsAvailableLocally(withID: "Old") == false)
        #expect(try await manager.status(relativeTo: try #require(updated.first)) == [.downloaded, .upToDate])
        try await waitUntil("the update's finished update", timeout: .seconds(30)) { updates.finished == ["Levels"] }
        await subject.stop()
    }

    @Test(arguments: Mode.allCases) func theInstallStepPlansAndInstalls(_ mode: Mode) async throws {
        let fixture = try AgentFixture()
        try fixture.put("Core", policy: .essential(installationEventTypes: [.firstInstallation]), files: ["core.bin": patternBytes(50_000, seed: 50)])
        try fixture.put("Extras", policy: .prefetch(installationEventTypes: [.firstInstallation]), files: ["extras.bin": patternBytes(50_000, seed: 51)])
        try fixture.put("Patch", policy: .essential(installationEventTypes: [.subsequentUpdate]), files: ["patch.bin": patternBytes(1000, seed: 52)])
        try fixture.put("Later", files: ["later.bin": patternBytes(1000, seed: 53)])
        try await fixture.publishAndServe()
        let subject = try await ManagerUnderTest(mode, fixture)
        let manager = subject.manager

        let plan = try await manager.installationPlan(for: .firstInstallation)
        #expect(plan.essential.map(\.id) == ["Core"] && plan.prefetch.map(\.id) == ["Extras"])
        #expect(manager.assetPackIsAvailableLocally(withID: "Core") == false, "planning downloads nothing")

        let prefetch = try await manager.handleInstallationEvent(.firstInstallation)
        #expect(manager.assetPackIsAvailableLocally(withID: "Core"), "essential packs are installed when the step returns")
        try await prefetch.value
        #expect(manager.assetPackIsAvailableLocally(withID: "Extras"))
        #expect(manager.assetPackIsAvailableLocally(withID: "Patch") == false)
        #expect(manager.assetPackIsAvailableLocally(withID: "Later") == false)
        await subject.stop()
    }

    @Test(arguments: Mode.allCases) func unknownPacksAndMissingFilesAreTheManagersErrors(_ mode: Mode) async throws {
        let fixture = try AgentFixture()
        try fixture.put("Levels", files: ["level1.bin": patternBytes(1000, seed: 54)])
        try await fixture.publishAndServe()
        let subject = try await ManagerUnderTest(mode, fixture)
        let manager = subject.manager

        // Apple's localStatus does not throw: an unknown pack has no status.
        #expect(await manager.localStatus(ofAssetPackWithID: "Nope") == [])
        for call in [{ _ = try await manager.catalogPack(withID: "Nope") },
                     { try await manager.remove(assetPackWithID: "Nope") }] as [@Sendable () async throws -> Void] {
            do {
                try await call()
                Issue.record("a call about an unknown pack succeeded")
            } catch let error as AssetPackManagerError {
                guard case .assetPackNotFound("Nope") = error else { Issue.record("\(error)"); continue }
                #expect("\(error)" == "no asset pack with ID \"Nope\" in the catalog")
            }
        }
        #expect(manager.assetPackIsAvailableLocally(withID: "Nope") == false)
        for call in [{ _ = try manager.contents(at: "missing.bin") },
                     { _ = try manager.url(for: "missing.bin") },
                     { _ = try manager.descriptor(for: "missing.bin", searchingInAssetPackWithID: "Levels") }] as [@Sendable () async throws -> Void] {
            do {
                try await call()
                Issue.record("a missing file was found")
            } catch let error as AssetPackManagerError {
                guard case .fileNotFound("missing.bin") = error else { Issue.record("\(error)"); continue }
            }
        }
        await subject.stop()
    }

    // MARK: Through the agent only

    @Test func aDownloadGoesOnAfterTheManagerIsGone() async throws {
        let fixture = try AgentFixture()
        let content = patternBytes(6 << 20, seed: 55)
        try fixture.put("Big", files: ["big.bin": content])
        try await fixture.publishAndServe(bytesPerSecond: 3 << 20)
        let subject = try await ManagerUnderTest(.agent, fixture)
        var manager: AssetPackManager? = subject.manager
        let pack = try await manager!.catalogPack(withID: "Big")
        let caller = Task { [manager] in try await manager!.ensureLocalAvailability(of: pack) }
        try await waitUntil("the download to be under way", timeout: .seconds(30)) { fixture.stagedBytes() > 256 << 10 }
        // The caller leaves and the manager goes: the agent owns the download.
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        manager = nil
        subject.dropManager()
        try await waitUntil("the agent to finish alone", timeout: .seconds(60)) { fixture.installedFile("Big", "big.bin") == Data(content) }
        #expect(manager == nil)
        await subject.stop()
    }

    @Test func streamsGoOnAcrossARestartOfTheAgent() async throws {
        let fixture = try AgentFixture()
        try fixture.put("Levels", files: ["level1.bin": patternBytes(100_000, seed: 57)])
        try await fixture.publishAndServe()
        let first = try await ManagerUnderTest(.agent, fixture)
        let manager = first.manager
        let updates = EventLog(manager.statusUpdates(forAssetPackWithID: "Levels"))
        _ = try await manager.catalogPack(withID: "Levels")
        let executable = try #require(AgentChild.assetpack)
        kill(first.agent!.process.processIdentifier, SIGTERM)
        #expect(await first.agent!.exit(within: 10))

        // Another agent on the root; another client asks for the pack. The manager's stream,
        // taken before the restart, sees the download.
        let second = try AgentChild.start(executable, ["agent", "--root", fixture.root], output: fixture.dir.file("agent2.log"))
        defer { kill(second.process.processIdentifier, SIGTERM) }
        let connection = try AgentConnection(root: fixture.root)
        try await waitUntil("the second agent to answer", timeout: .seconds(30)) { await connection.isReachable() }
        try await waitUntil("the manager to subscribe again", timeout: .seconds(30)) { try await connection.agentStatus().subscribers == 1 }
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Levels", detached: true)
        try await waitUntil("the stream to end after finished", timeout: .seconds(30)) { updates.isFinished }
        #expect(updates.began == ["Levels"] && updates.finished == ["Levels"])
        first.dropManager()
        kill(second.process.processIdentifier, SIGTERM)
        #expect(await second.exit(within: 10))
    }

    @Test func theAgentHoldsTheRootAndAutomaticFindsIt() async throws {
        let fixture = try AgentFixture()
        try fixture.put("Levels", files: ["level1.bin": patternBytes(1000, seed: 56)])
        try await fixture.publishAndServe()
        // No agent: automatic works in process (and holds the root's lock meanwhile).
        var configuration = try ManagerUnderTest.configuration(fixture)
        configuration.delivery = .automatic
        configuration.storageLockTimeout = .milliseconds(100)
        do {
            let local = try AssetPackManager(configuration: configuration)
            try await local.ensureLocalAvailability(of: try await local.catalogPack(withID: "Levels"))
        }
        let subject = try await ManagerUnderTest(.agent, fixture)
        // The agent holds the lock: an in-process manager cannot have the root, one through the
        // agent takes no lock, and automatic goes through the agent.
        configuration.delivery = .inProcess
        #expect(throws: AssetPackManagerError.self) { _ = try AssetPackManager(configuration: configuration) }
        configuration.delivery = .automatic
        let automatic = try AssetPackManager(configuration: configuration)
        try await automatic.remove(assetPackWithID: "Levels")
        #expect(fixture.installedFile("Levels", "level1.bin") == nil)
        await subject.stop()

        // With the agent gone, a manager made for it says so.
        do {
            _ = try await automatic.catalogPack(withID: "Levels")
            Issue.record("a call succeeded with no agent")
        } catch let error as AgentError {
            guard case .unreachable = error else { Issue.record("\(error)"); return }
        }
    }
}

extension ManagerDeliveryTests {
    /// A progressive read while the pack downloads (in this process, or in the agent, which
    /// serves it ahead of its download): the file arrives whole while the pack is still
    /// downloading, and the download then completes as usual.
    @Test(arguments: Mode.allCases) func aProgressiveReadOvertakesTheDownload(_ mode: Mode) async throws {
        let fixture = try AgentFixture()
        var files: [String: [UInt8]] = [:]
        for k in 0..<24 { files[String(format: "f%02d.bin", k)] = patternBytes(512 << 10, seed: 1600 + UInt64(k)) }
        try fixture.put("Levels", files: files)
        try await fixture.publishAndServe(bytesPerSecond: 2 << 20)
        let subject = try await ManagerUnderTest(mode, fixture)
        let manager = subject.manager
        let pack = try await manager.catalogPack(withID: "Levels")
        await #expect(throws: AssetPackManagerError.self) {
            _ = try await manager.contents(at: "nope.bin", searchingInAssetPackWithID: "Levels", access: .progressive)
        }
        let download = Task { try await manager.ensureLocalAvailability(of: pack) }
        try await waitUntil("the download runs") { try await manager.status(relativeTo: pack).contains(.downloading) }
        let last: Data
        do { last = try await manager.contents(at: "f23.bin", searchingInAssetPackWithID: "Levels", access: .progressive) } catch {
            Issue.record("the progressive read failed: \(error); \(subject.agent?.output ?? "")")
            throw error
        }
        #expect(last == Data(files["f23.bin"]!))
        #expect(try await manager.status(relativeTo: pack).contains(.downloading), "the read came ahead of the download")
        let part = try await manager.contents(at: "f22.bin", searchingInAssetPackWithID: "Levels", access: .progressive(range: 1000..<3000))
        #expect(part == Data(files["f22.bin"]![1000..<3000]))
        let url = try await manager.url(for: "f21.bin", searchingInAssetPackWithID: "Levels", access: .progressive)
        #expect(FileManager.default.contents(atPath: url.path) == Data(files["f21.bin"]!))
        if mode == .agent {
            // assetpack cat goes through the agent too.
            let cat = try await Assetpack.run(["cat", "f20.bin", "--root", fixture.root, "--pack", "Levels", "--range", "10-19"])
            #expect(cat.status == 0, "\(cat.stderr)")
            #expect([UInt8](cat.output) == Array(files["f20.bin"]![10..<20]))
        }
        try await download.value
        for (name, bytes) in files { #expect(fixture.installedFile("Levels", name) == Data(bytes), "\(name)") }
        #expect(try manager.contents(at: "f23.bin") == Data(files["f23.bin"]!))
        await subject.stop()
    }
}

/// A manager in one of the two modes on the fixture's root; in agent mode, with the
/// `assetpack agent` process it goes through.
final class ManagerUnderTest: @unchecked Sendable {
    private var held: AssetPackManager?
    /// The manager (until `dropManager` or `stop`).
    var manager: AssetPackManager { held! }
    let agent: AgentChild?

    init(_ mode: ManagerDeliveryTests.Mode, _ fixture: AgentFixture) async throws {
        var configuration = try Self.configuration(fixture)
        switch mode {
        case .inProcess:
            agent = nil
        case .agent:
            let executable = try #require(AgentChild.assetpack, "assetpack is built beside the tests")
            let child = try AgentChild.start(executable, ["agent", "--root", fixture.root], output: fixture.dir.file("agent.log"))
            agent = child
            let connection = try AgentConnection(root: fixture.root)
            try await waitUntil("the agent to answer", timeout: .seconds(30)) { await connection.isReachable() || !child.process.isRunning }
            try #require(child.process.isRunning, "the agent exited: \(child.output)")
            configuration.delivery = .agent(socketPath: fixture.socketPath)
        }
        held = try AssetPackManager(configuration: configuration)
    }

    /// The fixture's repository, key and root, with quick retries.
    static func configuration(_ fixture: AgentFixture) throws -> AssetPackManager.Configuration {
        let url = try #require(fixture.server?.url)
        return AssetPackManager.Configuration(repositoryURLs: [url], publicKey: fixture.key.publicKey, storageRoot: fixture.root,
                                              retryPolicy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(5), maxDelay: .milliseconds(50)))
    }

    func dropManager() { held = nil }

    /// Lets go of the manager, then stops the agent (SIGTERM) and waits for it to exit.
    func stop() async {
        held = nil
        guard let agent, agent.process.isRunning else { return }
        kill(agent.process.processIdentifier, SIGTERM)
        #expect(await agent.exit(within: 10), "the agent did not exit: \(agent.output)")
    }
}
