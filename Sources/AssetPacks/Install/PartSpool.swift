import AssetPackFormat
import AssetPackTransport
import Foundation

/// The bytes a part has received and not yet placed, in a memory-mapped file of the staging
/// folder (`part-K`): the part's network thread appends what arrives, and its assembling thread
/// takes each frame from there once it is whole, and lets go of it only once its chunk is
/// written. The socket is read while chunks are being written, and a killed process keeps every
/// byte it had read: the next run takes them up and asks only for the rest. Bytes are copied into
/// the mapping as they arrive; the file is reused, so the kernel has little to write back.
///
/// Layout: 8 bytes "APSPOOL1", then three little-endian UInt64 — the download offset of the first
/// byte held, how many bytes are held, and where in the data area the first one lies — padding to
/// 64, then the data area. Frames are verified when whole, so a damaged or stale file costs only
/// the frames it holds.
final class PartSpool: @unchecked Sendable {
    private static let magic: UInt64 = 0x314C_4F4F_5053_5041   // "APSPOOL1"
    private static let header = 64
    let path: String
    private let root: ConfinedDirectory
    private let relative: String
    let capacity: Int
    private let base: UnsafeMutableRawPointer
    private let mappedSize: Int
    private let condition = NSCondition()
    private var failure: (any Error)?
    private var finished = false
    private var closed = false
    /// The assembling side is reading a frame in place: what is held may not move.
    private var pinned = false
    /// The download offset the assembling side waits to see held (it is woken only then).
    private var awaited = UInt64.max
    /// Where the part's download ends: no byte at or past it is taken. Lowered when the part
    /// gives the rest of its stretch to another (`limit(to:)`).
    private var limit: UInt64

    /// `capacity`: at least twice the largest frame, or all the bytes the part downloads, so that
    /// a frame always fits.
    /// `path` is relative to `root`, and opened through it (no link is followed). `end`: the
    /// download offset the part's bytes end at.
    init(root: ConfinedDirectory, path relative: String, capacity: Int, end: UInt64) throws {
        limit = end
        let path = root.display(relative)
        self.path = path
        self.root = root
        self.relative = relative
        self.capacity = capacity
        mappedSize = Self.header + capacity
        let fd = try StorageLayout.confined { () throws(ConfinementError) in try root.open(relative, flags: O_RDWR | O_CREAT, mode: 0o600) }
        defer { Foundation.close(fd) }
        // Blocks are reserved before mapping: a store into a hole of a full file system would
        // kill the process (SIGBUS) instead of failing.
        let reserved = posix_fallocate(fd, 0, off_t(mappedSize))
        guard reserved == 0 else {
            throw AssetPackManagerError.storage("cannot reserve \(mappedSize) bytes for \(path): \(String(cString: strerror(reserved)))")
        }
        guard let p = mmap(nil, mappedSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw AssetPackManagerError.storage("cannot map \(path): \(String(cString: strerror(errno)))")
        }
        base = p
        // A file left by another version or changed by another process starts empty (the
        // offsets it holds are checked, so that no sum of them overflows).
        if word(0) != Self.magic || word(2) > UInt64(capacity) || word(3) > UInt64(capacity) - word(2) || word(1) > UInt64.max - UInt64(capacity) {
            set(start: 0, count: 0, head: 0)
            setWord(0, Self.magic)
        }
    }

    deinit { munmap(base, mappedSize) }

    private var start: UInt64 { word(1) }
    private var count: Int { Int(word(2)) }
    private var head: Int { Int(word(3)) }

    /// The download offset of the first byte not held (where the next request starts).
    var end: UInt64 { condition.withLock { start + UInt64(count) } }

    /// Keeps what an earlier run received from `offset` on (the first byte still to place); when
    /// it holds nothing there, starts empty at `offset`. Returns `end`.
    func resume(at offset: UInt64) -> UInt64 {
        condition.withLock {
            if start <= offset && offset <= start + UInt64(count) {
                let drop = Int(offset - start)
                // Nothing past the part's end (a stale or tampered file may hold more).
                let kept = min(UInt64(count - drop), limit > offset ? limit - offset : 0)
                set(start: offset, count: Int(kept), head: head + drop)
            } else {
                set(start: offset, count: 0, head: 0)
            }
            return start + UInt64(count)
        }
    }

    /// Where the part's download ends now (see `limit(to:)`).
    var downloadEnd: UInt64 { condition.withLock { limit } }

    /// Makes `offset` the end of the part's download, if no byte at or past it is held yet (and
    /// it is not past the current end). Returns whether it did.
    func limit(to offset: UInt64) -> Bool {
        condition.withLock {
            guard start + UInt64(count) <= offset && offset <= limit else { return false }
            limit = offset
            condition.broadcast()
            return true
        }
    }

    /// Appends bytes that follow `end`, waiting while the spool is full, up to the end of the
    /// part's download. Returns how many it took: fewer than given once that end is reached.
    @discardableResult
    func append(_ buffer: UnsafeRawBufferPointer) throws -> Int {
        var done = 0
        while done < buffer.count {
            let reachedLimit = try condition.withLock {
                while true {
                    // The end first: the part may be assembled (and its spool closed) as soon as
                    // the bytes up to it are in, and those this call appended are counted.
                    if start + UInt64(count) >= limit { return true }
                    if let failure { throw failure }
                    if head + count < capacity { break }
                    if head >= capacity / 4 && !pinned {
                        // Move what is held to the front, once a quarter of the room is free there.
                        // (A process killed in between leaves frames that no longer hash right:
                        // they are fetched again.)
                        (base + Self.header).copyMemory(from: base + Self.header + head, byteCount: count)
                        setWord(3, 0)
                        break
                    }
                    condition.wait()
                }
                let n = min(buffer.count - done, capacity - head - count, Int(clamping: limit - start - UInt64(count)))
                (base + Self.header + head + count).copyMemory(from: buffer.baseAddress! + done, byteCount: n)
                setWord(2, UInt64(count + n))
                done += n
                if start + UInt64(count) >= awaited { condition.broadcast() }
                return false
            }
            if reachedLimit { break }
        }
        return done
    }

    /// Runs `body` on download bytes [offset, offset + length) in place, once they have arrived
    /// (they stay put until `body` returns). Nil when the network side finished without them.
    /// Throws the failure that stopped the part, or `.cancelled` soon after `cancellation` is set.
    func withBytes<T>(at offset: UInt64, length: Int, cancellation: CancellationFlag,
                      _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T? {
        let bytes: UnsafeRawBufferPointer? = try condition.withLock {
            awaited = offset + UInt64(length)
            defer { awaited = .max }
            while start + UInt64(count) < offset + UInt64(length) {
                if let failure { throw failure }
                if finished { return nil }
                if cancellation.isCancelled { throw AssetPackManagerError.cancelled }
                _ = condition.wait(until: Date().addingTimeInterval(0.05))
            }
            guard offset >= start else { return nil }
            pinned = true
            return UnsafeRawBufferPointer(start: base + Self.header + head + Int(offset - start), count: length)
        }
        guard let bytes else { return nil }
        defer { condition.withLock { pinned = false; condition.broadcast() } }
        return try body(bytes)
    }

    /// Bytes before `offset` are placed: their room is free again.
    func release(upTo offset: UInt64) {
        condition.withLock {
            guard offset > start else { return }
            let drop = Int(min(offset - start, UInt64(count)))
            set(start: start + UInt64(drop), count: count - drop, head: count == drop ? 0 : head + drop)
            condition.broadcast()
        }
    }

    /// The network side is done (no more bytes will come).
    func finish() { condition.withLock { finished = true; condition.broadcast() } }

    /// The part is assembled: the network side stops at its next bytes.
    func close() {
        condition.withLock {
            closed = true
            if failure == nil { failure = AssetPackManagerError.cancelled }
            condition.broadcast()
        }
    }

    var isClosed: Bool { condition.withLock { closed } }

    /// Stops both sides with `error` (the first one given stays).
    func fail(_ error: any Error) {
        condition.withLock {
            if failure == nil { failure = error }
            condition.broadcast()
        }
    }

    /// Deletes the file: the part is complete.
    func remove() { try? root.removeTree(relative) }

    private func set(start: UInt64, count: Int, head: Int) {
        setWord(2, 0)
        setWord(3, UInt64(head))
        setWord(1, start)
        setWord(2, UInt64(count))
    }

    private func word(_ i: Int) -> UInt64 { UInt64(littleEndian: base.load(fromByteOffset: i * 8, as: UInt64.self)) }
    private func setWord(_ i: Int, _ v: UInt64) { base.storeBytes(of: v.littleEndian, toByteOffset: i * 8, as: UInt64.self) }
}
