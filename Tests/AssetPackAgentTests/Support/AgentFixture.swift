import AssetPackAgent
import AssetPackPublishing
import AssetPackServer
import AssetPackTransport
import AssetPacks
import Foundation
import LoopbackServers
import Testing

/// A repository for the agent's tests, published with its own key and served on loopback by
/// `RepositoryServer` (optionally slowed down), and a storage root that remembers it, as
/// `assetpack install` leaves one. The agent's own tests need only this much of a repository;
/// the client's richer `TestRepository` lives in AssetPacksTests.
final class AgentFixture: @unchecked Sendable {
    let dir: TemporaryDirectory
    let key: SigningKey
    private var manifests: [String: String] = [:]
    private(set) var server: RepositoryServer?

    var repository: String { dir.file("repo") }
    var root: String { dir.file("root") }
    var socketPath: String { AgentConnection.socketPath(forRoot: root) }

    init() throws {
        // Short: Unix socket paths hold at most 107 bytes.
        dir = try TemporaryDirectory("ag")
        key = try SigningKey.generate()
    }

    /// Adds pack `id` holding `files`, on demand unless a policy is given (manifest JSON, e.g.
    /// `["essential": ["installationEventTypes": ["firstInstallation"]]]`).
    func put(_ id: String, policy: [String: Any] = ["onDemand": [String: Any]()], files: [String: [UInt8]]) throws {
        for (name, bytes) in files { try dir.write("content/\(id)/\(name)", bytes) }
        let manifest: [String: Any] = ["assetPackID": id, "downloadPolicy": policy,
                                       "fileSelectors": files.keys.sorted().map { ["file": $0] },
                                       "platforms": ["iOS"], "sourceRoot": "content/\(id)"]
        manifests[id] = (try dir.write("\(id).json", Array(JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]))))
    }

    /// Publishes the packs, serves the repository (at `bytesPerSecond` for pack files if given)
    /// and initialises the root with its URL and key.
    /// Off Swift's pool (packaging is CPU-bound, and agents in this process need the pool).
    func publishAndServe(bytesPerSecond: UInt64 = 0) async throws {
        try await offPool { try self.publishAndServeNow(bytesPerSecond: bytesPerSecond) }
    }

    private func publishAndServeNow(bytesPerSecond: UInt64) throws {
        var options = PublishOptions(repository: repository)
        options.baseDirectory = dir.path
        options.writer.threads = 2
        _ = try Publisher(key: key, options: options).publish(manifests: manifests.keys.sorted().map { manifests[$0]! })
        try serve(bytesPerSecond: bytesPerSecond)
        try RootSettings(repositoryURLs: [server!.url], publicKey: key.publicKey.text).save(root: root)
    }

    /// Publishes again into the served repository (a pack put again gets a new version).
    func republish() async throws {
        try await offPool { try self.republishNow() }
    }

    private func republishNow() throws {
        var options = PublishOptions(repository: repository)
        options.baseDirectory = dir.path
        options.writer.threads = 2
        _ = try Publisher(key: key, options: options).publish(manifests: manifests.keys.sorted().map { manifests[$0]! })
    }

    /// Leaves pack `id` out of the next publish.
    func drop(_ id: String) { manifests[id] = nil }

    /// (Re)starts the server — on `port`, or a fresh one — and points the root at it.
    func serve(bytesPerSecond: UInt64, port: UInt16 = 0) throws {
        server?.stop()
        var configuration = ServerConfiguration()
        configuration.port = port
        configuration.faults.bandwidthBytesPerSecond = bytesPerSecond
        configuration.accessLog = .none
        server = try RepositoryServer(directory: repository, configuration: configuration)
        if FileManager.default.fileExists(atPath: root) {
            var settings = try RootSettings.load(root: root)
            settings.repositoryURLs = [server!.url]
            try settings.save(root: root)
        }
    }

    deinit {
        server?.stop()
        // A download that was winding down may still create a folder while TemporaryDirectory
        // removes the tree; try again briefly so that nothing is left in TMPDIR.
        for _ in 0..<5 where FileManager.default.fileExists(atPath: dir.path) {
            if (try? FileManager.default.removeItem(atPath: dir.path)) != nil { break }
            usleep(20_000)
        }
    }

    /// Stops serving (the repository is down).
    func stopServing() { server?.stop() }

    /// An agent on the root, with quick retries.
    func startAgent(socketPath: String? = nil, maxParallel: Int = 2, shouldDownload: ShouldDownloadHook? = nil,
                    updateInterval: Duration? = nil, maxBackgroundRate: UInt64? = nil) async throws -> AgentService {
        let root = self.root
        return try await offPool { try AgentService(configuration: AgentConfiguration(root: root, socketPath: socketPath, maxParallel: maxParallel, acceptsInheritedSocket: false,
                                                           retryBackoff: RetryBackoff(initialDelay: .milliseconds(50), maxDelay: .milliseconds(400)),
                                                           shouldDownload: shouldDownload, updateInterval: updateInterval,
                                                           maxBackgroundRate: maxBackgroundRate) {
            $0.retryPolicy = RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(5), maxDelay: .milliseconds(50))
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

/// Runs blocking work on a thread of its own and waits for it without holding one of Swift's
/// pool threads.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// Waits until `condition` holds, checking every 10 ms; records an issue (and returns false)
/// after `seconds`.
@discardableResult
func eventually(_ what: String, within seconds: TimeInterval = 30, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("timed out after \(seconds) s waiting for \(what)")
    return false
}

/// A child process with its output in a file.
struct ChildProcess {
    let process: Process
    let outputPath: String

    static func start(_ executable: String, _ arguments: [String], output: String, environment: [String: String]? = nil) throws -> ChildProcess {
        FileManager.default.createFile(atPath: output, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let environment { p.environment = environment }
        p.standardInput = FileHandle.nullDevice
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        return ChildProcess(process: p, outputPath: output)
    }

    var output: String { String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self) }

    /// Waits for the process to end without holding a thread of the shared pool.
    func exit(within seconds: TimeInterval) async -> Bool {
        await eventually("process \(process.processIdentifier) to exit", within: seconds) { !process.isRunning }
    }

    /// The `assetpack` executable SwiftPM builds beside the test bundle.
    static let assetpack: String? = {
        let candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("assetpack").path,
                          Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("assetpack").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()
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
