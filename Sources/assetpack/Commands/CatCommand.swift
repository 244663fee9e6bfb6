import ArgumentParsing
import AssetPacks
import Foundation

struct CatCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "cat", abstract: "Write a file of the merged namespace to standard output.",
            discussion: """
            The file is read progressively: when no installed pack holds PATH, it is fetched from the
            pack given with --pack (or from the packs being downloaded) ahead of the rest of that pack,
            each chunk verified, and kept for the pack's download. With --range only the chunks holding
            those bytes are fetched. When an agent runs for the root, the agent reads it, ahead of the
            download it runs.
            """)
    }

    @Argument("PATH")
    var path: String
    var storage = RootOptions()
    @Option("--pack", value: "PACK_ID", help: "Search only this pack (installed or not).")
    var pack: String?
    @Option("--range", value: "FIRST-LAST", help: "Only these bytes of the file (offsets, inclusive; FIRST- to the end).")
    var range: String?
    @Flag("--installed", help: "Read installed packs only: fetch nothing.")
    var installedOnly: Bool

    init() {}

    func run() throws -> Int32 {
        let path = self.path, pack = self.pack
        let access: AssetReadAccess
        if installedOnly {
            guard range == nil else { throw CLIError.usage("--range reads progressively; it cannot go with --installed") }
            access = .installed
        } else if let range {
            access = .progressive(range: try Self.byteRange(range))
        } else {
            access = .progressive
        }
        let data: Data
        if case .agent(let agent) = RootAccess.resolve(root: storage.root) {
            do { data = try runBlocking { try await agent.contents(at: path, searchingInAssetPackWithID: pack, access: access) } } catch { throw agentFailure(error) }
        } else {
            let manager = try makeLocalManager(storage)
            do {
                data = access == .installed
                    ? try manager.contents(at: FilePath(path), searchingInAssetPackWithID: pack)
                    : try runBlocking { try await manager.contents(at: FilePath(path), searchingInAssetPackWithID: pack, access: access) }
            } catch { throw CLIError.failure("\(error)") }
        }
        FileHandle.standardOutput.write(data)
        return 0
    }

    /// `FIRST-LAST` (inclusive) or `FIRST-` as file offsets.
    static func byteRange(_ text: String) throws(CLIError) -> Range<UInt64> {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let first = UInt64(parts[0]) else {
            throw CLIError.usage("--range \(text): expected FIRST-LAST (byte offsets, inclusive) or FIRST- (to the end)")
        }
        if parts[1].isEmpty { return first..<UInt64.max }
        guard let last = UInt64(parts[1]), last >= first, last < UInt64.max else {
            throw CLIError.usage("--range \(text): LAST must be a byte offset no less than FIRST")
        }
        return first..<last + 1
    }
}
