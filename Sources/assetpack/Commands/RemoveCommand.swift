import ArgumentParsing
import AssetPacks

struct RemoveCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "remove", abstract: "Remove an installed asset pack and its files.")
    }

    @Argument("PACK_ID")
    var id: String
    var storage = RootOptions()

    init() {}

    func run() throws -> Int32 {
        let id = self.id
        if case .agent(let agent) = RootAccess.resolve(root: storage.root) {
            do { try runBlocking { try await agent.remove(assetPackWithID: id) } } catch { throw agentFailure(error) }
        } else {
            let manager = try makeLocalManager(storage)
            do { try runBlocking { try await manager.remove(assetPackWithID: id) } } catch { throw CLIError.failure("\(error)") }
            AssetPackManager.waitUntilRetiredFoldersAreDeleted()   // the space is free when it returns
        }
        printError("removed \(id)")
        return 0
    }
}
