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
        let manager = try makeLocalManager(storage)
        let path = self.path, pack = self.pack
        let data: Data
        do { data = try runBlocking { try await manager.contents(at: path, searchingInAssetPackWithID: pack) } } catch { throw CLIError.failure("\(error)") }
        FileHandle.standardOutput.write(data)
        return 0
    }
}
