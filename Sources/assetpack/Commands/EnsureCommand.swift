import ArgumentParsing
import AssetPacks

struct EnsureCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "ensure", abstract: "Make an asset pack available locally (download it if needed).")
    }

    @Argument("PACK_ID", atLeast: 1)
    var ids: [String]
    var download = DownloadOptions()
    @Flag("--latest", help: "Also update an installed pack that is out of date.")
    var latest: Bool

    init() {}

    func run() throws -> Int32 {
        let manager = try makeManager(download.client, storageBudget: download.storageBudget)
        let printer = ProgressPrinter(manager: manager, json: download.client.json)
        defer { printer.stop() }
        let ids = self.ids, latest = self.latest
        do {
            try runBlocking {
                var packs = Set<AssetPack>()
                for id in ids { packs.insert(try await manager.assetPack(withID: id)) }
                if packs.count == 1 { try await manager.ensureLocalAvailability(of: packs.first!, requireLatestVersion: latest) }
                else { try await manager.ensureLocalAvailability(of: packs, requireLatestVersions: latest) }
            }
        } catch { throw CLIError.failure("\(error)") }
        printer.finish(manager)
        return 0
    }
}
