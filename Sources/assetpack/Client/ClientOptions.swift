import ArgumentParsing
import AssetPackFormat
import AssetPacks

/// The options of the commands that talk to a repository; the root remembers the repository,
/// key and CA given.
struct ClientOptions: ParsableArguments {
    var storage = RootOptions()
    var repository = RepositoryOptions()
    @Option("--allow-domain", value: "HOST", help: "Allow downloads only from these hosts (*.example.com for subdomains).")
    var allowedDomains: [String]
    @Flag("--json", help: "Print JSON instead of text: one line per progress update, then {\"event\": \"done\", \"fetchedBytes\": N}.")
    var json: Bool
    @Option("--parts", value: "N", help: "Assemble each pack in N parts, each over a connection of its own (default: 4 for packs of 32 MiB or more, else 1).",
            range: SettingBounds.downloadParts)
    var parts: Int?
    @Option("--fetch-deadline", value: "SECONDS", help: "Time the catalog or a pack index may take to arrive, every mirror and retry included (default 60).", default: .seconds(60))
    var fetchDeadline: Duration
    @Option("--min-rate", value: "SIZE", help: "Bytes per second the catalog or a pack index must average after 5 s, or the mirror is passed over (default 1KiB).")
    var minimumRate: ByteSize?
    @Option("--stall-timeout", value: "SECONDS", help: "A pack download that places no verified chunk for this long goes on from the next mirror (default 60).", default: .seconds(60))
    var stallTimeout: Duration
    @Flag("--flush", help: "Wait for each pack's files to reach the disk before committing it (default: leave them to the kernel's writeback, about 30 s; a crash of the system before then is found at the next start and the pack fetched again).")
    var flush: Bool

    /// `--parts` as the manager's setting (the default when absent).
    func parallelDownloads() throws(CLIError) -> AssetPackManager.ParallelDownloads {
        guard let parts else { return .standard }
        return .init(parts: parts, minimumInstallSize: 0)
    }

    /// `--fetch-deadline`, `--min-rate` and `--stall-timeout` as the manager's limits, checked
    /// (1 s to 1 hour; 0 to 1 GiB/s).
    func networkLimits() throws(CLIError) -> AssetPackManager.NetworkLimits {
        for (name, value) in [("--fetch-deadline", fetchDeadline), ("--stall-timeout", stallTimeout)] {
            guard value >= .seconds(1), value <= .seconds(3600) else { throw .usage("\(name) takes seconds from 1 to 3600, got \(value)") }
        }
        var limits = AssetPackManager.NetworkLimits(smallFileDeadline: fetchDeadline, stallTimeout: stallTimeout)
        if let minimumRate {
            guard minimumRate.bytes <= 1 << 30 else { throw .usage("--min-rate takes at most 1GiB (bytes per second), got \(minimumRate.bytes)") }
            limits.minimumAverageRate = Int(minimumRate.bytes)
        }
        return limits
    }
}
