import ArgumentParsing
import AssetPacks
import Foundation

/// `assetpack ls`.
struct ListCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "ls", abstract: "List the merged namespace of installed packs.")
    }

    var storage = RootOptions()
    @Flag("--json", help: "Print JSON instead of text.")
    var json: Bool

    init() {}

    func run() throws -> Int32 {
        let entries: [(path: String, packIDs: [String])]
        if case .agent(let agent) = RootAccess.resolve(root: storage.root) {
            do { entries = try runBlocking { try await agent.namespace().map { ($0.path, $0.packs) } } } catch { throw agentFailure(error) }
        } else {
            let manager = try makeLocalManager(storage)
            if !json {
                // Straight from the store's rows to standard output, a write a MiB: at 100,000
                // paths, a string and an array a path (or a print call a line) cost more than
                // the lookup itself.
                do { try runBlocking { try await manager.namespaceListing(writeToStandardOutput) } } catch { throw CLIError.failure("\(error)") }
                return 0
            }
            do { entries = try runBlocking { try await manager.namespace().map { ($0.path, $0.packIDs) } } } catch { throw CLIError.failure("\(error)") }
        }
        if json {
            struct E: Encodable { var path: String; var packs: [String] }
            print(jsonString(entries.map { E(path: $0.path, packs: $0.packIDs) }))
        } else {
            var text: [UInt8] = []
            text.reserveCapacity(entries.count * 64)
            for e in entries {
                text.append(contentsOf: e.path.utf8)
                text.append(UInt8(ascii: "\t"))
                for (i, id) in e.packIDs.enumerated() {
                    if i > 0 { text.append(UInt8(ascii: ",")) }
                    text.append(contentsOf: id.utf8)
                }
                text.append(UInt8(ascii: "\n"))
            }
            FileHandle.standardOutput.write(Data(text))
        }
        return 0
    }
}

/// Writes `bytes` whole to standard output.
private func writeToStandardOutput(_ bytes: UnsafeRawBufferPointer) throws {
    var done = 0
    while done < bytes.count {
        let n = write(STDOUT_FILENO, bytes.baseAddress! + done, bytes.count - done)
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw CLIError.failure("cannot write the listing to standard output: \(String(cString: strerror(errno)))") }
        done += n
    }
}
