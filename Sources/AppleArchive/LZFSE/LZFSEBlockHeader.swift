/// The header of an LZFSE-compressed block, as read from a `bvx1` or `bvx2` block or as the
/// encoder fills it before writing a `bvx2` block.
///
/// `bvx1` (772 bytes, little-endian): magic, raw byte count, payload byte count, literal count,
/// match count, literal payload bytes, L/M/D payload bytes (u32 each), literal final bits (i32),
/// four literal states (u16), L/M/D final bits (i32), L, M and D states (u16), then the
/// frequency counts as u16: 20 L, 20 M, 64 D, 256 literal, and 2 bytes of padding.
///
/// `bvx2`: magic, raw byte count (u32), then three little-endian u64 of packed fields
/// (bit offset: width):
///   word 0: literal count 0:20, literal payload bytes 20:20, match count 40:20, literal final bits + 7 at 60:3
///   word 1: literal states 0:10, 10:10, 20:10, 30:10, L/M/D payload bytes 40:20, L/M/D final bits + 7 at 60:3
///   word 2: header size in bytes 0:32, L state 32:10, M state 42:10, D state 52:10
/// then the 360 frequency counts in a prefix code read from the low bits of a little-endian bit
/// stream up to the header size (none at all when the header is 32 bytes: all counts zero).
struct LZFSEBlockHeader {
    static let v1Size = 772
    static let v2FixedSize = 32
    static let frequencyCount = 360
    static let literalStateCount = 1024
    static let literalLengthStateCount = 64
    static let matchLengthStateCount = 64
    static let distanceStateCount = 256
    /// The most literals and matches one block may hold.
    static let maxLiterals = 40_000
    static let maxMatches = 10_000

    var rawByteCount = 0
    var literalCount = 0
    var matchCount = 0
    var literalPayloadSize = 0
    var lmdPayloadSize = 0
    var literalFinalBits = 0
    var literalStates: (Int, Int, Int, Int) = (0, 0, 0, 0)
    var lmdFinalBits = 0
    var literalLengthState = 0
    var matchLengthState = 0
    var distanceState = 0
    /// L (20), M (20), D (64) and literal (256) frequency counts, in that order.
    var frequencies = [UInt16](repeating: 0, count: frequencyCount)
    /// Bytes from the magic to the payload.
    var headerSize = 0

    static let literalLengthFrequencies = 0..<20
    static let matchLengthFrequencies = 20..<40
    static let distanceFrequencies = 40..<104
    static let literalFrequencies = 104..<360

    /// Reads a `bvx1` header at `offset` (the magic), knowing `available` bytes follow it.
    static func readV1(_ source: UnsafeRawBufferPointer, at offset: Int) throws(LZFSEProblem) -> LZFSEBlockHeader {
        guard source.count - offset >= v1Size else { throw LZFSEProblem("header needs \(v1Size) bytes, \(source.count - offset) remain") }
        func u32(_ at: Int) -> Int { Int(UInt32(littleEndian: source.loadUnaligned(fromByteOffset: offset + at, as: UInt32.self))) }
        func i32(_ at: Int) -> Int { Int(Int32(littleEndian: source.loadUnaligned(fromByteOffset: offset + at, as: Int32.self))) }
        func u16(_ at: Int) -> Int { Int(UInt16(littleEndian: source.loadUnaligned(fromByteOffset: offset + at, as: UInt16.self))) }
        var header = LZFSEBlockHeader()
        header.rawByteCount = u32(4)
        header.literalCount = u32(12)
        header.matchCount = u32(16)
        header.literalPayloadSize = u32(20)
        header.lmdPayloadSize = u32(24)
        header.literalFinalBits = i32(28)
        header.literalStates = (u16(32), u16(34), u16(36), u16(38))
        header.lmdFinalBits = i32(40)
        header.literalLengthState = u16(44)
        header.matchLengthState = u16(46)
        header.distanceState = u16(48)
        for index in 0..<frequencyCount {
            header.frequencies[index] = UInt16(u16(50 + 2 * index))
        }
        header.headerSize = v1Size
        try header.checkLimits()
        return header
    }

    /// Reads a `bvx2` header at `offset` (the magic).
    static func readV2(_ source: UnsafeRawBufferPointer, at offset: Int) throws(LZFSEProblem) -> LZFSEBlockHeader {
        guard source.count - offset >= v2FixedSize else { throw LZFSEProblem("header needs \(v2FixedSize) bytes, \(source.count - offset) remain") }
        func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: source.loadUnaligned(fromByteOffset: offset + at, as: UInt64.self)) }
        func field(_ word: UInt64, _ shift: UInt64, _ width: UInt64) -> Int { Int((word >> shift) & ((1 << width) - 1)) }
        let word0 = u64(8), word1 = u64(16), word2 = u64(24)
        var header = LZFSEBlockHeader()
        header.rawByteCount = Int(UInt32(littleEndian: source.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
        header.literalCount = field(word0, 0, 20)
        header.literalPayloadSize = field(word0, 20, 20)
        header.matchCount = field(word0, 40, 20)
        header.literalFinalBits = field(word0, 60, 3) - 7
        header.literalStates = (field(word1, 0, 10), field(word1, 10, 10), field(word1, 20, 10), field(word1, 30, 10))
        header.lmdPayloadSize = field(word1, 40, 20)
        header.lmdFinalBits = field(word1, 60, 3) - 7
        header.headerSize = field(word2, 0, 32)
        header.literalLengthState = field(word2, 32, 10)
        header.matchLengthState = field(word2, 42, 10)
        header.distanceState = field(word2, 52, 10)
        guard header.headerSize >= v2FixedSize else { throw LZFSEProblem("header size \(header.headerSize) is below \(v2FixedSize)") }
        guard header.headerSize <= source.count - offset else {
            throw LZFSEProblem("header size \(header.headerSize) runs past the end of the stream (\(source.count - offset) bytes remain)")
        }
        if header.headerSize > v2FixedSize {
            try header.readFrequencies(source, from: offset + v2FixedSize, to: offset + header.headerSize)
        }
        try header.checkLimits()
        return header
    }

    /// The prefix code of the frequency counts, read from the low bits: `00` 0, `10` 1, `001` 2,
    /// `101` 3, `xx011` 4 + xx, `xxxx0111` 8 + xxxx, `x{10}1111` 24 + x{10}. The table gives, for
    /// the low five bits, the code length and the value of the short codes.
    private static let codeLengths: [UInt8] = [2, 3, 2, 5, 2, 3, 2, 8, 2, 3, 2, 5, 2, 3, 2, 14,
                                               2, 3, 2, 5, 2, 3, 2, 8, 2, 3, 2, 5, 2, 3, 2, 14]
    private static let shortCodeValues: [UInt8] = [0, 2, 1, 4, 0, 3, 1, 0, 0, 2, 1, 5, 0, 3, 1, 0,
                                                   0, 2, 1, 6, 0, 3, 1, 0, 0, 2, 1, 7, 0, 3, 1, 0]

    private mutating func readFrequencies(_ source: UnsafeRawBufferPointer, from start: Int, to end: Int) throws(LZFSEProblem) {
        var cursor = start
        var bits: UInt32 = 0
        var bitCount = 0
        for index in 0..<Self.frequencyCount {
            while cursor < end && bitCount <= 24 {
                bits |= UInt32(source[cursor]) << UInt32(bitCount)
                bitCount += 8
                cursor += 1
            }
            let low = Int(bits & 31)
            let length = Int(Self.codeLengths[low])
            guard length <= bitCount else { throw LZFSEProblem("frequency table ends inside the code of count \(index)") }
            let value: UInt32 = switch length {
            case 8: 8 + ((bits >> 4) & 0xf)
            case 14: 24 + ((bits >> 4) & 0x3ff)
            default: UInt32(Self.shortCodeValues[low])
            }
            frequencies[index] = UInt16(value)
            bits >>= UInt32(length)
            bitCount -= length
        }
        guard cursor == end && bitCount < 8 else {
            throw LZFSEProblem("frequency table does not end at the header size (\(end - cursor) bytes and \(bitCount) bits left over)")
        }
    }

    /// Checks the counts against the format's limits (states in range; the frequency tables are
    /// checked when the decoding tables are built).
    private func checkLimits() throws(LZFSEProblem) {
        guard literalCount <= Self.maxLiterals else { throw LZFSEProblem("literal count \(literalCount) exceeds \(Self.maxLiterals)") }
        guard matchCount <= Self.maxMatches else { throw LZFSEProblem("match count \(matchCount) exceeds \(Self.maxMatches)") }
        let states = [literalStates.0, literalStates.1, literalStates.2, literalStates.3]
        guard states.allSatisfy({ $0 < Self.literalStateCount }) else { throw LZFSEProblem("literal state \(states) out of range") }
        guard literalLengthState < Self.literalLengthStateCount, matchLengthState < Self.matchLengthStateCount,
              distanceState < Self.distanceStateCount else {
            throw LZFSEProblem("L/M/D state (\(literalLengthState), \(matchLengthState), \(distanceState)) out of range")
        }
        guard (-7...0).contains(literalFinalBits), (-7...0).contains(lmdFinalBits) else {
            throw LZFSEProblem("final bit counts (\(literalFinalBits), \(lmdFinalBits)) outside -7...0")
        }
    }

    /// The prefix code of one frequency count in a `bvx2` header: (code, length in bits).
    @inline(__always)
    private static func frequencyCode(_ value: UInt32) -> (UInt32, Int) {
        switch value {
        case 0: (0, 2)
        case 1: (2, 2)
        case 2: (1, 3)
        case 3: (5, 3)
        case 4...7: (3 | (value - 4) << 3, 5)
        case 8...23: (7 | (value - 8) << 4, 8)
        default: (15 | (value - 24) << 4, 14)
        }
    }

    /// The size in bytes `appendV2` gives this header.
    var v2Size: Int {
        var bitCount = 0
        for count in frequencies { bitCount += Self.frequencyCode(UInt32(count)).1 }
        return Self.v2FixedSize + (bitCount + 7) / 8
    }

    /// Appends this header as `bvx2`: the fixed 32 bytes, then the coded frequency counts.
    func appendV2(to output: inout [UInt8]) {
        var table: [UInt8] = []
        table.reserveCapacity(2 * Self.frequencyCount)
        var bits: UInt32 = 0
        var bitCount = 0
        for count in frequencies {
            let (code, length) = Self.frequencyCode(UInt32(count))
            bits |= code << UInt32(bitCount)
            bitCount += length
            while bitCount >= 8 {
                table.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
                bitCount -= 8
            }
        }
        if bitCount > 0 { table.append(UInt8(truncatingIfNeeded: bits)) }
        let size = UInt64(Self.v2FixedSize + table.count)
        func put64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) } }
        withUnsafeBytes(of: LZFSEBlockMagic.compressedV2.rawValue.littleEndian) { output.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(rawByteCount).littleEndian) { output.append(contentsOf: $0) }
        put64(UInt64(literalCount) | UInt64(literalPayloadSize) << 20 | UInt64(matchCount) << 40 | UInt64(literalFinalBits + 7) << 60)
        put64(UInt64(literalStates.0) | UInt64(literalStates.1) << 10 | UInt64(literalStates.2) << 20 | UInt64(literalStates.3) << 30
              | UInt64(lmdPayloadSize) << 40 | UInt64(lmdFinalBits + 7) << 60)
        put64(size | UInt64(literalLengthState) << 32 | UInt64(matchLengthState) << 42 | UInt64(distanceState) << 52)
        output.append(contentsOf: table)
    }
}

