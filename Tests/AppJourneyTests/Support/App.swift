@testable import AssetPacks
import AssetPackServer
import AssetPackTransport
import Foundation
import TestRepositories
import TestSupport
import Testing

/// Which way a journey drives the storage root: an app linking `AssetPacks`, or a person (or a
/// script) running the `assetpack` command. Every scenario runs both ways.
enum Client: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case library, cli
    var testDescription: String { rawValue }
}

/// What one call of the app (a library call, or one `assetpack` command) came to.
struct Outcome: Sendable {
    /// The error's text (the thrown error's description, or the command's standard error); nil
    /// when the call succeeded.
    var error: String?
    /// The command's exit status (0 for a library call that succeeded, 1 for one that threw).
    var status: Int32
    /// Pack bytes the call fetched from the network.
    var fetchedBytes: UInt64
    /// Progress as reported while the call ran: (pack, completed, total) in order.
    var progress: [(id: String, completed: Int64, total: Int64)]
    /// Terminal events in order: "finished ID" or "failed ID".
    var events: [String]

    var succeeded: Bool { error == nil && status == 0 }
}

/// An app on one storage root, driven through `client`: the library keeps one manager for the
/// app's life (until `quit`), as an app does; the CLI runs one command per call. Quick retries
/// keep the unhappy paths short; `languages` are the user's (the CLI gets them as `LANGUAGE`,
/// as a Linux user's session sets it).
final class App: @unchecked Sendable {
    let client: Client
    let repo: TestRepository
    let root: String
    var urls: [String]
    var languages = ["en"]
    /// Generous by default (a loaded machine must not fail a moving download); the slow-network
    /// journey sets its own.
    var stallTimeout: Duration = .seconds(15)
    var fetchDeadline: Duration = .seconds(20)
    private var current: AssetPackManager?

    init(_ client: Client, repo: TestRepository, root: String? = nil, urls: [String]) {
        self.client = client
        self.repo = repo
        self.root = root ?? repo.dir.file("root-\(client.rawValue)")
        self.urls = urls
    }

    var layout: StorageLayout { StorageLayout(root: root) }

    // MARK: The app's life

    /// The running app's manager (made at the first call: the app's launch).
    func manager() throws -> AssetPackManager {
        if let current { return current }
        var configuration = AssetPackManager.Configuration(repositoryURLs: urls, publicKey: repo.publicKey, storageRoot: root,
                                                           preferredLanguages: languages, retryPolicy: .journey,
                                                           storageLockTimeout: .seconds(10))
        configuration.networkLimits = .init(smallFileDeadline: fetchDeadline, stallTimeout: stallTimeout)
        let made = try AssetPackManager(configuration: configuration)
        current = made
        return made
    }

    /// The app exits (the library's manager is released, and the root with it).
    func quit() { current = nil }

    // MARK: Calls

    /// `ensureLocalAvailability` of these packs (`assetpack ensure`).
    func ensure(_ ids: String..., latest: Bool = false) async -> Outcome {
        switch client {
        case .library:
            return await library { manager in
                var packs = Set<AssetPack>()
                for id in ids { packs.insert(try await manager.catalogPack(withID: id)) }
                if packs.count == 1 { try await manager.ensureLocalAvailability(of: packs.first!, requireLatestVersion: latest) }
                else { try await manager.ensureLocalAvailability(of: packs, requireLatestVersions: latest) }
            }
        case .cli:
            return await command(["ensure"] + ids + (latest ? ["--latest"] : []) + networkArguments)
        }
    }

    /// The install step for `event` (`assetpack install --event`).
    func install(_ event: InstallationEventType = .firstInstallation) async -> Outcome {
        switch client {
        case .library:
            return await library { manager in try await manager.handleInstallationEvent(event).value }
        case .cli:
            let name = event == .firstInstallation ? "first-installation" : "subsequent-update"
            return await command(["install", "--event", name] + networkArguments)
        }
    }

    /// The pack's status names (`localStatus`, `assetpack status ID --json`), or the error's text.
    func status(_ id: String) async -> Result<[String], AppError> {
        switch client {
        case .library:
            do {
                let manager = try manager()
                let status = await manager.localStatus(ofAssetPackWithID: id)
                // Nothing known locally (Apple's does not throw): the catalog says why.
                if status.isEmpty { _ = try await manager.catalogPack(withID: id) }
                return .success(status.names)
            } catch { return .failure(AppError("\(error)")) }
        case .cli:
            let r = await run(["status", id, "--json"] + repositoryArguments)
            guard r.status == 0 else { return .failure(AppError(r.stderr)) }
            let rows = (try? JSONSerialization.jsonObject(with: r.output)) as? [[String: Any]]
            return .success(rows?.first?["status"] as? [String] ?? ["<unreadable: \(r.stdout)>"])
        }
    }

    /// A file of the merged namespace (`contents(at:)`, `assetpack cat`); nil when it cannot be read.
    func read(_ path: String) async -> [UInt8]? {
        switch client {
        case .library:
            return (try? manager().contents(at: FilePath(path))).map { [UInt8]($0) }
        case .cli:
            let r = await run(["cat", path, "--root", root, "--lock-timeout", "10"])
            return r.status == 0 ? [UInt8](r.output) : nil
        }
    }

    // MARK: Plumbing

    /// `--repo`, `--public-key` and `--root`: the CLI's app remembers them, but a journey passes
    /// them every time (as a script would).
    var repositoryArguments: [String] {
        urls.flatMap { ["--repo", $0] } + ["--public-key", repo.publicKey.text, "--root", root, "--lock-timeout", "10"]
    }

    var networkArguments: [String] {
        repositoryArguments + ["--json", "--stall-timeout", "\(stallTimeout.components.seconds)",
                               "--fetch-deadline", "\(fetchDeadline.components.seconds)"]
    }

    /// The environment of a command: the user's languages, as gettext reads them.
    var environment: [String: String] {
        ["LANGUAGE": languages.map { $0.replacingOccurrences(of: "-", with: "_") }.joined(separator: ":"), "LC_ALL": "", "LC_MESSAGES": "", "LANG": ""]
    }

    /// Starts `assetpack ARGUMENTS` with the app's environment and returns at once.
    func start(_ arguments: [String], output: String, error: String) throws -> Process {
        try ChildProcess.start(Assetpack.executable(), arguments, in: repo.dir.path, environment: environment, output: output, error: error)
    }

    func run(_ arguments: [String]) async -> ProcessResult {
        do { return try await Assetpack.run(arguments, in: repo.dir.path, environment: environment, timeout: .seconds(120)) } catch {
            return ProcessResult(status: -1, output: Data(), stderr: "could not run assetpack: \(error)")
        }
    }

    private func command(_ arguments: [String]) async -> Outcome {
        let r = await run(arguments)
        var outcome = Outcome(error: r.status == 0 ? nil : r.stderr, status: r.status, fetchedBytes: 0, progress: [], events: [])
        for line in r.jsonLines {
            switch line["event"] as? String {
            case "downloading":
                outcome.progress.append((line["assetPackID"] as? String ?? "", Int64(line["completed"] as? Int ?? -1), Int64(line["total"] as? Int ?? -1)))
            case "finished", "failed": outcome.events.append("\(line["event"]!) \(line["assetPackID"] as? String ?? "")")
            case "done": outcome.fetchedBytes = UInt64(line["fetchedBytes"] as? Int ?? 0)
            default: break
            }
        }
        return outcome
    }

    private func library(_ body: (AssetPackManager) async throws -> Void) async -> Outcome {
        let manager: AssetPackManager
        do { manager = try self.manager() } catch { return Outcome(error: "\(error)", status: 1, fetchedBytes: 0, progress: [], events: []) }
        let collector = UpdateCollector(manager.statusUpdates)
        let before = await manager.fetchedBytes
        var failure: String?
        do { try await body(manager) } catch { failure = "\(error)" }
        // The stream is fed from the manager's tasks: let the last updates arrive.
        let updates = await collector.stop(afterQuietPeriod: .milliseconds(50))
        var outcome = Outcome(error: failure, status: failure == nil ? 0 : 1, fetchedBytes: await manager.fetchedBytes - before, progress: [], events: [])
        for update in updates {
            switch update {
            case .downloading(let p, let progress): outcome.progress.append((p.id, progress.completedUnitCount, progress.totalUnitCount))
            case .finished(let p): outcome.events.append("finished \(p.id)")
            case .failed(let p, _): outcome.events.append("failed \(p.id)")
            case .began, .paused: break
            }
        }
        return outcome
    }
}

/// An app call's failure, as text.
struct AppError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Gathers status updates from a stream in the background until stopped.
final class UpdateCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var updates: [DownloadStatusUpdate] = []
    private var lastArrival = ContinuousClock.now
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<DownloadStatusUpdate>) {
        task = Task { [self] in
            for await u in stream { lock.withLock { updates.append(u); lastArrival = .now } }
        }
    }

    var snapshot: [DownloadStatusUpdate] { lock.withLock { updates } }

    /// Stops listening once no update has arrived for `quiet` (bounded), and returns what arrived.
    func stop(afterQuietPeriod quiet: Duration) async -> [DownloadStatusUpdate] {
        try? await waitUntil("the status updates settle", timeout: .seconds(5)) { lock.withLock { ContinuousClock.now - lastArrival >= quiet } }
        task?.cancel()
        await task?.value
        return lock.withLock { updates }
    }
}

extension RetryPolicy {
    /// Enough attempts to show a retry, with pauses of a few milliseconds.
    static let journey = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(5), maxDelay: .milliseconds(20))
}

extension TestRepository {
    /// A server on `port` (a restart of one that was stopped: the app's URL is the same).
    func serve(onPort port: UInt16, _ configure: (inout FaultConfiguration) -> Void = { _ in }) throws -> TestServer {
        var faults = FaultConfiguration()
        faults.seed = 7
        configure(&faults)
        return try serve(faults: faults) { $0.port = port }
    }
}

/// A repository URL nothing answers on: the app is offline. A socket holds the port, bound and
/// not listening, so that a connection is refused and no server another test starts meanwhile is
/// given the port; `release()` lets it go just before `serve(onPort:)` takes it back.
final class OfflineAddress {
    let url: String
    let port: UInt16
    private var socket: Int32

    init() throws {
        // Close-on-exec: a process another test starts meanwhile must not keep the port bound.
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { let e = errno; close(fd); throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO) }
        socket = fd
        port = UInt16(bigEndian: address.sin_port)
        url = "http://127.0.0.1:\(port)/"
    }

    func release() {
        if socket >= 0 { close(socket) }
        socket = -1
    }

    deinit { release() }
}

/// Bytes of every regular file below `path`, by relative path (the tree an install left).
func tree(_ path: String) -> [String: [UInt8]] {
    var out: [String: [UInt8]] = [:]
    for rel in FileManager.default.subpaths(atPath: path) ?? [] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path + "/" + rel, isDirectory: &isDirectory), !isDirectory.boolValue { out[rel] = readFile(path + "/" + rel) }
    }
    return out
}

/// Set once, read from any task or thread (a background session's end, for a wait to stop on).
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    func raise() { lock.withLock { set = true } }
    var isRaised: Bool { lock.withLock { set } }
}
