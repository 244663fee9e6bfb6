/// Writes an FSE bit stream forwards: values are packed upwards from bit 0 of a 64-bit
/// accumulator and whole bytes are stored as they fill, so a reader starting at the end gets
/// them back last-written first (see FSEBitReader).
struct FSEBitWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0
    private var accumulator: UInt64 = 0
    private var pending = 0

    /// Writes into `base`, which must hold the stream plus 8 bytes of slack.
    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Adds the low `bits` bits of `value` (the others zero); at most 56 bits between flushes.
    @inline(__always)
    mutating func push(_ value: UInt64, bits: Int) {
        accumulator |= value &<< UInt64(pending)
        pending += bits
    }

    /// Stores the whole bytes gathered so far.
    @inline(__always)
    mutating func flush() {
        precondition(count + 8 <= capacity, "FSE bit stream outgrew its buffer")
        UnsafeMutableRawPointer(base + count).storeBytes(of: accumulator.littleEndian, as: UInt64.self)
        let bytes = pending >> 3
        count += bytes
        accumulator = bytes == 8 ? 0 : accumulator &>> UInt64(bytes * 8)
        pending &= 7
    }

    /// Stores the last partial byte; returns the final bit count the header records (-7...0:
    /// minus the unused high bits of the last byte).
    mutating func finish() -> Int {
        flush()
        if pending == 0 { return 0 }
        count += 1
        let finalBits = pending - 8
        accumulator = 0
        pending = 0
        return finalBits
    }

    /// Encodes `symbol` with `table` (built for `stateCount` states), moving `state` (see
    /// FSEEncodingTable.Entry).
    @inline(__always)
    mutating func encode(_ symbol: Int, _ state: inout Int, _ table: UnsafePointer<FSEEncodingTable.Entry>, stateCount: Int) {
        let entry = table[symbol]
        let bits = (state &+ Int(entry.bitsDelta)) &>> 16
        push(UInt64(truncatingIfNeeded: state & ((1 &<< bits) &- 1)), bits: bits)
        state = (state &+ stateCount) &>> bits &+ Int(entry.stateDelta)
    }
}
