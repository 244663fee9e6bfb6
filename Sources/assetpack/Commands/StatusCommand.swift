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

    private struct Row: Encodable {
        var id: String; var version: Int; var policy: String; var downloadSize: UInt64; var installSize: UInt64; var language: String?; var status: [String]
        /// Through an agent: its request for the pack (queued, paused, failed or skipped) and why.
        var request: String?; var error: String?
    }

    func run() throws -> Int32 {
        let rows: [Row]
        if let agent = try RootAccess.agent(for: client) { rows = try agentRows(agent) } else { rows = try localRows() }
        if client.json { print(jsonString(rows)); return 0 }
        for r in rows {
            let request = r.request.map { "  [\($0)\(r.error.map { ": \($0)" } ?? "")]" } ?? ""
            print("\(r.id.padding(toLength: max(20, r.id.count), withPad: " ", startingAt: 0)) v\(r.version)  \(r.policy.padding(toLength: 10, withPad: " ", startingAt: 0)) \(ByteCount.format(r.downloadSize).leftPadded(10)) \(ByteCount.format(r.installSize).leftPadded(10))  \(r.language ?? "-")  \(r.status.joined(separator: ", "))\(request)")
        }
        return 0
    }

    private func agentRows(_ agent: AgentConnection) throws -> [Row] {
        let one = id
        do {
            return try runBlocking {
                let packs: [AgentPackDescription]
                if let one { packs = [try await agent.assetPack(withID: one)] } else { packs = try await agent.allAssetPacks().sorted { $0.id < $1.id } }
                return packs.map { p in
                    Row(id: p.id, version: p.version, policy: p.downloadPolicy.name, downloadSize: p.downloadSize, installSize: p.installSize,
                        language: p.language, status: p.status, request: p.request, error: p.error)
                }
            }
        } catch { throw agentFailure(error) }
    }

    private func localRows() throws -> [Row] {
        let manager = try makeManager(client)
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
        return rows
    }
}
