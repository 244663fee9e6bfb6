import ArgumentParsing
import AssetPackFormat
import AssetPacks

struct InstallCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "install",
            abstract: "Run the install step against a repository: essential packs, then prefetch packs.",
            discussion: """
            Fetches and checks the signed catalog, downloads every essential pack for the installation
            event and waits for it, then the prefetch packs (which an app would let run in the
            background). On-demand packs come only with 'assetpack ensure'. Downloads resume where they
            stopped when run again. The root remembers --repo, --public-key, --ca and --storage-budget.
            """)
    }

    var download = DownloadOptions()
    @Option("--event", value: "EVENT", help: "first-installation (default) or subsequent-update.")
    var event: String?

    init() {}

    func run() throws -> Int32 {
        let event: InstallationEventType
        switch self.event ?? "first-installation" {
        case "first-installation", "firstInstallation": event = .firstInstallation
        case "subsequent-update", "subsequentUpdate": event = .subsequentUpdate
        case let other: throw CLIError.usage("--event takes first-installation or subsequent-update, not \(other)")
        }
        let manager = try makeManager(download.client, storageBudget: download.storageBudget)
        let printer = ProgressPrinter(manager: manager, json: download.client.json)
        defer { printer.stop() }
        do {
            try runBlocking {
                let prefetch = try await manager.handleInstallationEvent(event)
                try await prefetch.value
            }
        } catch { throw CLIError.failure("\(error)") }
        printer.finish(manager)
        return 0
    }
}
