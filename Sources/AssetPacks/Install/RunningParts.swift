import AssetPackFormat
import Foundation

/// The parts of an install while they run, and the splits that keep them even: when a part
/// finishes, the running part with the most work left (`InstallPart.work`) gives the second
/// half of its rest to a new part, which has a connection, a spool and a thread of its own. A
/// stretch that decodes slowly (zstd's cost per byte varies fourfold with the content) or whose
/// connection is slow is then shared out instead of finishing alone while the other cores idle.
///
/// The cut lies twice `minimumSplit` of download past every byte the running part's spool
/// holds (what the server has already sent on its connection is then still its own), and the
/// running part gives up the positions after it only if it has not placed them
/// (`PartAssembler.cede`); so each position is placed by exactly one part. A split waits for
/// the parts that have a slot but are still finding where they stand, and for a waiting part
/// while a slot is free for it: a part whose stretch is quick to fetch may finish before a slow
/// one's thread has run at all, and the slow one is the one to cut. A resumed run starts with
/// the parts as they stood at the last split (saved in the staging folder's `parts` file,
/// `InstallPart.encode`), so each part takes up its own spool.
final class RunningParts: @unchecked Sendable {
    private let lock = NSCondition()
    private let index: PackIndex
    private let plan: InstallPlan
    /// `InstallPart.work(index:)`.
    private let work: [UInt64]
    private let minimumSplit: UInt64
    /// Every part so far, by number, as it stands (a split moves one's end down and adds one).
    private var all: [InstallPart]
    private var watchdogs: [PartWatchdog]
    private let makeWatchdog: () -> PartWatchdog
    private var running: [Int: PartAssembler] = [:]
    /// Parts without a slot yet: while any waits and every slot is held, a thread whose part is
    /// done makes room for it instead of splitting another.
    private var waiting: Int
    /// Parts with a slot that are not running yet (`willStart()`): a split waits for them.
    private var starting = 0
    /// Threads holding one of the `slots` (from `willStart()` to `left()`).
    private var holding = 0
    private let slots: Int
    /// Told of every part, in the order of their numbers, after each split.
    private let didSplit: ([InstallPart]) -> Void

    /// `slots`: how many parts may run at once.
    init(_ parts: [InstallPart], index: PackIndex, plan: InstallPlan, minimumSplit: UInt64, slots: Int, watchdog: @escaping () -> PartWatchdog,
         split didSplit: @escaping ([InstallPart]) -> Void) {
        self.slots = slots
        makeWatchdog = watchdog
        self.didSplit = didSplit
        self.index = index
        self.plan = plan
        work = InstallPart.work(index: index)
        self.minimumSplit = minimumSplit
        all = parts
        waiting = parts.count
        watchdogs = parts.map { _ in watchdog() }
    }

    /// Every part as it stands, in stream order.
    var parts: [InstallPart] { lock.withLock { all.sorted { $0.sequences.lowerBound < $1.sequences.lowerBound } } }

    /// Every part's watchdog.
    var allWatchdogs: [PartWatchdog] { lock.withLock { watchdogs } }

    func watchdog(_ k: Int) -> PartWatchdog { lock.withLock { watchdogs[k] } }

    /// A part's thread has a slot: the part is finding where it stands.
    func willStart() {
        lock.withLock {
            waiting -= 1
            starting += 1
            holding += 1
            lock.broadcast()
        }
    }

    /// A thread gives its slot back.
    func left() { lock.withLock { holding -= 1 } }

    /// The part that was starting is running as `k` with `assembler` (a candidate to split), or
    /// could not start (nil: the install is stopping).
    func started(_ k: Int, _ assembler: PartAssembler?) {
        lock.withLock {
            running[k] = assembler
            starting -= 1
            lock.broadcast()
        }
    }

    /// Part `k` has placed all it had.
    func finished(_ k: Int) { _ = lock.withLock { running.removeValue(forKey: k) } }

    /// Cuts the running part with the most work left in two, if each half would have at least
    /// `minimumSplit`: `make` builds the assembler of the second half (its number, the part, its
    /// watchdog), which is returned, numbered, once the running part has ceded those positions.
    /// Nil when no part has enough left, or when the part could not cede them (it reached the
    /// cut, or its spool already holds bytes past it).
    func split(_ make: (Int, InstallPart, PartWatchdog) throws -> PartAssembler) -> (Int, PartAssembler)? {
        lock.withLock {
            while starting > 0 || (waiting > 0 && holding < slots) { lock.wait() }
            var best: (k: Int, assembler: PartAssembler, rest: Range<Int>)?
            for (k, assembler) in running {
                let rest = assembler.remaining
                if best.map({ weight(rest) > weight($0.rest) }) ?? true { best = (k, assembler, rest) }
            }
            guard waiting == 0, let best, weight(best.rest) >= 2 * minimumSplit else { return nil }
            // Half the work left, and twice `minimumSplit` of download past the bytes the part's
            // spool holds: what its server has sent meanwhile (the two sockets' buffers hold up to
            // ~10 MiB on loopback, where the spool is full) is still the part's own, not sent for
            // nothing.
            let (held, overflow) = best.assembler.downloadStart.addingReportingOverflow(2 * minimumSplit)
            guard !overflow else { return nil }
            var m = cut(best.rest, atWork: work[best.rest.lowerBound] + weight(best.rest) / 2)
            for s in m..<best.rest.upperBound {
                guard let d = plan.downloadOffset(s) else { continue }
                if d >= held { break }
                m = s + 1
            }
            guard m > best.rest.lowerBound, m < best.rest.upperBound,
                  work[m] - work[best.rest.lowerBound] >= minimumSplit, work[best.rest.upperBound] - work[m] >= minimumSplit else { return nil }
            let (kept, rest) = best.assembler.part.split(at: m, index: index, plan: plan)
            let k = all.count
            let watchdog = makeWatchdog()
            guard let assembler = try? make(k, rest, watchdog) else { return nil }
            guard best.assembler.cede(keeping: kept, rest: rest) else {
                assembler.spool?.remove()
                return nil
            }
            all[best.k] = kept
            all.append(rest)
            watchdogs.append(watchdog)
            running[k] = assembler
            didSplit(all)
            return (k, assembler)
        }
    }

    private func weight(_ r: Range<Int>) -> UInt64 { work[r.upperBound] - work[r.lowerBound] }

    /// The first position of `r` at which the work done reaches `target`.
    private func cut(_ r: Range<Int>, atWork target: UInt64) -> Int {
        var lo = r.lowerBound, hi = r.upperBound
        while lo < hi {
            let mid = (lo + hi) / 2
            if work[mid] < target { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
