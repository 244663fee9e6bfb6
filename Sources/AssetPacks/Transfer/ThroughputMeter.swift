import Foundation

/// The rate at which one source (a LAN peer, the repository's mirrors together) delivers bytes,
/// counted over its *busy* time only: the time during which at least one request to it is in
/// flight, from the first byte it sent. Time before the first byte is a stall's business (a
/// timeout's), and time with nothing asked of the source is not its fault, so a peer asked now
/// and then (the second peer, asked only for what the first lacks) is not judged slow for it.
///
/// Requests in flight to the source are counted together: eight connections at 100 kB/s each
/// make 800 kB/s. `rate(over:)` is the rate over the latest stretch of busy time, so a source
/// that slows down mid-way is judged by what it does now.
final class ThroughputMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var inFlight = 0
    /// Busy time accumulated before `busySince`.
    private var busyBefore: Duration = .zero
    /// When the current busy stretch began (nil: idle, or no byte yet).
    private var busySince: ContinuousClock.Instant?
    private var started = false
    private var total: UInt64 = 0
    /// (busy time, bytes so far), one mark per `markSpacing` of busy time at most, oldest first.
    private var marks: [(busy: Duration, bytes: UInt64)] = []
    private let markSpacing: Duration = .milliseconds(20)
    /// Marks older than this much busy time are dropped.
    private let history: Duration

    init(history: Duration = .seconds(30)) { self.history = history }

    /// A request to the source starts.
    func begin(now: ContinuousClock.Instant = .now) {
        lock.withLock {
            inFlight += 1
            if started, busySince == nil { busySince = now }
        }
    }

    /// A request to the source ended (whatever its outcome).
    func end(now: ContinuousClock.Instant = .now) {
        lock.withLock {
            inFlight = max(0, inFlight - 1)
            if inFlight == 0, let since = busySince {
                busyBefore += now - since
                busySince = nil
            }
        }
    }

    /// The source sent `count` more bytes.
    func add(_ count: Int, now: ContinuousClock.Instant = .now) {
        lock.withLock {
            if !started {
                started = true
                marks = [(.zero, 0)]
                if inFlight > 0 { busySince = now }
            }
            total += UInt64(count)
            let busy = busyTime(now)
            if let last = marks.last, busy - last.busy < markSpacing {
                marks[marks.count - 1].bytes = total
            } else {
                marks.append((busy, total))
            }
            if let first = marks.first, busy - first.busy > history + markSpacing * 2 {
                marks.removeFirst(marks.firstIndex { busy - $0.busy <= history } ?? 0)
            }
        }
    }

    /// Bytes the source has sent.
    var bytes: UInt64 { lock.withLock { total } }

    /// Bytes per second over the latest `window` of busy time; nil until the source has been
    /// busy that long since its first byte.
    func rate(over window: Duration, now: ContinuousClock.Instant = .now) -> Double? {
        lock.withLock {
            guard started else { return nil }
            let busy = busyTime(now)
            guard busy >= window, window > .zero else { return nil }
            // The newest mark at least `window` back (the first mark is at busy time 0).
            let from = marks.last { busy - $0.busy >= window } ?? marks[0]
            return Double(total - from.bytes) / (busy - from.busy).seconds
        }
    }

    /// Bytes per second over all the busy time so far; nil before `minimumBytes` have come.
    func averageRate(minimumBytes: UInt64, now: ContinuousClock.Instant = .now) -> Double? {
        lock.withLock {
            let busy = busyTime(now)
            guard total >= minimumBytes, busy > .zero else { return nil }
            return Double(total) / busy.seconds
        }
    }

    private func busyTime(_ now: ContinuousClock.Instant) -> Duration {
        busyBefore + (busySince.map { now - $0 } ?? .zero)
    }
}
