import Foundation

/// Feeds a request's Foundation `Progress` from the status updates of the packs it downloads:
/// one child per pack, weighted by its download size. Updates that come after `finish()` (or
/// that would go backwards) are ignored.
final class ResourceRequestProgress: @unchecked Sendable {
    let progress = Progress(totalUnitCount: 0)
    private let lock = NSLock()
    private var children: [String: Progress] = [:]
    private var listeners: [Task<Void, Never>] = []
    private var finished = false

    /// Starts following `packs`; call before their downloads start, so that no update is missed.
    func follow(_ packs: [AssetPack], manager: AssetPackManager) {
        lock.withLock {
            for pack in packs where children[pack.id] == nil {
                let weight = Int64(max(pack.downloadSize, 1))
                progress.totalUnitCount += weight
                children[pack.id] = Progress(totalUnitCount: weight, parent: progress, pendingUnitCount: weight)
                let updates = manager.statusUpdates(forAssetPackWithID: pack.id)
                listeners.append(Task { [weak self] in
                    for await update in updates {
                        switch update {
                        case .downloading(let p, let d): self?.advance(p.id, to: d.fractionCompleted)
                        case .finished(let p): self?.advance(p.id, to: 1)
                        default: break
                        }
                    }
                })
            }
        }
    }

    private func advance(_ id: String, to fraction: Double) {
        lock.withLock {
            guard !finished, let child = children[id] else { return }
            let done = min(child.totalUnitCount, Int64(Double(child.totalUnitCount) * min(max(fraction, 0), 1)))
            if done > child.completedUnitCount { child.completedUnitCount = done }
        }
    }

    /// Every pack is local: the progress is complete (a request with nothing to download counts
    /// one unit, done) and the listeners stop.
    func finish() {
        lock.withLock {
            finished = true
            if progress.totalUnitCount == 0 { progress.totalUnitCount = 1 }
            for child in children.values { child.completedUnitCount = child.totalUnitCount }
            if children.isEmpty { progress.completedUnitCount = progress.totalUnitCount }
            for task in listeners { task.cancel() }
            listeners = []
        }
    }

    /// Stops following (the request failed); the progress stays where it was.
    func stop() {
        lock.withLock {
            finished = true
            for task in listeners { task.cancel() }
            listeners = []
        }
    }
}
