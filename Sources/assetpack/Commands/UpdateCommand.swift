import ArgumentParsing
import AssetPacks

struct UpdateCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "update", abstract: "Check for updates: update installed packs by delta, remove packs the catalog dropped.")
    }

    var download = DownloadOptions()

    init() {}

    func run() throws -> Int32 {
        let result: (updated: [AssetPack], removed: [String])
        if let agent = try RootAccess.agent(for: download.client, storageBudget: download.storageBudget) {
            let updates = try runBlocking { await agent.subscribedStatusUpdates() }
            let printer = ProgressPrinter(updates: updates, json: download.client.json)
            defer { printer.stop() }
            let before = (try? runBlocking { try await agent.agentStatus().fetchedBytes }) ?? nil
            do {
                let answer = try runBlocking { try await agent.checkForUpdates() }
                result = (answer.updated.map(\.assetPack), answer.removed)
            } catch {
                printer.settle()
                throw agentFailure(error)
            }
            printer.settle()
            let after = (try? runBlocking { try await agent.agentStatus().fetchedBytes }) ?? nil
            printer.finish(fetchedBytes: (after ?? 0) - min(after ?? 0, before ?? 0),
                           ["updated": result.updated.map(\.description), "removed": result.removed])
        } else {
            let manager = try makeManager(download.client, storageBudget: download.storageBudget, entitlement: download.entitlement,
                                      keyServer: download.keyServer)
            let printer = ProgressPrinter(manager: manager, json: download.client.json)
            defer { printer.stop() }
            do { result = try runBlocking { try await manager.checkForUpdates() } } catch { throw CLIError.failure("\(error)") }
            printer.finish(manager, ["updated": result.updated.map(\.description), "removed": result.removed])
        }
        if !download.client.json {
            let updated = result.updated.map(\.description).joined(separator: ", ")
            let removed = result.removed.joined(separator: ", ")
            print("updated: \(updated.isEmpty ? "none" : updated); removed: \(removed.isEmpty ? "none" : removed)")
        }
        return 0
    }
}
