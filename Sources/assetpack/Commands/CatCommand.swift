import ArgumentParsing
import AssetPacks
import Foundation

struct CatCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "cat", abstract: "Write a file of the merged namespace to standard output.")
    }

    @Argument("PATH")
    var path: String
    var storage = RootOptions()
    @Option("--pack", value: "PACK_ID", help: "Search only this pack.")
    var pack: String?

    init() {}

    func run() throws -> Int32 {
        let path = self.path, pack = self.pack
        let data: Data
        if case .agent(let agent) = RootAccess.resolve(root: storage.root) {
            do { data = try runBlocking { try await agent.contents(at: path, searchingInAssetPackWithID: pack) } } catch { throw agentFailure(error) }
        } else {
            let manager = try makeLocalManager(storage)
            do { data = try manager.contents(at: FilePath(path), searchingInAssetPackWithID: pack) } catch { throw CLIError.failure("\(error)") }
        }
        FileHandle.standardOutput.write(data)
        return 0
    }
}
