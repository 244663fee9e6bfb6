import Foundation

/// The downloaded bytes of one install, split into segments that workers fetch in parallel,
/// each into a file of its own whose length is its progress (so a restarted process knows what
/// it has without any bookkeeping). The assembler waits here for the bytes it needs next.
final class DownloadBoard: @unchecked Sendable {
    struct Segment {
        var ranges: [InstallPlan.Range]
        var file: String
        var start: UInt64 { ranges.first?.downloadOffset ?? 0 }
        var length: UInt64 { ranges.reduce(0) { $0 + $1.length } }
    }

    let segments: [Segment]
    private let condition = NSCondition()
    private var available: [UInt64]
    private var failure: (any Error)?
    /// Bytes that came over the network in this run (for progress and the re-download figure).
    private(set) var fetchedThisRun: UInt64 = 0

    /// Splits `ranges` into at most `parallelism` segments of about equal size, in order.
    init(ranges: [InstallPlan.Range], parallelism: Int, directory: String) {
        let total = ranges.reduce(0) { $0 + $1.length }
        let target = max(1, total / UInt64(max(1, parallelism)))
        var segments: [Segment] = []
        var current: [InstallPlan.Range] = []
        var size: UInt64 = 0
        for r in ranges {
            current.append(r)
            size += r.length
            if size >= target && segments.count < parallelism - 1 {
                segments.append(Segment(ranges: current, file: "\(directory)/segment-\(segments.count)"))
                current = []
                size = 0
            }
        }
        if !current.isEmpty { segments.append(Segment(ranges: current, file: "\(directory)/segment-\(segments.count)")) }
        self.segments = segments
        available = segments.map { s in
            var st = stat()
            return stat(s.file, &st) == 0 ? min(UInt64(st.st_size), s.length) : 0
        }
    }

    /// Bytes already on disk (from this run or an earlier one).
    var downloadedBytes: UInt64 { condition.withLock { available.reduce(0, +) } }
    func presentBytes(inSegment k: Int) -> UInt64 { condition.withLock { available[k] } }

    func added(_ n: UInt64, toSegment k: Int) {
        condition.withLock {
            available[k] += n
            fetchedThisRun += n
            condition.broadcast()
        }
    }

    func fail(_ error: any Error) {
        condition.withLock {
            if failure == nil { failure = error }
            condition.broadcast()
        }
    }

    /// The segment holding download offset `offset`.
    func segment(containing offset: UInt64) -> Int {
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segments[mid].start <= offset { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// Blocks until bytes [offset, offset + length) are on disk; returns the segment and the
    /// position in its file. Throws the first worker failure.
    func wait(for offset: UInt64, length: UInt64) throws -> (segment: Int, fileOffset: UInt64) {
        let k = segment(containing: offset)
        let inFile = offset - segments[k].start
        condition.lock()
        defer { condition.unlock() }
        while available[k] < inFile + length {
            if let failure { throw failure }
            condition.wait()
        }
        return (k, inFile)
    }
}
