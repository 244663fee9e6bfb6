import ArgumentParsing

/// The options of the commands that download: the client's and the storage budget.
struct DownloadOptions: ParsableArguments {
    var client = ClientOptions()
    @Option("--storage-budget", value: "SIZE", help: "Evict unused on-demand packs (lowest preservation priority, then least recently used) to keep installed packs within SIZE uncompressed bytes; 'none' for no budget. Remembered by the root.")
    var storageBudget: StorageBudgetArgument?
}
