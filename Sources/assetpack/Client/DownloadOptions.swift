import ArgumentParsing
import AssetPacks

/// The options of the commands that download: the client's, the storage budget, the seeds and
/// the entitlement for paid packs.
struct DownloadOptions: ParsableArguments {
    var client = ClientOptions()
    var seeds = SeedOptions()
    var device = DeviceOptions()
    @Option("--storage-budget", value: "SIZE", help: "Evict unused on-demand packs (lowest preservation priority, then least recently used) to keep installed packs within SIZE uncompressed bytes; 'none' for no budget. Remembered by the root.")
    var storageBudget: StorageBudgetArgument?
    @Option("--entitlement", value: "TOKEN", help: "The entitlement token for paid packs, presented to the key server. Remembered by the root (ROOT/entitlement, mode 0600).")
    var entitlement: String?
    @Option("--key-server", value: "URL", help: "The key server that hands paid packs' content keys for the token (https, or http on loopback). Remembered by the root.")
    var keyServer: String?
}

extension DownloadOptions {
    /// A manager for these options (`makeManager`), seeds included.
    func manager() throws -> AssetPackManager {
        try makeManager(client, storageBudget: storageBudget, seeds: seeds, entitlement: entitlement, keyServer: keyServer, device: device)
    }

    /// The root's agent, if one runs and can take these options (`RootAccess.agent`).
    func agent() throws -> AgentConnection? {
        try RootAccess.agent(for: client, storageBudget: storageBudget, seeds: seeds, device: device)
    }
}
