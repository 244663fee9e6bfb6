/// Appends little-endian integers and bytes.
struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func append(_ b: [UInt8]) { bytes.append(contentsOf: b) }
    mutating func append<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

/// Reads little-endian integers from bytes with bounds checks; errors name the region and the
/// absolute file offset.
struct ByteReader {
    private let data: [UInt8]
    private(set) var position = 0
    let context: String
    /// The file offset of `data[0]`, for messages.
    let base: UInt64

    init(_ data: [UInt8], context: String, base: UInt64) {
        self.data = data
        self.context = context
        self.base = base
    }

    var remaining: Int { data.count - position }
    var offset: UInt64 { base + UInt64(position) }

    mutating func bytes(_ n: Int) throws(PackError) -> [UInt8] {
        guard n >= 0, n <= remaining else {
            throw .malformed(context, at: offset, "needs \(n) more bytes but only \(remaining) remain")
        }
        defer { position += n }
        return Array(data[position..<position + n])
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(PackError) -> T {
        let size = MemoryLayout<T>.size
        guard size <= remaining else {
            throw .malformed(context, at: offset, "needs \(size) more bytes but only \(remaining) remain")
        }
        var v: T = 0
        for i in 0..<size { v |= T(data[position + i]) << (8 * i) }
        position += size
        return v
    }

    mutating func u16() throws(PackError) -> UInt16 { try integer(UInt16.self) }
    mutating func u32() throws(PackError) -> UInt32 { try integer(UInt32.self) }
    mutating func u64() throws(PackError) -> UInt64 { try integer(UInt64.self) }
}
