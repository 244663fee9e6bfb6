import AssetPackAgent
import AssetPacks
import Foundation
import TestSupport
import Testing

/// Starting, refusing and stopping: sockets, users, the root's lock, graceful stop, systemd.
@Suite struct AgentLifecycleTests {
    @Test func socketIsOwnerOnlyAndAStaleFileIsReplaced() async throws {
        let fixture = try AgentFixture()
        try fixture.put("A", files: ["a.bin": [1, 2, 3]])
        try await fixture.publishAndServe()
        // A socket file nobody listens on, as a killed agent leaves it.
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(fixture.socketPath.utf8)) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        try #require(bound == 0)
        close(stale)

        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        var st = stat()
        #expect(lstat(fixture.socketPath, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK && (st.st_mode & 0o777) == 0o600)
        #expect(try await AgentConnection(root: fixture.root).agentStatus().pid == getpid())
        await agent.stopped()
        #expect(!FileManager.default.fileExists(atPath: fixture.socketPath), "a stopped agent removes its socket")
        await agent.stopped()
    }

    /// A link planted in place of the agent's queue files between two runs: the agent refuses to
    /// start instead of writing through it, and the file it pointed at is untouched.
    @Test(arguments: ["agent.sqlite", "agent.sqlite-wal", "agent.sqlite-shm"])
    func aQueueFileReplacedByALinkIsRefused(name: String) async throws {
        let fixture = try AgentFixture()
        try fixture.put("A", files: ["a.bin": [1]])
        try await fixture.publishAndServe()
        let victim = try fixture.dir.write("victim.bin", patternBytes(4096, seed: 78))
        let path = fixture.root + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
        await #expect { _ = try await fixture.startAgent() } throws: { error in
            "\(error)".contains(path)
        }
        #expect(fixture.dir.contents("victim.bin") == patternBytes(4096, seed: 78))
    }

    @Test func aLiveAgentsSocketAndALockedRootAreClearErrors() async throws {
        let first = try AgentFixture(), second = try AgentFixture()
        for f in [first, second] {
            try f.put("A", files: ["a.bin": [1]])
            try await f.publishAndServe()
        }
        let agent = try await first.startAgent()
        defer { agent.stop() }
        // Another root, the same socket path: refused, naming the agent that answers there.
        do {
            _ = try await second.startAgent(socketPath: agent.socketPath)
            Issue.record("a second agent took a live agent's socket")
        } catch let error as AgentServiceError {
            guard case .socketInUse(let path, let pid) = error else { Issue.record("\(error)"); return }
            #expect(path == agent.socketPath && pid == getpid())
            #expect("\(error)".contains(agent.socketPath) && "\(error)".contains("process \(getpid())"))
        }
        #expect(FileManager.default.fileExists(atPath: agent.socketPath), "the refused agent left the live socket alone")
        // The same root: its lock is held; the error names the holder.
        do {
            _ = try await first.startAgent(socketPath: first.dir.file("other.sock"))
            Issue.record("a second agent opened a held root")
        } catch let error as AssetPackManagerError {
            guard case .storageRootInUse(_, let pid, _) = error else { Issue.record("\(error)"); return }
            #expect(pid == getpid())
        }
        // A path that is not a socket is left alone.
        let file = try second.dir.write("plain", [1])
        await #expect(throws: AgentServiceError.self) { try await second.startAgent(socketPath: file) }
        #expect(FileManager.default.contents(atPath: file) == Data([1]))
    }

    @Test func anotherUserIsRefused() async throws {
        guard getuid() == 0 else {
            print("skipped: switching to another user needs root (CI runs as root)")
            return
        }
        let setpriv = try #require(["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                   "setpriv (Debian package util-linux) is not installed")
        let fixture = try AgentFixture()
        try fixture.put("A", files: ["a.bin": [1]])
        try await fixture.publishAndServe()
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        func curlAsNobody() async throws -> String {
            let child = try AgentChild.start(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/curl", "-s", "-o", "/dev/null",
                                                         "-w", "%{http_code}", "--unix-socket", agent.socketPath, "http://agent/v1/status"],
                                               output: fixture.dir.file("nobody-\(UUID().uuidString.prefix(6))"))
            #expect(await child.exit(within: 20))
            return child.output
        }
        // Mode 0600: the kernel refuses the connection (curl reports status 000).
        #expect(try await curlAsNobody() == "000")
        // With the file opened up, SO_PEERCRED still tells the agent who is calling.
        chmod(fixture.root, 0o755)
        chmod(agent.socketPath, 0o666)
        #expect(try await curlAsNobody() == "403")
        #expect(try await AgentConnection(root: fixture.root).agentStatus().requests.isEmpty, "its own user is served")
        await agent.stopped()
    }

    @Test func stopReturnsWithinTwoSecondsMidDownloadAndTheNextStartResumes() async throws {
        let fixture = try AgentFixture()
        let content = patternBytes(8 << 20, seed: 4)
        try fixture.put("Big", files: ["big.bin": content])
        try await fixture.publishAndServe(bytesPerSecond: 2 << 20)
        let connection = try AgentConnection(root: fixture.root)
        do {
            let agent = try await fixture.startAgent()
            // A client waiting on the download, and one on the stream.
            let waiting = Task { try await connection.ensureLocalAvailability(ofAssetPackWithID: "Big") }
            let updates = connection.statusUpdates
            try await waitUntil("the download to be under way", timeout: .seconds(30)) { fixture.stagedBytes() > 512 << 10 }
            let started = ContinuousClock.now
            await agent.stopped()
            let took = ContinuousClock.now - started
            print("agent stop mid-download took \(took)")
            #expect(took < .seconds(2))
            do {
                try await waiting.value
                Issue.record("the waiting ensure succeeded although the agent stopped")
            } catch AgentError.remote(let status, let kind, _) {
                #expect(status == 503 && kind == "stopping")
            } catch AgentError.unreachable {
                // Also fine: the connection closed before the answer went out.
            }
            for await _ in updates {}  // the stream ends with the agent
        }
        #expect(fixture.installedFile("Big", "big.bin") == nil)
        // The root is let go once the stopped downloads have wound down.
        try await waitUntil("the root's lock to be released", timeout: .seconds(20)) {
            let fd = open(fixture.root + "/lock", O_RDWR | O_CLOEXEC)
            defer { close(fd) }
            return flock(fd, LOCK_EX | LOCK_NB) == 0
        }
        // The next start takes the request up on its own.
        try fixture.serve(bytesPerSecond: 0)
        let again = try await fixture.startAgent()
        defer { again.stop() }
        try await waitUntil("the resumed download to install the pack", timeout: .seconds(60)) { fixture.installedFile("Big", "big.bin") == Data(content) }
        try await waitUntil("the queue to empty", timeout: .seconds(30)) { try again.statusReport().requests.isEmpty }
        await again.stopped()
    }

    @Test func aRepositoryThatIsDownIsTriedAgainUntilItIsBack() async throws {
        let fixture = try AgentFixture()
        let content = patternBytes(100_000, seed: 8)
        try fixture.put("A", files: ["a.bin": content])
        try await fixture.publishAndServe()
        let port = try #require(fixture.server).port
        fixture.stopServing()
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        // A waiting caller hears of the failure; the request stays queued and is tried again.
        await #expect(throws: AgentError.self) { try await connection.ensureLocalAvailability(ofAssetPackWithID: "A") }
        try await waitUntil("a second failed attempt, with the next one scheduled", timeout: .seconds(30)) {
            guard let r = try agent.statusReport().requests.first else { return false }
            return r.state == "queued" && r.error != nil && r.nextAttempt != nil
        }
        #expect(try await connection.agentStatus().requests.first?.nextAttempt != nil, "status shows the next attempt")
        try fixture.serve(bytesPerSecond: 0, port: port)
        try await waitUntil("the retry to install the pack", timeout: .seconds(30)) { fixture.installedFile("A", "a.bin") == Data(content) }
        try await waitUntil("the queue to empty", timeout: .seconds(30)) { try agent.statusReport().requests.isEmpty }
        await agent.stopped()
    }

    @Test func aFullDiskFailsTheRequestClearlyAndTheAgentGoesOn() async throws {
        guard geteuid() == 0 else {
            print("skipped: mounting a small tmpfs for the root needs root")
            return
        }
        let fixture = try AgentFixture()
        try fixture.put("Small", files: ["small.bin": patternBytes(100_000, seed: 61)])
        try fixture.put("Huge", files: ["huge.bin": patternBytes(3_000_000, seed: 62)])
        try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
        guard mount("tmpfs", fixture.root, "tmpfs", 0, "size=2m,mode=0755") == 0 else {
            Issue.record("cannot mount a tmpfs at \(fixture.root): \(String(cString: strerror(errno)))")
            return
        }
        defer { if umount2(fixture.root, 0) != 0 { umount2(fixture.root, Int32(MNT_DETACH)) } }
        try await fixture.publishAndServe()
        let agent = try await fixture.startAgent()
        defer { agent.stop() }
        let connection = try AgentConnection(root: fixture.root)
        do {
            try await connection.ensureLocalAvailability(ofAssetPackWithID: "Huge")
            Issue.record("a 3 MB pack installed on a 2 MiB disk")
        } catch AgentError.remote(let status, let kind, let message) {
            #expect(status == 507 && kind == "storage", "\(status) \(kind): \(message)")
            #expect(message.lowercased().contains("no space"), "\(message)")
        }
        let record = try #require(try agent.statusReport().requests.first { $0.id == "Huge" })
        #expect(record.state == "failed" && record.error?.lowercased().contains("no space") == true, "\(record)")
        // The space the failed download took is free again: the agent goes on.
        try await connection.ensureLocalAvailability(ofAssetPackWithID: "Small")
        #expect(fixture.installedFile("Small", "small.bin") == Data(patternBytes(100_000, seed: 61)))
        await agent.stopped()
    }
}
