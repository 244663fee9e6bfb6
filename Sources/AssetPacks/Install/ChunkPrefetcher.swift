import AssetPackFormat
import Foundation

/// Decodes an install's chunks ahead of the writer. For each window of about `windowBytes` of
/// the content stream, the chunks that come from the network (their downloaded frames) or from
/// the installed previous version are read, decompressed and verified (SHA-256) on `threads`
/// threads while the writer writes the window before, so that decoding and writing overlap.
/// Chunks copied from earlier in the pack are left to the writer (their first use is on disk
/// only once it has written it), and so is any chunk that did not verify (the writer fetches it
/// again). At most three windows are in memory: one written, one ready, one being decoded.
final class ChunkPrefetcher: @unchecked Sendable {
    struct Window {
        var sequences: Range<Int>
        /// Verified bytes per sequence position of the window; nil where the writer resolves it.
        var chunks: [[UInt8]?]
    }

    private let index: PackIndex
    private let plan: InstallPlan
    private let board: DownloadBoard
    private let segmentFiles: [Int32]
    private let previous: ContentStreamReader?
    private let start: Int
    private let windowBytes: UInt64
    private let threads: Int
    private let condition = NSCondition()
    private var ready: Result<Window, any Error>?
    private var stopped = false
    private var finished = false

    init(index: PackIndex, plan: InstallPlan, board: DownloadBoard, segmentFiles: [Int32], previous: ContentStreamReader?,
         start: Int, windowBytes: UInt64 = 8 << 20, threads: Int = min(4, ProcessInfo.processInfo.activeProcessorCount)) {
        self.index = index
        self.plan = plan
        self.board = board
        self.segmentFiles = segmentFiles
        self.previous = previous
        self.start = start
        self.windowBytes = windowBytes
        self.threads = max(1, threads)
    }

    func run() {
        let t = Thread { self.produce() }
        t.stackSize = 1 << 20
        t.start()
    }

    /// The next window in stream order; throws the download failure that stopped decoding.
    func next() throws -> Window {
        condition.lock()
        defer { condition.unlock() }
        while ready == nil { condition.wait() }
        let window = ready!
        ready = nil
        condition.broadcast()
        return try window.get()
    }

    /// Stops decoding (waking a decoder that waits for bytes) and returns once it has stopped,
    /// so that nothing reads the segment files after this.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        let done = finished
        condition.unlock()
        if !done { board.fail(AssetPackManagerError.cancelled) }
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func produce() {
        defer { condition.withLock { finished = true; condition.broadcast() } }
        let decompressors = (0..<threads).map { _ in ZstdDecompressor() }
        let count = index.sequence.count
        var s = start
        while s < count, !condition.withLock({ stopped }) {
            var e = s, bytes: UInt64 = 0
            while e < count && (e == s || bytes + UInt64(index.chunks[Int(index.sequence[e])].uncompressedSize) <= windowBytes) {
                bytes += UInt64(index.chunks[Int(index.sequence[e])].uncompressedSize)
                e += 1
            }
            let slots = DecodedSlots(count: e - s)
            let first = s
            DispatchQueue.concurrentPerform(iterations: threads) { w in
                var i = w
                while i < slots.count {
                    slots.set(i, Result { try self.decode(first + i, decompressor: decompressors[w]) })
                    i += threads
                }
            }
            let window = slots.window(first..<e)
            let handedOver: Bool = condition.withLock {
                while ready != nil && !stopped { condition.wait() }
                if stopped { return false }
                ready = window
                condition.broadcast()
                return true
            }
            guard handedOver, case .success = window else { return }
            s = e
        }
    }

    /// Sequence position `s`'s verified bytes, or nil when the writer must resolve it.
    private func decode(_ s: Int, decompressor: ZstdDecompressor) throws -> [UInt8]? {
        let c = Int(index.sequence[s])
        let entry = index.chunks[c]
        switch plan.sources[s] {
        case .earlier:
            return nil
        case .previous(let p):
            return previous?.verifiedChunk(atSequence: p)
        case .remote(let offset):
            let (k, at) = try board.wait(for: offset, length: UInt64(entry.compressedSize))
            let frame = try readFully(segmentFiles[k], at: at, count: Int(entry.compressedSize))
            return try? ChunkVerifier.open(frame, entry: entry, chunkIndex: c, index: index, decompressor: decompressor)
        }
    }
}

/// One slot per chunk of a window, written by concurrent decoders.
private final class DecodedSlots: @unchecked Sendable {
    private var slots: [Result<[UInt8]?, any Error>?]
    private let lock = NSLock()
    let count: Int
    init(count: Int) { self.count = count; slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<[UInt8]?, any Error>) { lock.withLock { slots[i] = r } }

    /// The window, or the first failure in it.
    func window(_ sequences: Range<Int>) -> Result<ChunkPrefetcher.Window, any Error> {
        lock.withLock {
            var chunks: [[UInt8]?] = []
            chunks.reserveCapacity(count)
            for slot in slots {
                switch slot {
                case .success(let bytes)?: chunks.append(bytes)
                case .failure(let error)?: return .failure(error)
                case nil: return .failure(AssetPackManagerError.cancelled)
                }
            }
            return .success(ChunkPrefetcher.Window(sequences: sequences, chunks: chunks))
        }
    }
}

/// Reads exactly `count` bytes of `fd` at `offset`.
func readFully(_ fd: Int32, at offset: UInt64, count: Int) throws -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
        let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { throw AssetPackManagerError.storage("cannot read downloaded bytes: \(String(cString: strerror(errno)))") }
        done += n
    }
    return out
}
