import Foundation

/// One client's event stream: frames waiting to be sent, read by the connection's thread, which
/// blocks until there is one. With nothing to send for `keepAliveInterval` it sends a comment
/// line, so that a client that left is noticed (the write fails) and a client that stays sees
/// the stream alive.
final class EventSubscription: LocalHTTPBodyStream, @unchecked Sendable {
    let packID: String?
    static let keepAliveInterval: TimeInterval = 15
    static let maxQueuedFrames = 4096
    private let condition = NSCondition()
    private var frames: [(bytes: [UInt8], progress: Bool)] = []
    /// Bytes of the frame being sent that did not fit the last read.
    private var partial: ArraySlice<UInt8> = []
    private var finished = false
    private var released = false
    private let onClose: (EventSubscription) -> Void

    init(packID: String?, onClose: @escaping (EventSubscription) -> Void) {
        self.packID = packID
        self.onClose = onClose
        // The first bytes go out at once, so that the client knows it is subscribed.
        frames.append((Array(": subscribed\n\n".utf8), false))
    }

    func enqueue(_ frame: [UInt8], progress: Bool, last: Bool) {
        condition.withLock {
            guard !finished else { return }
            if frames.count >= Self.maxQueuedFrames, let i = frames.firstIndex(where: { $0.progress }) { frames.remove(at: i) }
            if frames.count < Self.maxQueuedFrames { frames.append((frame, progress)) }
            if last { finished = true }
            condition.broadcast()
        }
    }

    /// No more frames: the stream ends once those queued are sent.
    func finish() {
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        if partial.isEmpty {
            let deadline = Date().addingTimeInterval(Self.keepAliveInterval)
            while frames.isEmpty && !finished {
                if !condition.wait(until: deadline) { break }
            }
            if let first = frames.first {
                frames.removeFirst()
                partial = first.bytes[...]
            } else if finished {
                return 0
            } else {
                partial = Array(": keep-alive\n\n".utf8)[...]
            }
        }
        let n = min(capacity, partial.count)
        partial.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: n) }
        partial = partial.dropFirst(n)
        if partial.isEmpty { partial = [] }
        return n
    }

    func close() {
        let first: Bool = condition.withLock {
            finished = true
            defer { released = true }
            return !released
        }
        if first { onClose(self) }
    }
}
