import ArgumentParsing
import AssetPackFormat
import AssetPacks

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
    @Option("--parts", value: "N", help: "Assemble each pack in N parts, each over a connection of its own (default: 4 for packs of 32 MiB or more, else 1).",
            range: SettingBounds.downloadParts)
    var parts: Int?

    /// `--parts` as the manager's setting (the default when absent).
    func parallelDownloads() throws(CLIError) -> AssetPackManager.ParallelDownloads {
        guard let parts else { return .standard }
        return .init(parts: parts, minimumInstallSize: 0)
    }
}
