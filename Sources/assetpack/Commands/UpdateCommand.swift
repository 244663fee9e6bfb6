import ArgumentParsing
import AssetPacks

struct UpdateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "update", abstract: "Check for updates: update installed packs by delta, remove packs the catalog dropped.")
    }

    var download = DownloadOptions()

    init() {}

    func run() throws -> Int32 {
        let manager = try makeManager(download.client, storageBudget: download.storageBudget)
        let printer = ProgressPrinter(manager: manager, json: download.client.json)
        defer { printer.stop() }
        let result: (updated: [AssetPack], removed: [String])
        do { result = try runBlocking { try await manager.checkForUpdates() } } catch { throw CLIError.failure("\(error)") }
        printer.finish(manager, ["updated": result.updated.map(\.description), "removed": result.removed])
        if !download.client.json {
            let updated = result.updated.map(\.description).joined(separator: ", ")
            let removed = result.removed.joined(separator: ", ")
            print("updated: \(updated.isEmpty ? "none" : updated); removed: \(removed.isEmpty ? "none" : removed)")
        }
        return 0
    }
}
