/// Appends little-endian integers and bytes.
struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func append(_ b: [UInt8]) { bytes.append(contentsOf: b) }
    mutating func append<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }
    /// An unsigned LEB128 varint: 7 bits per byte, low bits first, the high bit set on every
    /// byte but the last; always the shortest form.
    mutating func appendVarint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
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
    var offset: UInt64 { base.saturatingAdding(UInt64(position)) }

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

    /// An unsigned LEB128 varint in its shortest form (at most 10 bytes); a longer form, one
    /// that overflows 64 bits or one cut off by the end is an error naming its offset.
    mutating func varint() throws(PackError) -> UInt64 {
        let at = offset
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < data.count else { throw .malformed(context, at: at, "varint runs past the end") }
            let b = data[position]
            position += 1
            guard shift < 63 || (shift == 63 && b <= 1) else { throw .malformed(context, at: at, "varint overflows 64 bits") }
            v |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 {
                guard b != 0 || shift == 0 else { throw .malformed(context, at: at, "varint is not in its shortest form") }
                return v
            }
            shift += 7
        }
    }

    /// `n` bytes without copying them out.
    mutating func slice(_ n: Int) throws(PackError) -> ArraySlice<UInt8> {
        guard n >= 0, n <= remaining else {
            throw .malformed(context, at: offset, "needs \(n) more bytes but only \(remaining) remain")
        }
        defer { position += n }
        return data[position..<position + n]
    }

    mutating func u16() throws(PackError) -> UInt16 { try integer(UInt16.self) }
    mutating func u32() throws(PackError) -> UInt32 { try integer(UInt32.self) }
    mutating func u64() throws(PackError) -> UInt64 { try integer(UInt64.self) }
}

extension UInt64 {
    /// `self + n`, or `UInt64.max` past it: for file offsets that only name a place in an error
    /// message, where a hostile figure (an index offset near the top of the range) must give a
    /// clear error, not a trap.
    package func saturatingAdding(_ n: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(n)
        return overflow ? .max : sum
    }
}
