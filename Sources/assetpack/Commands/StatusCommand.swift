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
        /// Device variants: the variant chosen for this device, why, and the one installed
        /// (absent for packs without variants).
        var variant: String?; var variantReason: String?; var installedVariant: String?
    }

    func run() throws -> Int32 {
        let rows: [Row]
        var freshness: RepositoryFreshness?
        if let agent = try RootAccess.agent(for: client) { rows = try agentRows(agent) } else { (rows, freshness) = try localRows() }
        if client.json { print(jsonString(rows)); return 0 }
        if let freshness { printError(Self.describe(freshness)) }
        for r in rows {
            let request = r.request.map { "  [\($0)\(r.error.map { ": \($0)" } ?? "")]" } ?? ""
            print("\(r.id.padding(toLength: max(20, r.id.count), withPad: " ", startingAt: 0)) v\(r.version)  \(r.policy.padding(toLength: 10, withPad: " ", startingAt: 0)) \(ByteCount.format(r.downloadSize).leftPadded(10)) \(ByteCount.format(r.installSize).leftPadded(10))  \(r.language ?? "-")  \(r.status.joined(separator: ", "))\(request)")
            if let variant = r.variant {
                let installed = r.installedVariant.map { $0 == variant ? "installed" : "installed: \($0); the next update switches" } ?? "not installed"
                print("    variant \(variant) (\(installed)) — \(r.variantReason ?? "")")
            }
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
                        language: p.language, status: p.status, request: p.request, error: p.error,
                        variant: p.variant?.name, variantReason: p.variant?.description)
                }
            }
        } catch { throw agentFailure(error) }
    }

    /// One line on how fresh the view of the repository is (root mode).
    static func describe(_ f: RepositoryFreshness) -> String {
        let head = "repository: root v\(f.rootVersion), timestamp v\(f.timestampVersion), catalog v\(f.catalogVersion); last verified online \(RFC3339.string(f.lastVerified)) (\(Self.span(f.age)) ago)"
        guard f.isStale else { return head + "; timestamp valid until \(RFC3339.string(f.timestampExpires))" }
        return head + "; STALE: the timestamp expired \(Self.span(f.staleFor)) ago (\(RFC3339.string(f.timestampExpires))), the repository has not vouched for this view since"
    }

    /// `3d 4h`, `2h 5m`, `4m 10s`, `40s`: the two largest units.
    static func span(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.rounded(.down))
        let (d, h, m, r) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60, s % 60)
        if d > 0 { return "\(d)d \(h)h" }
        if h > 0 { return "\(h)h \(m)m" }
        if m > 0 { return "\(m)m \(r)s" }
        return "\(r)s"
    }

    private func localRows() throws -> ([Row], RepositoryFreshness?) {
        let manager = try makeManager(client)
        let rows: [Row]
        let one = id
        do {
            rows = try runBlocking {
                let ids: [String]
                if let one { ids = [one] } else { ids = try await manager.catalogPacks.map(\.id).sorted() }
                var rows: [Row] = []
                for id in ids {
                    let pack: AssetPack?
                    var lookup: (any Error)?
                    do { pack = try await manager.catalogPack(withID: id) } catch { pack = nil; lookup = error }
                    let status = await manager.localStatus(ofAssetPackWithID: id)
                    // Neither the catalog nor the device knows it: why the catalog did not say
                    // (not in it, or not reachable on a first launch offline).
                    if status.isEmpty, pack == nil, let lookup { throw lookup }
                    rows.append(Row(id: id, version: pack?.version ?? 0, policy: pack?.downloadPolicy.name ?? "-", downloadSize: UInt64(pack?.downloadSize ?? 0),
                                    installSize: pack?.installSize ?? 0, language: pack?.languageTag, status: status.names,
                                    variant: pack?.variant?.name, variantReason: pack?.variant?.description,
                                    installedVariant: await manager.installedVariant(ofAssetPackWithID: id)))
                }
                return rows
            }
        } catch { throw CLIError.failure("\(error)") }
        let freshness = try runBlocking { try await manager.repositoryFreshness() }
        return (rows, freshness)
    }
}
