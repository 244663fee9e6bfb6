import AssetPackFormat

/// The opt-in storage budget (`Configuration.storageBudget`): before a download starts, decides
/// which installed on-demand packs to evict so that the root's install sizes (uncompressed) stay
/// within the budget — lowest preservation priority first, then least recently used — or refuses
/// the download when even evicting every candidate would not make room. Decides only; the
/// manager removes the packs it returns.
struct StorageBudget: Sendable {
    var budget: UInt64

    /// The packs to evict so that `pack` fits next to `installed` and the packs `downloading`
    /// (which replace any installed version of theirs, as `pack` replaces its own). Packs with a
    /// download under way or paused, or in use by an open resource request (`busy`), and packs that are not on-demand are never chosen.
    func evictions(for pack: AssetPack, installed: [InstalledPack], downloading: [AssetPack],
                   busy: Set<String>) throws(AssetPackManagerError) -> [InstalledPack] {
        let replaced = Set(downloading.map(\.id)).union([pack.id])
        let kept = installed.filter { !replaced.contains($0.id) }
        var used = kept.reduce(UInt64(0)) { $0 + $1.installSize }
        used += downloading.filter { $0.id != pack.id }.reduce(UInt64(0)) { $0 + $1.installSize }
        let needed = used + pack.installSize
        guard needed > budget else { return [] }
        let candidates = kept
            .filter { if case .onDemand = $0.downloadPolicy { !busy.contains($0.id) } else { false } }
            .sorted { ($0.preservationPriority, $0.lastUsed, $0.id) < ($1.preservationPriority, $1.lastUsed, $1.id) }
        var chosen: [InstalledPack] = []
        var remaining = needed
        for candidate in candidates where remaining > budget {
            chosen.append(candidate)
            remaining -= candidate.installSize
        }
        guard remaining <= budget else {
            throw .storageBudgetExceeded(assetPackID: pack.id, needed: needed, budget: budget,
                                         evictable: candidates.reduce(0) { $0 + $1.installSize })
        }
        return chosen
    }
}
