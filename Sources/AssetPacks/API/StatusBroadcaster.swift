import Foundation

/// Fans status updates out to every open stream: those for all packs (which never end) and
/// those for one pack (which end after its finished or failed update).
final class StatusBroadcaster: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [UUID: AsyncStream<DownloadStatusUpdate>.Continuation] = [:]
    private var perPack: [UUID: (id: String, continuation: AsyncStream<DownloadStatusUpdate>.Continuation)] = [:]

    func stream() -> AsyncStream<DownloadStatusUpdate> {
        let key = UUID()
        let (stream, continuation) = AsyncStream<DownloadStatusUpdate>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.all.removeValue(forKey: key) } }
        lock.withLock { all[key] = continuation }
        return stream
    }

    func stream(forAssetPackWithID id: String) -> AsyncStream<DownloadStatusUpdate> {
        let key = UUID()
        let (stream, continuation) = AsyncStream<DownloadStatusUpdate>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.perPack.removeValue(forKey: key) } }
        lock.withLock { perPack[key] = (id, continuation) }
        return stream
    }

    func send(_ update: DownloadStatusUpdate) {
        let (everyone, listeners) = lock.withLock { (Array(all.values), perPack.filter { $0.value.id == update.assetPack.id }) }
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
