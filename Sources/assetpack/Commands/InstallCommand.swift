import ArgumentParsing
import AssetPackFormat
import AssetPacks
import Foundation

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
            When an agent runs for the root, the agent runs the step and this command follows it; with
            --detach it hands the step to the agent and returns at once.
            """)
    }

    var download = DownloadOptions()
    @Option("--event", value: "EVENT", help: "first-installation (default) or subsequent-update.")
    var event: String?
    @Flag("--detach", help: "Hand the install step to the root's agent and return at once (needs a running agent).")
    var detach: Bool

    init() {}

    func run() throws -> Int32 {
        let event: InstallationEventType
        switch self.event ?? "first-installation" {
        case "first-installation", "firstInstallation": event = .firstInstallation
        case "subsequent-update", "subsequentUpdate": event = .subsequentUpdate
        case let other: throw CLIError.usage("--event takes first-installation or subsequent-update, not \(other)")
        }
        if let agent = try RootAccess.agent(for: download.client, storageBudget: download.storageBudget) {
            return try detach ? queue(event, through: agent) : install(event, through: agent)
        }
        if detach { throw RootAccess.detachNeedsAgent(root: download.client.storage.root) }
        let manager = try makeManager(download.client, storageBudget: download.storageBudget, entitlement: download.entitlement,
                                      keyServer: download.keyServer)
        let printer = ProgressPrinter(manager: manager, json: download.client.json)
        defer { printer.stop() }
        do {
            try runBlocking {
                let prefetch = try await manager.handleInstallationEvent(event)
                try await prefetch.value
            }
        } catch { throw downloadFailure(error, manager: manager, root: download.client.storage.root) }
        printer.finish(manager)
        return 0
    }

    /// The agent runs the step; this prints its events and waits, as the local path does, for the
    /// essential packs and then the prefetch ones.
    private func install(_ event: InstallationEventType, through agent: AgentConnection) throws -> Int32 {
        let updates = try runBlocking { await agent.subscribedStatusUpdates() }
        let printer = ProgressPrinter(updates: updates, json: download.client.json)
        defer { printer.stop() }
        let before = (try? runBlocking { try await agent.agentStatus().fetchedBytes }) ?? nil
        do {
            try runBlocking {
                let plan = try await agent.handleInstallationEvent(event)
                for id in plan.prefetch { try await Self.waitForRequest(of: id, agent) }
            }
        } catch {
            printer.settle()
            throw agentFailure(error)
        }
        printer.settle()
        let after = (try? runBlocking { try await agent.agentStatus().fetchedBytes }) ?? nil
        printer.finish(fetchedBytes: (after ?? 0) - min(after ?? 0, before ?? 0))
        return 0
    }

    /// Waits until the agent's queue holds no request for the pack (it is installed), and fails
    /// with the reason if the request stopped instead (failed, skipped by the hook, or paused).
    private static func waitForRequest(of id: String, _ agent: AgentConnection) async throws {
        while true {
            let pack = try await agent.assetPack(withID: id)
            guard let request = pack.request else { return }
            if request != "queued" { throw CLIError.failure("\(id): \(request)" + (pack.error.map { ": \($0)" } ?? "")) }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// `--detach`: the step's packs are in the agent's queue when this returns.
    private func queue(_ event: InstallationEventType, through agent: AgentConnection) throws -> Int32 {
        let plan: AgentInstallationPlan
        do { plan = try runBlocking { try await agent.handleInstallationEvent(event, detached: true) } } catch { throw agentFailure(error) }
        if download.client.json {
            print(jsonLine(["event": "queued", "essential": plan.essential, "prefetch": plan.prefetch]))
        } else {
            let essential = plan.essential.joined(separator: ", "), prefetch = plan.prefetch.joined(separator: ", ")
            print("queued the install step: essential \(essential.isEmpty ? "none" : essential); prefetch \(prefetch.isEmpty ? "none" : prefetch)")
        }
        return 0
    }
}
