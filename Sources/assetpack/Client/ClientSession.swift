import AssetPackCLI
import AssetPackFormat
import AssetPacks
import Foundation

/// The options every client command shares, and the manager they configure.
enum ClientOptions {
    static let root = OptionSpec.option("--root", value: "DIR", help: "The storage root (installed packs and state).")
    static let repo = OptionSpec.option("--repo", value: "URL", help: "Repository base URL (where catalog.json is); repeat for mirrors. Remembered by the root.", repeatable: true)
    static let key = OptionSpec.option("--public-key", value: "KEY", help: "The publisher's public key, or its .pub file. Remembered by the root.")
    static let ca = OptionSpec.option("--ca", value: "FILE", help: "A PEM CA file to trust (private servers). Remembered by the root.")
    static let allow = OptionSpec.option("--allow-domain", value: "HOST", help: "Allow downloads only from these hosts (*.example.com for subdomains).", repeatable: true)
    static let json = OptionSpec.flag("--json", help: "Print JSON instead of text: one line per progress update, then {\"event\": \"done\", \"fetchedBytes\": N}.")
    static let lockTimeout = OptionSpec.option("--lock-timeout", value: "SECONDS", help: "How long to wait while another process uses the root (default 30).")
    static let parts = OptionSpec.option("--parts", value: "N", help: "Assemble each pack in N parts, each over a connection of its own (default: 4 for packs of 32 MiB or more, else 1).")
    static let storageBudget = OptionSpec.option("--storage-budget", value: "SIZE", help: "Evict unused on-demand packs (lowest preservation priority, then least recently used) to keep installed packs within SIZE uncompressed bytes (K/M/G = KiB/MiB/GiB); 'none' for no budget. Remembered by the root.")
    static let all: [OptionSpec] = [root, repo, key, ca, allow, json, lockTimeout, parts]
    /// The options of the commands that download.
    static let downloading: [OptionSpec] = all + [storageBudget]

    /// `--storage-budget`: nil when absent, `.some(nil)` for `none`.
    static func storageBudget(_ args: ParsedArguments) throws(CLIError) -> UInt64?? {
        guard let text = args.value("--storage-budget") else { return nil }
        if text.lowercased() == "none" { return .some(nil) }
        guard let bytes = parseByteSize(text) else {
            throw .usage("--storage-budget takes a size in bytes (K, M, G for KiB, MiB, GiB) or 'none', got '\(text)'")
        }
        return .some(bytes)
    }

    /// `--parts` as the manager's setting (the default when absent).
    static func parallelDownloads(_ args: ParsedArguments) throws(CLIError) -> AssetPackManager.ParallelDownloads {
        guard let text = args.value("--parts") else { return .standard }
        guard let n = Int(text), (1...16).contains(n) else { throw .usage("--parts takes a number from 1 to 16, got '\(text)'") }
        return .init(parts: n, minimumInstallSize: 0)
    }

    /// `--lock-timeout` as a Duration (30 s when absent).
    static func storageLockTimeout(_ args: ParsedArguments) throws(CLIError) -> Duration {
        guard let text = args.value("--lock-timeout") else { return .seconds(30) }
        guard let seconds = Double(text), seconds >= 0, seconds <= 86_400 else {
            throw .usage("--lock-timeout takes seconds from 0 to 86400, got '\(text)'")
        }
        return .milliseconds(Int64(seconds * 1000))
    }
}

/// Builds a manager for a client command from its options and the root's remembered settings;
/// options given now are remembered for next time.
func makeManager(_ args: ParsedArguments) throws -> AssetPackManager {
    let root = try args.required("--root")
    var settings = try RootSettings.load(root: root)
    if !args.all("--repo").isEmpty { settings.repositoryURLs = args.all("--repo") }
    if let key = args.value("--public-key") {
        do { settings.publicKey = try Ed25519PublicKey(argument: key).text } catch { throw CLIError.failure("--public-key: \(error)") }
    }
    if let ca = args.value("--ca") { settings.caFile = URL(fileURLWithPath: ca).standardizedFileURL.path }
    if let budget = try ClientOptions.storageBudget(args) { settings.storageBudget = budget }
    guard !settings.repositoryURLs.isEmpty else { throw CLIError.usage("no repository: pass --repo URL (the root remembers it)") }
    guard let keyText = settings.publicKey else { throw CLIError.usage("no public key: pass --public-key KEY (the root remembers it)") }
    let key: Ed25519PublicKey
    do { key = try Ed25519PublicKey(text: keyText) } catch { throw CLIError.failure("the saved public key is invalid: \(error)") }
    // The manager first: it locks the root, so no other process sees the settings change.
    var configuration = AssetPackManager.Configuration(repositoryURLs: settings.repositoryURLs, publicKey: key, storageRoot: root,
                                                       allowedDomains: args.all("--allow-domain"), caFile: settings.caFile,
                                                       storageLockTimeout: try ClientOptions.storageLockTimeout(args))
    configuration.parallelDownloads = try ClientOptions.parallelDownloads(args)
    configuration.storageBudget = settings.storageBudget
    let manager = try AssetPackManager(configuration: configuration)
    try settings.save(root: root)
    return manager
}

/// Runs async work from a synchronous command and waits for it.
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

private final class ResultBox<T>: @unchecked Sendable { var result: Result<T, any Error>? }

/// Prints status updates while a command runs: a progress bar on a terminal, JSON lines otherwise.
final class ProgressPrinter: @unchecked Sendable {
    private let json: Bool
    private let terminal = isatty(STDERR_FILENO) == 1
    private var task: Task<Void, Never>?

    init(manager: AssetPackManager, json: Bool) {
        self.json = json
        let stream = manager.statusUpdates
        task = Task { [self] in for await update in stream { show(update) } }
    }

    /// Stops listening once every update sent so far is shown (a cancelled stream still hands
    /// out what it buffered), so that the last lines are not lost when the command exits.
    func stop() {
        guard let task else { return }
        self.task = nil
        task.cancel()
        let done = DispatchSemaphore(value: 0)
        Task { await task.value; done.signal() }
        done.wait()
    }

    /// The last JSON line of a command that downloads: what it fetched from the network.
    func finish(_ manager: AssetPackManager, _ fields: [String: any Sendable] = [:]) {
        stop()
        guard json || !terminal else { return }
        var line: [String: Any] = fields
        line["event"] = "done"
        line["fetchedBytes"] = (try? runBlocking { await manager.fetchedBytes }) ?? 0
        let data = (try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])) ?? Data()
        print(String(decoding: data, as: UTF8.self))
        fflush(nil)
    }

    private func show(_ update: DownloadStatusUpdate) {
        if json || !terminal {
            print(jsonLine(update))
            fflush(nil)
            return
        }
        switch update {
        case .began(let p): printError("downloading \(p.id) (\(byteCount(p.downloadSize)))")
        case .downloading(let p, let progress):
            let width = 30, filled = Int(progress.fractionCompleted * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
            FileHandle.standardError.write(Data("\r  \(p.id) [\(bar)] \(Int(progress.fractionCompleted * 100))% ".utf8))
        case .finished(let p): printError("\r  \(p.id) installed (version \(p.version))" + String(repeating: " ", count: 30))
        case .failed(let p, let error): printError("\r  \(p.id) failed: \(error)")
        case .paused(let p): printError("\r  \(p.id) paused")
        }
    }

    private func jsonLine(_ update: DownloadStatusUpdate) -> String {
        var fields: [String: Any] = ["assetPackID": update.assetPack.id, "version": update.assetPack.version]
        switch update {
        case .began: fields["event"] = "began"
        case .paused: fields["event"] = "paused"
        case .downloading(_, let p):
            fields["event"] = "downloading"; fields["completed"] = p.completedUnitCount; fields["total"] = p.totalUnitCount
        case .finished: fields["event"] = "finished"
        case .failed(_, let error): fields["event"] = "failed"; fields["error"] = "\(error)"
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
