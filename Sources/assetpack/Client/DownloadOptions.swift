import ArgumentParsing
import AssetPacks

/// The options of the commands that download: the client's, the storage budget and the seeds.
struct DownloadOptions: ParsableArguments {
    var client = ClientOptions()
    var seeds = SeedOptions()
    @Option("--storage-budget", value: "SIZE", help: "Evict unused on-demand packs (lowest preservation priority, then least recently used) to keep installed packs within SIZE uncompressed bytes; 'none' for no budget. Remembered by the root.")
    var storageBudget: StorageBudgetArgument?
}

extension DownloadOptions {
    /// A manager for these options (`makeManager`), seeds included.
    func manager() throws -> AssetPackManager {
        try makeManager(client, storageBudget: storageBudget, seeds: seeds)
    }

    /// The root's agent, if one runs and can take these options (`RootAccess.agent`).
    func agent() throws -> AgentConnection? {
        try RootAccess.agent(for: client, storageBudget: storageBudget, seeds: seeds)
    }
}
