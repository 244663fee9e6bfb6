import ArgumentParsing
import AssetPacks
import Foundation

struct EnsureCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "ensure", abstract: "Make an asset pack available locally (download it if needed).",
            discussion: """
            When an agent runs for the root ('assetpack agent --root DIR'), the agent downloads and this
            command follows its progress: killing the command does not stop the download ('assetpack
            cancel' does). With --detach it hands the request to the agent and returns at once.
            """)
    }

    @Argument("PACK_ID", atLeast: 1)
    var ids: [String]
    var download = DownloadOptions()
    @Flag("--latest", help: "Also update an installed pack that is out of date.")
    var latest: Bool
    @Flag("--detach", help: "Hand the request to the root's agent and return at once (needs a running agent).")
    var detach: Bool

    init() {}

    func run() throws -> Int32 {
        if let agent = try download.agent() {
            return try detach ? queue(through: agent) : ensure(through: agent)
        }
        if detach { throw RootAccess.detachNeedsAgent(root: download.client.storage.root) }
        let manager = try download.manager()
        let printer = ProgressPrinter(manager: manager, json: download.client.json)
        defer { printer.stop() }
        let ids = self.ids, latest = self.latest
        do {
            try runBlocking {
                var packs = Set<AssetPack>()
                for id in ids { packs.insert(try await manager.catalogPack(withID: id)) }
                if packs.count == 1 { try await manager.ensureLocalAvailability(of: packs.first!, requireLatestVersion: latest) }
                else { try await manager.ensureLocalAvailability(of: packs, requireLatestVersions: latest) }
            }
        } catch { throw downloadFailure(error, manager: manager, root: download.client.storage.root) }
        printer.finish(manager)
        return 0
    }

    /// The agent downloads; this follows its events for these packs and waits for its answers.
    private func ensure(through agent: AgentConnection) throws -> Int32 {
        let ids = Array(Set(self.ids)).sorted(), latest = self.latest
        let updates = try runBlocking { await agent.subscribedStatusUpdates() }
        let printer = ProgressPrinter(updates: updates, json: download.client.json, only: Set(ids))
        defer { printer.stop() }
        let before = (try? runBlocking { try await agent.agentStatus().fetchedBytes }) ?? nil
        do {
            try runBlocking {
                for id in ids { _ = try await agent.assetPack(withID: id) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for id in ids { group.addTask { try await agent.ensureLocalAvailability(ofAssetPackWithID: id, requireLatestVersion: latest) } }
                    try await group.waitForAll()
                }
            }
        } catch {
            printer.settle()
            throw agentFailure(error)
        }
        printer.settle()
        let after = (try? runBlocking { try await agent.agentStatus().fetchedBytes }) ?? nil
        printer.finish(fetchedBytes: (after ?? 0) - min(after ?? 0, before ?? 0), sources: SourcesReport.fromAgent(agent, ids: ids))
        return 0
    }

    /// `--detach`: the requests are on the agent's disk when this returns.
    private func queue(through agent: AgentConnection) throws -> Int32 {
        let ids = self.ids, latest = self.latest
        for id in ids {
            do {
                try runBlocking { try await agent.ensureLocalAvailability(ofAssetPackWithID: id, requireLatestVersion: latest, detached: true) }
            } catch { throw agentFailure(error) }
            if download.client.json { print(jsonLine(["event": "queued", "assetPackID": id])) }
            else { print("queued \(id): the agent downloads it (assetpack status --root \(download.client.storage.root) shows how far)") }
        }
        return 0
    }
}
