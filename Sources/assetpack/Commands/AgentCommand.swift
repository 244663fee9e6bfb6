import AssetPackAgent
import AssetPackCLI
import AssetPackFormat
import AssetPackPublishing
import AssetPacks
import Foundation

// `assetpack agent` and `assetpack cancel`: the agent for one storage root, and the command that
// pauses one of its downloads. Self-contained (only `printError`, `runBlocking` and the root
// option come from elsewhere), so that it moves to another argument parser as a whole.

private let socketOption = OptionSpec.option("--socket", value: "PATH", help: "The agent's Unix socket (default ROOT/agent.sock).")

let agentCommand = CommandSpec(
    name: "agent",
    abstract: "Run the agent for a storage root: it owns the root's downloads and serves the local API (docs/AGENT.md).",
    discussion: """
    Runs in the foreground (for systemd) until SIGTERM or SIGINT, then stops within 2 s; downloads \
    under way resume at the next start, as does every request accepted before a crash. The root must \
    have been initialised (its repository and public key remembered) by a client command, or be \
    given --repo and --public-key here (remembered, as the client commands do). \
    A listening socket passed by systemd (LISTEN_FDS) is used instead of --socket.
    """,
    options: [ClientOptions.root, ClientOptions.repo, ClientOptions.key, ClientOptions.ca, socketOption,
              .option("--max-parallel", value: "N", help: "Packs downloaded at once (default 2)."),
              .option("--max-rate", value: "RATE", help: "Bytes per second background downloads (prefetch, detached, updates) may take together, e.g. 8m (K/M/G = KiB/MiB/GiB); downloads a caller waits for are not limited."),
              .option("--update-interval", value: "DURATION", help: "Check the catalog and update installed packs this often, e.g. 30m, 6h (default 6h; 0 = never)."),
              .option("--should-download", value: "CMD", help: "Run CMD (with /bin/sh -c, the pack's JSON on stdin) before each download the agent starts on its own; exit 0 = go, anything else or no answer in 10 s = skip.")],
    positionalCount: 0...0
) { args in
    let root = try args.required("--root")
    var maxParallel = 2
    if let text = args.value("--max-parallel") {
        guard let n = Int(text), (1...64).contains(n) else { throw CLIError.usage("--max-parallel takes a number from 1 to 64, got '\(text)'") }
        maxParallel = n
    }
    var updateInterval: Duration? = .seconds(6 * 3600)
    if let text = args.value("--update-interval") {
        guard let seconds = text == "0" ? 0 : Quantities.duration(text), seconds >= 0 else {
            throw CLIError.usage("--update-interval takes a duration such as 90s, 15m, 6h or 1d, or 0 for never; got '\(text)'")
        }
        updateInterval = seconds == 0 ? nil : .milliseconds(Int64(seconds * 1000))
    }
    var maxRate: UInt64?
    if let text = args.value("--max-rate") {
        guard let bytes = parseByteSize(text), bytes > 0 else { throw CLIError.usage("--max-rate takes bytes per second (K, M, G for KiB, MiB, GiB), got '\(text)'") }
        maxRate = bytes
    }
    let hook = args.value("--should-download").map { ShouldDownloadHook(command: $0) }
    if !args.all("--repo").isEmpty || args.value("--public-key") != nil || args.value("--ca") != nil {
        // Remembered by the root before the agent takes it (no one else may hold it meanwhile:
        // the agent fails at start if someone does).
        do {
            var settings = try RootSettings.load(root: root)
            if !args.all("--repo").isEmpty { settings.repositoryURLs = args.all("--repo") }
            if let key = args.value("--public-key") { settings.publicKey = try Ed25519PublicKey(argument: key).text }
            if let ca = args.value("--ca") { settings.caFile = URL(fileURLWithPath: ca).standardizedFileURL.path }
            try settings.save(root: root)
        } catch {
            throw CLIError.failure("\(error)")
        }
    }
    // Signals are taken on a queue, not by a handler: the stop runs in ordinary code.
    signal(SIGTERM, SIG_IGN)
    signal(SIGINT, SIG_IGN)
    let service: AgentService
    do {
        service = try AgentService(configuration: AgentConfiguration(root: root, socketPath: args.value("--socket"), maxParallel: maxParallel,
                                                                     shouldDownload: hook, updateInterval: updateInterval, maxBackgroundRate: maxRate))
    } catch {
        throw CLIError.failure("\(error)")
    }
    let stops = [SIGTERM, SIGINT].map { number in
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler {
            printError("agent: signal \(number), stopping")
            service.stop()
        }
        source.resume()
        return source
    }
    printError("agent: serving \(service.configuration.root) on \(service.socketPath) (pid \(getpid()))")
    service.waitUntilStopped()
    stops.forEach { $0.cancel() }
    printError("agent: stopped")
    return 0
}

let cancelCommand = CommandSpec(
    name: "cancel",
    abstract: "Stop the agent's download of a pack: it pauses, keeping what it verified, until asked for again.",
    arguments: "PACK_ID",
    options: [ClientOptions.root, socketOption],
    positionalCount: 1...1
) { args in
    let root = try args.required("--root")
    let id = args.positionals[0]
    do {
        let agent = try AgentConnection(socketPath: args.value("--socket") ?? AgentConnection.socketPath(forRoot: root))
        try runBlocking { try await agent.cancel(assetPackWithID: id) }
    } catch {
        throw CLIError.failure("\(error)")
    }
    printError("paused \(id)")
    return 0
}
