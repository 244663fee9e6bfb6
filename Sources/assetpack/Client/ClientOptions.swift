import ArgumentParsing
import AssetPackFormat
import AssetPacks

/// The storage root and how long to wait for it: what every client command takes.
struct RootOptions: ParsableArguments {
    @Option("--root", value: "DIR", help: "The storage root (installed packs and state).")
    var root: String
    @Option("--lock-timeout", value: "SECONDS", help: "How long to wait while another process uses the root (default 30).", default: .seconds(30))
    var lockTimeout: Duration

    /// `--lock-timeout`, checked (0 to 86400 seconds).
    func storageLockTimeout() throws(CLIError) -> Duration {
        guard lockTimeout >= .zero, lockTimeout <= .seconds(86_400) else {
            throw .usage("--lock-timeout takes seconds from 0 to 86400, got \(lockTimeout)")
        }
        return lockTimeout
    }
}

/// The options of the commands that talk to a repository; the root remembers the repository,
/// key and CA given.
struct ClientOptions: ParsableArguments {
    var storage = RootOptions()
    @Option("--repo", value: "URL", help: "Repository base URL (where catalog.json is); repeat for mirrors. Remembered by the root.")
    var repositories: [String]
    @Option("--public-key", value: "KEY", help: "The publisher's public key, or its .pub file. Remembered by the root.")
    var publicKey: String?
    @Option("--ca", value: "FILE", help: "A PEM CA file to trust (private servers). Remembered by the root.")
    var caFile: String?
    @Option("--allow-domain", value: "HOST", help: "Allow downloads only from these hosts (*.example.com for subdomains).")
    var allowedDomains: [String]
    @Flag("--json", help: "Print JSON instead of text: one line per progress update, then {\"event\": \"done\", \"fetchedBytes\": N}.")
    var json: Bool
    @Option("--parts", value: "N", help: "Assemble each pack in N parts, each over a connection of its own (default: 4 for packs of 32 MiB or more, else 1).")
    var parts: Int?

    /// `--parts` as the manager's setting (the default when absent).
    func parallelDownloads() throws(CLIError) -> AssetPackManager.ParallelDownloads {
        guard let parts else { return .standard }
        guard (1...16).contains(parts) else { throw .usage("--parts takes a number from 1 to 16, got '\(parts)'") }
        return .init(parts: parts, minimumInstallSize: 0)
    }
}

/// The value of `--storage-budget`: a size, or `none`.
enum StorageBudget: ArgumentValue {
    case none
    case bytes(UInt64)

    init?(argument: String) {
        if argument.lowercased() == "none" { self = .none; return }
        guard let size = ByteSize(argument: argument) else { return nil }
        self = .bytes(size.bytes)
    }

    static var expectation: String { "a size in \(ByteCount.grammar), or 'none'" }
    static var helpNote: String? { ByteSize.helpNote }
}

/// The options of the commands that download: the client's and the storage budget.
struct DownloadOptions: ParsableArguments {
    var client = ClientOptions()
    @Option("--storage-budget", value: "SIZE", help: "Evict unused on-demand packs (lowest preservation priority, then least recently used) to keep installed packs within SIZE uncompressed bytes; 'none' for no budget. Remembered by the root.")
    var storageBudget: StorageBudget?
}
