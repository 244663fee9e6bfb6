/// Reads an FSE bit stream from its end towards its start. The writer packs values upwards from
/// bit 0 and stores whole bytes forwards, so the last value written sits in the highest bits of
/// the stream's last bytes; this reader keeps between 56 and 63 bits in a 64-bit window and
/// takes values from its top. It never reads below `lowerBound` nor at or above the stream's end.
struct FSEBitReader {
    private let base: UnsafeRawPointer
    private let lowerBound: Int
    /// The offset of the lowest byte already in the window.
    private var position: Int
    private var window: UInt64
    private var available: Int

    /// Starts at `end`, the offset just past the stream in `base`. `finalBits` (-7...0) is how
    /// many bits of the stream's last byte the writer left unused, negated.
    init(base: UnsafeRawPointer, lowerBound: Int, end: Int, finalBits: Int) throws(LZFSEProblem) {
        guard (-7...0).contains(finalBits) else { throw LZFSEProblem("final bit count \(finalBits) is outside -7...0") }
        self.base = base
        self.lowerBound = lowerBound
        if finalBits != 0 {
            guard end - lowerBound >= 8 else { throw LZFSEProblem("bit stream is shorter than 8 bytes") }
            position = end - 8
            window = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            available = 64 + finalBits
        } else {
            guard end - lowerBound >= 7 else { throw LZFSEProblem("bit stream is shorter than 7 bytes") }
            position = end - 7
            let low = UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
            let high = UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: position + 3, as: UInt32.self)))
            window = low | high << 24
            available = 56
        }
        guard window &>> UInt64(available) == 0 else {
            throw LZFSEProblem("unused bits at the end of the bit stream are not zero")
        }
    }

    /// Tops the window up to at least 56 bits; false when the stream runs past its start.
    @inline(__always)
    mutating func refill() -> Bool {
        let bits = (63 &- available) & ~7
        if bits == 0 { return true }
        let newPosition = position &- (bits &>> 3)
        guard newPosition >= lowerBound else { return false }
        position = newPosition
        let incoming = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: newPosition, as: UInt64.self))
        window = window &<< UInt64(truncatingIfNeeded: bits) | (incoming & ((1 &<< UInt64(truncatingIfNeeded: bits)) &- 1))
        available &+= bits
        return true
    }

    static let overrun = LZFSEProblem("bit stream runs past its start")

    /// Takes the top `count` bits (0...available) of the window.
    @inline(__always)
    mutating func take(_ count: Int) -> UInt64 {
        available &-= count
        let value = window &>> UInt64(truncatingIfNeeded: available)
        window &= (1 &<< UInt64(truncatingIfNeeded: available)) &- 1
        return value
    }

    /// Decodes one literal with `table` (see FSEDecodingTable.buildLiteralTable), moving `state`.
    @inline(__always)
    mutating func literal(_ state: inout Int, _ table: UnsafePointer<UInt32>, stateMask: Int) -> UInt8 {
        let entry = table[state]
        let bits = take(Int(truncatingIfNeeded: entry & 0xff))
        state = (Int(truncatingIfNeeded: entry >> 16) &+ Int(truncatingIfNeeded: bits)) & stateMask
        return UInt8(truncatingIfNeeded: entry >> 8)
    }

    /// Decodes one L, M or D value with `table` (see FSEDecodingTable.buildValueTable), moving `state`.
    @inline(__always)
    mutating func value(_ state: inout Int, _ table: UnsafePointer<UInt64>, stateMask: Int) -> Int {
        let entry = table[state]
        let extraBits = UInt64((entry >> 8) & 0xff)
        let bits = take(Int(truncatingIfNeeded: entry & 0xff))
        state = (Int(truncatingIfNeeded: (entry >> 16) & 0xffff) &+ Int(truncatingIfNeeded: bits &>> extraBits)) & stateMask
        return Int(truncatingIfNeeded: entry >> 32) &+ Int(truncatingIfNeeded: bits & ((1 &<< extraBits) &- 1))
    }
}
