import ArgumentParsing
import AssetPackAgent
import AssetPackFormat
import AssetPacks
import Foundation

/// `assetpack agent`: the agent for one storage root, in the foreground until SIGTERM or SIGINT.
struct AgentCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "agent",
            abstract: "Run the agent for a storage root: it owns the root's downloads and serves the local API (docs/AGENT.md).",
            discussion: """
            Runs in the foreground (for systemd) until SIGTERM or SIGINT, then stops within 2 s; downloads \
            under way resume at the next start, as does every request accepted before a crash. The root must \
            have been initialised (its repository and public key remembered) by a client command, or be \
            given --repo and --public-key here (remembered, as the client commands do). \
            A listening socket passed by systemd (LISTEN_FDS) is used instead of --socket.
            """)
    }

    @Option("--root", value: "DIR", help: "The storage root (installed packs and state).")
    var root: String
    var repository = RepositoryOptions()
    @Option("--socket", value: "PATH", help: "The agent's Unix socket (default ROOT/agent.sock).")
    var socket: String?
    @Option("--max-parallel", value: "N", help: "Packs downloaded at once, 1 to 64 (default 2).", default: 2)
    var maxParallel: Int
    @Option("--max-rate", value: "RATE", help: "Bytes per second that background downloads (prefetch, detached, updates) may take together, e.g. 8M; downloads a caller waits for are not limited.")
    var maxRate: ByteSize?
    @Option("--update-interval", value: "DURATION", help: "Check the catalog and update installed packs this often, e.g. 30m, 6h (default 6h; 0 = never).", default: .seconds(6 * 3600))
    var updateInterval: Duration
    @Option("--should-download", value: "CMD", help: "Run CMD (with /bin/sh -c, the pack's JSON on stdin) before each download the agent starts on its own; exit 0 = go, anything else or no answer in 10 s = skip.")
    var shouldDownload: String?
    @Flag("--share", help: "Serve the verified chunks of the installed packs the catalog lists to LAN peers over HTTP (GET /chunks/<sha256>), for clients given --peer.")
    var share: Bool
    @Option("--share-port", value: "N", help: "The --share server's TCP port, 0 for a free one (default 7460).", default: Int(ShareConfiguration.defaultPort))
    var sharePort: Int
    @Option("--share-bind", value: "ADDRESS", help: "The --share server's address (default 127.0.0.1: this machine only; a LAN address or 0.0.0.0 to share with the network).", default: "127.0.0.1")
    var shareBind: String
    @Option("--share-rate", value: "N", help: "Chunk requests per second one client address may make, 1 to 100000 (default 2000); more get 429.", default: 2000)
    var shareRate: Int
    @Option("--share-connections", value: "N", help: "Connections the --share server keeps open at once, 4 to 4096 (default 64); one client address may hold a quarter of them.", default: 64)
    var shareConnections: Int
    @Flag("--flush", help: "Wait for each pack's files to reach the disk before committing it (default: leave them to the kernel's writeback; a crash of the system before it is found at the next start).")
    var flush: Bool

    init() {}

    func run() throws -> Int32 {
        guard (1...64).contains(maxParallel) else { throw CLIError.usage("--max-parallel takes a number from 1 to 64, got \(maxParallel)") }
        guard updateInterval >= .zero else { throw CLIError.usage("--update-interval takes a duration of 0 (never) or more, got \(updateInterval)") }
        if let maxRate, maxRate.bytes == 0 { throw CLIError.usage("--max-rate takes a rate above 0 bytes per second") }
        guard (0...65535).contains(sharePort) else { throw CLIError.usage("--share-port takes a port from 0 to 65535, got \(sharePort)") }
        guard (1...100_000).contains(shareRate) else { throw CLIError.usage("--share-rate takes a number from 1 to 100000, got \(shareRate)") }
        guard (4...4096).contains(shareConnections) else { throw CLIError.usage("--share-connections takes a number from 4 to 4096, got \(shareConnections)") }
        if !repository.isEmpty {
            // Remembered by the root before the agent takes it (the agent fails at start if
            // someone else holds the root meanwhile).
            let settings: RootSettings
            do { settings = try RootSettings.load(root: root) } catch { throw CLIError.failure("\(error)") }
            let updated = try repository.applied(to: settings)
            do { try updated.save(root: root) } catch { throw CLIError.failure("\(error)") }
        }
        // Signals are taken on a queue, not by a handler: the stop runs in ordinary code.
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        // A long-lived process whose threads mostly wait: few malloc arenas (docs/BENCHMARKS.md, idle RSS).
        IdleMemory.manageThisProcess()
        let service: AgentService
        do {
            service = try AgentService(configuration: AgentConfiguration(
                root: root, socketPath: socket, maxParallel: maxParallel, shouldDownload: shouldDownload.map { ShouldDownloadHook(command: $0) },
                updateInterval: updateInterval == .zero ? nil : updateInterval, maxBackgroundRate: maxRate?.bytes,
                share: share ? ShareConfiguration(bindAddress: shareBind, port: UInt16(sharePort), requestsPerSecond: shareRate,
                                                  maxConnections: shareConnections) : nil,
                configureManager: { [flush] in $0.flushesBeforeCommit = flush }))
        } catch {
            throw CLIError.failure("\(error)")
        }
        let stops = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                printError("agent: signal \(number), stopping")
                let started = ContinuousClock.now
                service.stop()
                printError("agent: stopped serving in \(ContinuousClock.now - started)")
            }
            source.resume()
            return source
        }
        printError("agent: serving \(service.configuration.root) on \(service.socketPath) (pid \(getpid()))")
        if let port = service.sharePort { printError("agent: sharing chunks on http://\(shareBind.contains(":") ? "[\(shareBind)]" : shareBind):\(port)/chunks/") }
        // What starting took (parsing, opening, the first catalog read) is not needed again soon.
        IdleMemory.release()
        service.waitUntilStopped()
        stops.forEach { $0.cancel() }
        printError("agent: stopped")
        return 0
    }
}
