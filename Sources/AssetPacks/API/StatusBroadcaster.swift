import Foundation

/// Fans status updates out to every open stream: those for all packs (which never end) and
/// those for one pack (which end after its finished or failed update). Each update is made
/// once (its `Progress` shared by every stream) and its `Progress`'s cancellation calls `pause`.
final class StatusBroadcaster: @unchecked Sendable {
    typealias Update = AssetPackManager.DownloadStatusUpdate
    private let lock = NSLock()
    private var all: [UUID: AsyncStream<Update>.Continuation] = [:]
    private var perPack: [UUID: (id: String, continuation: AsyncStream<Update>.Continuation)] = [:]
    private var pauseHandler: (@Sendable (String) -> Void)?

    /// What cancelling a `.downloading` update's `Progress` does with the pack's ID.
    func onPause(_ handler: @escaping @Sendable (String) -> Void) { lock.withLock { pauseHandler = handler } }

    func stream() -> AsyncStream<Update> {
        let key = UUID()
        let (stream, continuation) = AsyncStream<Update>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.all.removeValue(forKey: key) } }
        lock.withLock { all[key] = continuation }
        return stream
    }

    func stream(forAssetPackWithID id: String) -> AsyncStream<Update> {
        let key = UUID()
        let (stream, continuation) = AsyncStream<Update>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.perPack.removeValue(forKey: key) } }
        lock.withLock { perPack[key] = (id, continuation) }
        return stream
    }

    func send(_ event: DownloadEvent) {
        let (everyone, listeners, pause) = lock.withLock { (Array(all.values), perPack.filter { $0.value.id == event.assetPack.id }, pauseHandler) }
        guard !everyone.isEmpty || !listeners.isEmpty else { return }
        let update = event.update(pause: { id in pause?(id) })
        for c in everyone { c.yield(update) }
        for (key, l) in listeners {
            l.continuation.yield(update)
            if update.isTerminal {
                l.continuation.finish()
                lock.withLock { _ = perPack.removeValue(forKey: key) }
            }
        }
    }
}
