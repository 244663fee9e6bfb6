import AssetPackFormat
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The chunks the share (`ChunkShareServer`) read and verified in the last few seconds, kept in
/// memory so that clients fetching the same pack at about the same time — a classroom, a LAN
/// party — cost the sharer one read and one SHA-256 per chunk, not one per client. What is kept
/// is only ever bytes that hashed to their digest when read; a chunk is served from here only
/// while the current snapshot still lists it. At most `capacity` bytes (the least recently used
/// go first), and nothing verified longer than `lifetime` ago (served or not meanwhile: a chunk
/// changed on disk stops being sent within that time, and an idle share holds no chunk for
/// long and gives the memory back, `IdleMemory.settle`).
final class RecentChunks: @unchecked Sendable {
    /// One chunk's verified bytes in memory from `malloc`, freed when the last response that
    /// sends them and the cache have let go.
    final class Buffer: @unchecked Sendable {
        let bytes: UnsafeMutableRawBufferPointer
        init(taking bytes: UnsafeMutableRawBufferPointer) { self.bytes = bytes }
        deinit { free(bytes.baseAddress) }
    }

    let capacity: Int
    let lifetime: Duration
    private let lock = NSLock()
    private var entries: [SHA256Digest: (buffer: Buffer, verifiedAt: ContinuousClock.Instant, usedAt: ContinuousClock.Instant)] = [:]
    private var total = 0
    private var purgeScheduled = false

    init(capacity: Int = 32 << 20, lifetime: Duration = .seconds(5)) {
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// The chunk's bytes, if they were verified lately.
    func buffer(for digest: SHA256Digest) -> Buffer? {
        lock.withLock {
            guard let entry = entries[digest] else { return nil }
            let now = ContinuousClock.now
            guard now - entry.verifiedAt < lifetime else { return nil }
            entries[digest]!.usedAt = now
            return entry.buffer
        }
    }

    /// Keeps `buffer` (verified bytes of `digest`), making room by dropping the least recently used.
    func keep(_ buffer: Buffer, for digest: SHA256Digest) {
        let size = buffer.bytes.count
        guard size <= capacity else { return }
        let schedule: Bool = lock.withLock {
            if let old = entries[digest] { total -= old.buffer.bytes.count }
            while total + size > capacity, let oldest = entries.min(by: { $0.value.usedAt < $1.value.usedAt }) {
                total -= oldest.value.buffer.bytes.count
                entries[oldest.key] = nil
            }
            let now = ContinuousClock.now
            entries[digest] = (buffer, now, now)
            total += size
            defer { purgeScheduled = true }
            return !purgeScheduled
        }
        if schedule { schedulePurge() }
    }

    /// Drops everything (the share stops).
    func removeAll() {
        lock.withLock {
            entries = [:]
            total = 0
        }
    }

    /// Bytes held.
    var heldBytes: Int { lock.withLock { total } }

    /// Drops what was verified `lifetime` ago or more once that has passed; again while anything
    /// is left.
    private func schedulePurge() {
        let seconds = Double(lifetime.components.seconds) + Double(lifetime.components.attoseconds) / 1e18
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + seconds) { [weak self] in
            guard let self else { return }
            let (again, emptied) = self.lock.withLock {
                let now = ContinuousClock.now
                let before = self.entries.count
                for (digest, entry) in self.entries where now - entry.verifiedAt >= self.lifetime {
                    self.total -= entry.buffer.bytes.count
                    self.entries[digest] = nil
                }
                self.purgeScheduled = !self.entries.isEmpty
                return (self.purgeScheduled, before > 0 && self.entries.isEmpty)
            }
            if again { self.schedulePurge() } else if emptied { IdleMemory.settle() }
        }
    }
}
