import ArgumentParsing
import AssetPackFormat
import AssetPacks
import Foundation

/// How a client command reaches its storage root: through the agent that runs for it (which
/// holds the root's lock and owns its downloads), or, when none answers, with a manager of its
/// own that takes the lock. Every client command asks here first; the output is the same.
enum RootAccess {
    case agent(AgentConnection)
    case local

    /// The agent when one answers on ROOT/agent.sock now; `.local` otherwise (no socket, or one
    /// a killed agent left behind).
    static func resolve(root: String) -> RootAccess {
        let path = AgentConnection.socketPath(forRoot: root)
        guard FileManager.default.fileExists(atPath: path), let agent = try? AgentConnection(socketPath: path) else { return .local }
        return (try? runBlocking { await agent.isReachable() }) == true ? .agent(agent) : .local
    }

    /// The agent for `options`' root after checking that it can take them: settings that would
    /// change what the root remembers (or how a manager downloads) cannot reach an agent that is
    /// already running, so they are refused with how to change the agent's settings. A remembered
    /// value given again is fine. Nil when no agent runs.
    static func agent(for options: ClientOptions, storageBudget: StorageBudgetArgument? = nil, seeds: SeedOptions? = nil,
                      device: DeviceOptions? = nil) throws -> AgentConnection? {
        guard case .agent(let agent) = resolve(root: options.storage.root) else { return nil }
        let root = options.storage.root
        let settings = try RootSettings.load(root: root)
        var refused = options.repository.changes(to: settings)
        if !options.allowedDomains.isEmpty { refused.append("--allow-domain") }
        if options.parts != nil { refused.append("--parts") }
        if options.flush { refused.append("--flush") }
        refused += seeds?.changes(to: settings) ?? []
        refused += try device?.changes(to: settings) ?? []
        switch storageBudget {
        case .none?: if settings.storageBudget != nil { refused.append("--storage-budget") }
        case .bytes(let bytes)?: if settings.storageBudget != bytes { refused.append("--storage-budget") }
        case nil: break
        }
        guard !refused.isEmpty else { return agent }
        let pid = (try? runBlocking { try await agent.agentStatus().pid }).map(String.init) ?? "N"
        throw CLIError.usage("""
            an agent (process \(pid)) holds the root \(root) and downloads with its own settings: \(refused.joined(separator: ", ")) \
            cannot change them from here. Leave \(refused.count == 1 ? "it" : "them") out, or stop the agent (kill -TERM \(pid)) and \
            then either start it again with the new setting ('assetpack agent --root \(root)' takes --repo, --public-key, --ca and --flush) \
            or run this command while no agent runs (the root remembers --storage-budget, --texture-formats, --memory, and --seed with --remember-seeds, for the agent's next start)
            """)
    }

    /// Why `--detach` cannot work without an agent.
    static func detachNeedsAgent(root: String) -> CLIError {
        .usage("--detach needs a running agent: assetpack agent --root \(root)")
    }
}

/// A failure of a call through the agent, worded as the command's own manager would word it:
/// the agent's message without its HTTP status.
func agentFailure(_ error: any Error) -> CLIError {
    if case AgentError.remote(_, _, let message) = error { return .failure(message) }
    return .failure("\(error)")
}
