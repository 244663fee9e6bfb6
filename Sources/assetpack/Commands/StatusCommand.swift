import AssetPackCLI
import AssetPackFormat
import AssetPacks
import Foundation

let statusCommand = CommandSpec(
    name: "status",
    abstract: "Show the status of asset packs against the catalog.",
    arguments: "[PACK_ID]",
    options: ClientOptions.all,
    positionalCount: 0...1
) { args in
    let manager = try makeManager(args)
    struct Row: Encodable { var id: String; var version: Int; var policy: String; var downloadSize: UInt64; var installSize: UInt64; var language: String?; var status: [String] }
    let rows: [Row]
    do {
        rows = try runBlocking {
            let ids: [String]
            if let one = args.positionals.first { ids = [one] } else { ids = try await manager.allAssetPacks.map(\.id).sorted() }
            var rows: [Row] = []
            for id in ids {
                let pack = try? await manager.assetPack(withID: id)
                let status = try await manager.localStatus(ofAssetPackWithID: id)
                rows.append(Row(id: id, version: pack?.version ?? 0, policy: pack?.downloadPolicy.name ?? "-", downloadSize: pack?.downloadSize ?? 0,
                                installSize: pack?.installSize ?? 0, language: pack?.language, status: status.names))
            }
            return rows
        }
    } catch { throw CLIError.failure("\(error)") }
    if args.flag("--json") { print(jsonString(rows)); return 0 }
    for r in rows {
        print("\(r.id.padding(toLength: max(20, r.id.count), withPad: " ", startingAt: 0)) v\(r.version)  \(r.policy.padding(toLength: 10, withPad: " ", startingAt: 0)) \(byteCount(r.downloadSize).leftPadded(10)) \(byteCount(r.installSize).leftPadded(10))  \(r.language ?? "-")  \(r.status.joined(separator: ", "))")
    }
    return 0
}

let lsCommand = CommandSpec(
    name: "ls",
    abstract: "List the merged namespace of installed packs.",
    options: [ClientOptions.root, ClientOptions.json, ClientOptions.lockTimeout],
    positionalCount: 0...0
) { args in
    let manager = try makeLocalManager(args)
    let entries: [(path: String, packIDs: [String])]
    do { entries = try runBlocking { try await manager.namespace().map { ($0.path, $0.packIDs) } } } catch { throw CLIError.failure("\(error)") }
    if args.flag("--json") {
        struct E: Encodable { var path: String; var packs: [String] }
        print(jsonString(entries.map { E(path: $0.path, packs: $0.packIDs) }))
    } else {
        for e in entries { print("\(e.path)\t\(e.packIDs.joined(separator: ","))") }
    }
    return 0
}

let catCommand = CommandSpec(
    name: "cat",
    abstract: "Write a file of the merged namespace to standard output.",
    arguments: "PATH",
    options: [ClientOptions.root, .option("--pack", value: "PACK_ID", help: "Search only this pack."), ClientOptions.lockTimeout],
    positionalCount: 1...1
) { args in
    let manager = try makeLocalManager(args)
    let path = args.positionals[0], pack = args.value("--pack")
    let data: Data
    do { data = try runBlocking { try await manager.contents(at: path, searchingInAssetPackWithID: pack) } } catch { throw CLIError.failure("\(error)") }
    FileHandle.standardOutput.write(data)
    return 0
}

let removeCommand = CommandSpec(
    name: "remove",
    abstract: "Remove an installed asset pack and its files.",
    arguments: "PACK_ID",
    options: [ClientOptions.root, ClientOptions.lockTimeout],
    positionalCount: 1...1
) { args in
    let manager = try makeLocalManager(args)
    let id = args.positionals[0]
    do { try runBlocking { try await manager.remove(assetPackWithID: id) } } catch { throw CLIError.failure("\(error)") }
    printError("removed \(id)")
    return 0
}

/// A manager for commands that only read the root (ls, cat, remove): no network needed.
func makeLocalManager(_ args: ParsedArguments) throws -> AssetPackManager {
    let root = try args.required("--root")
    let settings = try RootSettings.load(root: root)
    guard let keyText = settings.publicKey, !settings.repositoryURLs.isEmpty else {
        throw CLIError.failure("\(root) is not an initialised storage root (run 'assetpack install' first)")
    }
    let key: Ed25519PublicKey
    do { key = try Ed25519PublicKey(text: keyText) } catch { throw CLIError.failure("the saved public key is invalid: \(error)") }
    return try AssetPackManager(configuration: .init(repositoryURLs: settings.repositoryURLs, publicKey: key, storageRoot: root, caFile: settings.caFile,
                                                     storageLockTimeout: ClientOptions.storageLockTimeout(args)))
}
