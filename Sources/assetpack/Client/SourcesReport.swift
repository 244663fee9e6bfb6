import AssetPackFormat
import AssetPacks

/// How the client commands print where a pack's bytes came from (`AssetPackSources`).
enum SourcesReport {
    /// One JSON object per pack: its figures and one entry per source.
    static func json(_ sources: [AssetPackSources]) -> [[String: Any]] {
        sources.map { s in
            ["assetPackID": s.assetPackID, "version": s.version, "fetchedBytes": s.fetchedBytes, "savedBytes": s.savedBytes,
             "entries": s.entries.map { e -> [String: Any] in
                 var entry: [String: Any] = ["kind": e.kind.rawValue, "bytes": e.bytes, "savedBytes": e.savedBytes]
                 if let location = e.location { entry["location"] = location }
                 if let demotion = e.demotion { entry["demotion"] = demotion }
                 return entry
             }]
        }
    }

    /// One line per pack: each source and what it gave, and what peers and disk sources saved.
    static func text(_ s: AssetPackSources) -> String {
        let parts = s.entries.map { e -> String in
            let size = ByteCount.format(e.bytes)
            switch e.kind {
            case .mirror: return "\(size) from \(e.location ?? "a mirror")"
            case .patch: return "\(size) of patches from \(e.location ?? "a mirror")"
            case .peer: return "\(size) from peer \(e.location ?? "")" + (e.demotion.map { " (demoted: \($0))" } ?? "")
            case .seed: return "\(size) from seed \(e.location ?? "")"
            case .local: return "\(size) already on disk"
            }
        }
        let saved = s.savedBytes > 0 ? "; saved \(ByteCount.format(s.savedBytes)) of downloads" : ""
        return "  \(s.assetPackID): " + (parts.isEmpty ? "nothing to move" : parts.joined(separator: ", ")) + saved
    }

    /// The agent's figures for the packs `ids` (those it has installed since it started).
    static func fromAgent(_ agent: AgentConnection, ids: [String]) -> [AssetPackSources] {
        ids.compactMap { id in (try? runBlocking { try await agent.assetPack(withID: id).sources }) ?? nil }
    }
}
