import ArgumentParsing
import AssetPacks

/// `assetpack cancel`: pauses one of the agent's downloads.
struct CancelCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "cancel",
                             abstract: "Stop the agent's download of a pack: it pauses, keeping what it verified, until asked for again.")
    }

    @Argument("PACK_ID")
    var id: String
    @Option("--root", value: "DIR", help: "The storage root the agent serves.")
    var root: String
    @Option("--socket", value: "PATH", help: "The agent's Unix socket (default ROOT/agent.sock).")
    var socket: String?

    init() {}

    func run() throws -> Int32 {
        let id = self.id
        do {
            let agent = try AgentConnection(socketPath: socket ?? AgentConnection.socketPath(forRoot: root))
            try runBlocking { try await agent.cancel(assetPackWithID: id) }
        } catch {
            throw CLIError.failure("\(error)")
        }
        printError("paused \(id)")
        return 0
    }
}
