import AssetPackAgent
import AssetPackFormat
import AssetPackPublishing
import AssetPackServer
import AssetPackTransport
import AssetPacks
import Foundation
import TestRepositories
import TestSupport
import Testing

/// A test repository (`TestRepository`) served on loopback — optionally slowed down, and
/// restartable on the same port — and a storage root that remembers it, as `assetpack install`
/// leaves one.
final class AgentFixture: @unchecked Sendable {
    let repository: TestRepository
    private(set) var server: TestServer?

    var dir: TemporaryDirectory { repository.dir }
    var key: SigningKey { repository.key }
    var root: String { dir.file("root") }
    var socketPath: String { AgentConnection.socketPath(forRoot: root) }

    init() throws {
        // Short: Unix socket paths hold at most 107 bytes.
        repository = try TestRepository("ag")
    }

    /// Adds pack `id` holding `files`, on demand unless another policy is given.
    func put(_ id: String, policy: DownloadPolicy = .onDemand, language: String? = nil, userInfo: Any? = nil, files: [String: [UInt8]]) throws {
        try repository.put(id, policy: policy, language: language, userInfo: userInfo, files: files)
    }

    /// Publishes the packs, serves the repository (at `bytesPerSecond` for pack files if given)
    /// and initialises the root with its URL and key.
    /// Off Swift's pool (packaging is CPU-bound, and agents in this process need the pool).
    func publishAndServe(bytesPerSecond: UInt64 = 0) async throws {
        try await offPool {
            try self.repository.publish()
            try self.serve(bytesPerSecond: bytesPerSecond)
            try RootSettings(repositoryURLs: [self.server!.url], publicKey: self.key.publicKey.text).save(root: self.root)
        }
    }

    /// Publishes again into the served repository (a pack put again gets a new version).
    func republish() async throws {
        _ = try await offPool { try self.repository.publish() }
    }

    /// Leaves pack `id` out of the next publish.
    func drop(_ id: String) { repository.drop(id) }

    /// (Re)starts the server — on `port`, or a fresh one — and points the root at it.
    func serve(bytesPerSecond: UInt64, port: UInt16 = 0) throws {
        server?.stop()
        var faults = FaultConfiguration()
        faults.bandwidthBytesPerSecond = bytesPerSecond
        server = try repository.serve(faults: faults) { $0.port = port }
        if FileManager.default.fileExists(atPath: root) {
            var settings = try RootSettings.load(root: root)
            settings.repositoryURLs = [server!.url]
            try settings.save(root: root)
        }
    }

    deinit { server?.stop() }

    /// Stops serving (the repository is down).
    func stopServing() { server?.stop() }

    /// An agent on the root, with quick retries.
    func startAgent(socketPath: String? = nil, maxParallel: Int = 2, shouldDownload: ShouldDownloadHook? = nil,
                    updateInterval: Duration? = nil, maxBackgroundRate: UInt64? = nil,
                    downloaderExtension: (any ManagedDownloaderExtension)? = nil) async throws -> AgentService {
        let root = self.root
        return try await offPool { try AgentService(configuration: AgentConfiguration(root: root, socketPath: socketPath, maxParallel: maxParallel, acceptsInheritedSocket: false,
                                                           retryBackoff: RetryBackoff(initialDelay: .milliseconds(50), maxDelay: .milliseconds(400)),
                                                           shouldDownload: shouldDownload, updateInterval: updateInterval,
                                                           maxBackgroundRate: maxBackgroundRate) {
            $0.retryPolicy = RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(5), maxDelay: .milliseconds(50))
            $0.downloaderExtension = downloaderExtension
        }) }
    }

    /// The installed copy of `name` in pack `id`, if the pack is installed.
    func installedFile(_ id: String, _ name: String) -> Data? {
        let packs = root + "/packs/" + id
        for version in (try? FileManager.default.contentsOfDirectory(atPath: packs)) ?? [] {
            if let data = FileManager.default.contents(atPath: "\(packs)/\(version)/\(name)") { return data }
        }
        return nil
    }

    /// Bytes assembled so far in the root's staging folders.
    func stagedBytes() -> UInt64 {
        let staging = root + "/staging"
        var total: UInt64 = 0
        for name in FileManager.default.subpaths(atPath: staging) ?? [] {
            var st = stat()
            if lstat(staging + "/" + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, name.contains("/files/") {
                total += min(UInt64(st.st_size), UInt64(st.st_blocks) * 512)
            }
        }
        return total
    }
}

/// A child process with its output (standard output and error together) in a file, waited for
/// without holding a thread of the shared pool.
struct AgentChild {
    let process: Process
    let outputPath: String

    static func start(_ executable: String, _ arguments: [String], output: String, environment: [String: String]? = nil) throws -> AgentChild {
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let environment { p.environment = environment }
        p.standardInput = FileHandle.nullDevice
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        return AgentChild(process: p, outputPath: output)
    }

    var output: String { String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self) }

    /// Waits for the process to end, on a thread of its own (not the shared pool, which a busy
    /// suite can keep from waking a waiter for a second or more), watching the kernel's view of
    /// it (`/proc/PID/stat`: gone, or a zombie) rather than `Process`, which can learn of an exit
    /// late (see `ChildExit`). It returns close to the moment the process ended, so a caller may
    /// time the exit.
    func exit(within seconds: TimeInterval) async -> Bool {
        let pid = process.processIdentifier
        return (try? await offPool {
            try blockingWaitUntil("process \(pid) to exit", timeout: .milliseconds(Int64(seconds * 1000)), interval: .milliseconds(2)) {
                Self.hasEnded(pid)
            }
        }) != nil
    }

    /// Whether the process `pid` has ended: it is a zombie, or already reaped.
    static func hasEnded(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // "PID (COMMAND) STATE …": the state follows the last ")".
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// How the process ended (waiting up to 10 s for whoever reaps it to say); nil if it has not.
    func exitStatus() async -> ChildExit.Status? { try? await ChildExit.wait(for: process, timeout: .seconds(10)) }

    /// The built `assetpack` executable, if there is one.
    static let assetpack: String? = try? Assetpack.executable()
}

/// Collects the pack IDs of a status stream's events as they come, for checks that must not
/// wait on the stream itself.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [(event: String, id: String)] = []
    private var ended = false
    private var task: Task<Void, Never>?

    init(_ updates: AsyncStream<DownloadStatusUpdate>) {
        task = Task { [weak self] in
            for await update in updates { self?.append(AgentEvent(update).event, update.assetPack.id) }
            self?.lock.withLock { self?.ended = true }
        }
    }

    /// Whether the stream has ended.
    var isFinished: Bool { lock.withLock { ended } }
    /// Every event's name, in order.
    var events: [String] { lock.withLock { log.map(\.event) } }

    deinit { task?.cancel() }

    private func append(_ event: String, _ id: String) { lock.withLock { log.append((event, id)) } }
    func ids(_ event: String) -> [String] { lock.withLock { log.filter { $0.event == event }.map(\.id) } }
    var began: [String] { ids("began") }
    var paused: [String] { ids("paused") }
    var finished: [String] { ids("finished") }
}
