/// Paths end to end in one allocation that never moves or grows, read by the `FileEntry`s that
/// name them; written only while a table is decoded, before any entry is handed out.
final class PathBuffer: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var used = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: max(capacity, 1))
    }

    deinit { base.deallocate() }

    /// Copies `bytes` to the end, returning where they start; nil when they do not fit.
    func append(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard bytes.count <= capacity - used else { return nil }
        if let from = bytes.baseAddress { (base + used).update(from: from, count: bytes.count) }
        defer { used += bytes.count }
        return UInt32(used)
    }

    /// A buffer that holds `path` alone.
    static func holding(_ path: String) -> (PathBuffer, UInt32, UInt16) {
        var path = path
        return path.withUTF8 { bytes in
            precondition(bytes.count <= Int(UInt16.max), "a pack path of \(bytes.count) bytes")
            let buffer = PathBuffer(capacity: bytes.count)
            return (buffer, buffer.append(bytes)!, UInt16(bytes.count))
        }
    }
}

/// The buffers of one decoded table: paths go into the current one until it is full, then into
/// a new one, so that nothing is copied as the table grows and each buffer's offsets stay small.
struct PathStore {
    /// How many bytes a buffer takes at most; a longer path takes a buffer of its own size.
    static let bufferSize = 1 << 20
    private var current: PathBuffer
    private let size: Int

    /// A store for about `expected` bytes of paths: small tables take a buffer of their size.
    init(expected: Int) {
        size = min(Self.bufferSize, max(expected, PackPath.maximumLength))
        current = PathBuffer(capacity: size)
    }

    /// The entry for a path of `bytes` (at most `UInt16.max`: a length field's).
    mutating func entry(_ bytes: UnsafeBufferPointer<UInt8>, mode: UInt32, size fileSize: UInt64) -> FileEntry {
        if let start = current.append(bytes) {
            return FileEntry(in: current, start: start, length: UInt16(bytes.count), mode: mode, size: fileSize)
        }
        current = PathBuffer(capacity: max(size, bytes.count))
        return FileEntry(in: current, start: current.append(bytes)!, length: UInt16(bytes.count), mode: mode, size: fileSize)
    }
}
