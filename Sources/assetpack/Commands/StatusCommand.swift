import ArgumentParsing
import AssetPackFormat
import AssetPacks
import Foundation

struct StatusCommand: Command {
    static var configuration: CommandConfiguration {
        CommandConfiguration(name: "status", abstract: "Show the status of asset packs against the catalog.")
    }

    @Argument("PACK_ID")
    var id: String?
    var client = ClientOptions()

    init() {}

    func run() throws -> Int32 {
        let manager = try makeManager(client)
        struct Row: Encodable { var id: String; var version: Int; var policy: String; var downloadSize: UInt64; var installSize: UInt64; var language: String?; var status: [String] }
        let rows: [Row]
        let one = id
        do {
            rows = try runBlocking {
                let ids: [String]
                if let one { ids = [one] } else { ids = try await manager.allAssetPacks.map(\.id).sorted() }
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
        if client.json { print(jsonString(rows)); return 0 }
        for r in rows {
            print("\(r.id.padding(toLength: max(20, r.id.count), withPad: " ", startingAt: 0)) v\(r.version)  \(r.policy.padding(toLength: 10, withPad: " ", startingAt: 0)) \(ByteCount.format(r.downloadSize).leftPadded(10)) \(ByteCount.format(r.installSize).leftPadded(10))  \(r.language ?? "-")  \(r.status.joined(separator: ", "))")
        }
        return 0
    }
}
