import Foundation

/// The frame a part is receiving, kept in a small memory-mapped file of the staging folder
/// (`part-K`), so that a killed process keeps the bytes of a frame it had not finished: the
/// next run adopts them and asks only for the rest. The bytes are copied into the mapping as
/// they arrive, which costs no more than a buffer in memory; the file is reused frame after
/// frame, so the kernel has little to write back.
///
/// Layout: 8 bytes "APFRAME1", the frame's download offset and the bytes present (little-endian
/// UInt64 each), padding to 64, then the bytes. A frame is verified when complete, so a
/// mismatched or damaged file only costs that frame.
final class PartialFrame {
    private static let magic: UInt64 = 0x3145_4D41_5246_5041   // "APFRAME1"
    private static let header = 64
    let path: String
    let capacity: Int
    private let base: UnsafeMutableRawPointer
    private let mappedSize: Int

    init(path: String, capacity: Int) throws {
        self.path = path
        self.capacity = capacity
        mappedSize = Self.header + capacity
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AssetPackManagerError.storage("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
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
        if word(0) != Self.magic { setWord(0, Self.magic); setWord(2, 0) }
    }

    deinit { munmap(base, mappedSize) }

    /// The download offset where the frame starts.
    var start: UInt64 { word(1) }
    var count: Int { Int(word(2)) }
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base + Self.header, count: count) }

    /// The bytes kept for the frame at download offset `offset` (none for another frame).
    func adopt(frameAt offset: UInt64) -> Int {
        guard start == offset, count <= capacity else { begin(at: offset); return 0 }
        return count
    }

    /// Starts a new, empty frame at download offset `offset`.
    func begin(at offset: UInt64) {
        setWord(2, 0)
        setWord(1, offset)
    }

    /// Appends bytes (the caller keeps the frame within `capacity`); the count follows the copy.
    func append(_ buffer: UnsafeRawBufferPointer) {
        guard let source = buffer.baseAddress, !buffer.isEmpty else { return }
        let n = count
        (base + Self.header + n).copyMemory(from: source, byteCount: buffer.count)
        setWord(2, UInt64(n + buffer.count))
    }

    /// Unmaps nothing (that is `deinit`'s) but deletes the file: the part is complete.
    func remove() { unlink(path) }

    private func word(_ i: Int) -> UInt64 { UInt64(littleEndian: base.load(fromByteOffset: i * 8, as: UInt64.self)) }
    private func setWord(_ i: Int, _ v: UInt64) { base.storeBytes(of: v.littleEndian, toByteOffset: i * 8, as: UInt64.self) }
}
