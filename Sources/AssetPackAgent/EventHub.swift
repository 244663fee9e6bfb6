import AssetPacks
import Foundation

/// Fans the manager's status updates out to every open event stream (`GET /v1/events`), as
/// server-sent events. Each subscriber has a bounded buffer of its own, so a slow or gone client
/// holds up no one: when its buffer is full the oldest progress events are dropped.
final class EventHub: @unchecked Sendable {
    private let lock = NSLock()
    private var subscribers: [ObjectIdentifier: EventSubscription] = [:]
    private var closed = false

    var count: Int { lock.withLock { subscribers.count } }

    /// A new stream of every event from now on (only those of `packID` if given; that stream
    /// ends after the pack's finished or failed event). Nil once the hub is closed.
    func subscribe(packID: String?) -> EventSubscription? {
        let subscription = EventSubscription(packID: packID) { [weak self] s in self?.remove(s) }
        return lock.withLock {
            guard !closed else { return nil }
            subscribers[ObjectIdentifier(subscription)] = subscription
            return subscription
        }
    }

    func publish(_ update: DownloadStatusUpdate) {
        let listeners = lock.withLock { Array(subscribers.values) }
        guard !listeners.isEmpty else { return }  // nothing to encode for
        let event = AgentEvent(update)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601   // a refused catalog's dates, as in error replies
        guard let data = try? encoder.encode(event) else { return }
        let frame = Array("event: \(event.event)\ndata: ".utf8) + Array(data) + Array("\n\n".utf8)
        let terminal = event.event == "finished" || event.event == "failed"
        for s in listeners where s.packID == nil || s.packID == event.pack.id {
            s.enqueue(frame, progress: event.event == "downloading", last: terminal && s.packID != nil)
        }
    }

    /// Ends every stream (each sends what it holds, then completes) and refuses new ones.
    func close() {
        let all = lock.withLock {
            closed = true
            return Array(subscribers.values)
        }
        for s in all { s.finish() }
    }

    private func remove(_ s: EventSubscription) {
        _ = lock.withLock { subscribers.removeValue(forKey: ObjectIdentifier(s)) }
    }
}
