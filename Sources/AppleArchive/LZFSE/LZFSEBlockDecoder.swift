/// Decodes the payload of `bvx1` and `bvx2` blocks. It owns the decoding tables and the literal
/// buffer, allocated once and reused for every block of a stream.
struct LZFSEBlockDecoder: ~Copyable {
    private let literalTable: UnsafeMutablePointer<UInt32>
    private let literalLengthTable: UnsafeMutablePointer<UInt64>
    private let matchLengthTable: UnsafeMutablePointer<UInt64>
    private let distanceTable: UnsafeMutablePointer<UInt64>
    /// The block's literals, with room for wide copies to read past the last one.
    private let literals: UnsafeMutableRawPointer
    private static let literalSlack = 64

    init() {
        literalTable = .allocate(capacity: LZFSEBlockHeader.literalStateCount)
        literalLengthTable = .allocate(capacity: LZFSEBlockHeader.literalLengthStateCount)
        matchLengthTable = .allocate(capacity: LZFSEBlockHeader.matchLengthStateCount)
        distanceTable = .allocate(capacity: LZFSEBlockHeader.distanceStateCount)
        literals = .allocate(byteCount: LZFSEBlockHeader.maxLiterals + Self.literalSlack, alignment: 16)
        literals.initializeMemory(as: UInt8.self, repeating: 0, count: LZFSEBlockHeader.maxLiterals + Self.literalSlack)
    }

    deinit {
        literalTable.deallocate()
        literalLengthTable.deallocate()
        matchLengthTable.deallocate()
        distanceTable.deallocate()
        literals.deallocate()
    }

    /// Decodes the block whose header starts at `blockStart` and whose payload starts at
    /// `payloadStart` into `destination` from `outputStart`; returns the new output position.
    /// The caller has checked that the payload lies inside `source` and that the block's raw
    /// byte count fits in `destination`.
    func decode(_ header: LZFSEBlockHeader, source: UnsafeRawBufferPointer, blockStart: Int, payloadStart: Int,
                destination: UnsafeMutableRawBufferPointer, outputStart: Int) throws(LZFSEProblem) -> Int {
        guard let sourceBase = source.baseAddress, let outputBase = destination.baseAddress else {
            throw LZFSEProblem("empty buffer")
        }
        try buildTables(header)
        try decodeLiterals(header, sourceBase, lowerBound: blockStart, end: payloadStart + header.literalPayloadSize)
        if header.matchCount == 0 {
            guard header.rawByteCount == 0 else {
                throw LZFSEProblem("block has no matches but a raw byte count of \(header.rawByteCount)")
            }
            return outputStart
        }
        let lmdStart = payloadStart + header.literalPayloadSize
        var reader = try FSEBitReader(base: sourceBase, lowerBound: lmdStart, end: lmdStart + header.lmdPayloadSize,
                                      finalBits: header.lmdFinalBits)
        var lState = header.literalLengthState, mState = header.matchLengthState, dState = header.distanceState
        let blockEnd = outputStart + header.rawByteCount
        // Room for the wide copies, which may write 31 bytes past what they copy.
        let wideLimit = destination.count - 32
        let literalEnd = header.literalCount
        var out = outputStart
        var literal = 0
        var distance = 0
        for index in 0..<header.matchCount {
            guard reader.refill() else { throw FSEBitReader.overrun }
            let literalLength = reader.value(&lState, literalLengthTable, stateMask: 63)
            let matchLength = reader.value(&mState, matchLengthTable, stateMask: 63)
            let newDistance = reader.value(&dState, distanceTable, stateMask: 255)
            if newDistance != 0 { distance = newDistance }
            // All these values are small (below 2^32), so wrapping arithmetic cannot wrap.
            let end = out &+ literalLength &+ matchLength
            guard literal &+ literalLength <= literalEnd, end <= blockEnd else {
                throw literal &+ literalLength > literalEnd
                    ? LZFSEProblem("match \(index) takes \(literalLength) literals, only \(literalEnd - literal) remain")
                    : LZFSEProblem("match \(index) writes past the block's raw byte count \(header.rawByteCount)")
            }
            // A distance must reach a byte already written (1 ... out + L); any will do without a match.
            guard UInt(bitPattern: distance &- 1) < UInt(bitPattern: out &+ literalLength) || matchLength == 0 else {
                throw LZFSEProblem("match \(index) reaches \(distance) bytes back, only \(out + literalLength) are written")
            }
            let target = outputBase + out
            if end <= wideLimit {
                ByteCopy.wideCopy(target, literals + literal, count: literalLength)
                ByteCopy.wideMatch(target + literalLength, distance: distance, count: matchLength)
            } else {
                target.copyMemory(from: literals + literal, byteCount: literalLength)
                ByteCopy.exactMatch(target + literalLength, distance: distance, count: matchLength)
            }
            out = end
            literal &+= literalLength
        }
        guard out == blockEnd else {
            throw LZFSEProblem("block decodes to \(out - outputStart) bytes, its header says \(header.rawByteCount)")
        }
        return out
    }

    private func buildTables(_ header: LZFSEBlockHeader) throws(LZFSEProblem) {
        try header.frequencies.withUnsafeBufferPointer { (all: UnsafeBufferPointer<UInt16>) throws(LZFSEProblem) in
            func part(_ range: Range<Int>) -> UnsafeBufferPointer<UInt16> { UnsafeBufferPointer(rebasing: all[range]) }
            let tables: [(String, Range<Int>, Int, Bool)] = [
                ("literal", LZFSEBlockHeader.literalFrequencies, LZFSEBlockHeader.literalStateCount, header.literalCount == 0),
                ("L", LZFSEBlockHeader.literalLengthFrequencies, LZFSEBlockHeader.literalLengthStateCount, header.matchCount == 0),
                ("M", LZFSEBlockHeader.matchLengthFrequencies, LZFSEBlockHeader.matchLengthStateCount, header.matchCount == 0),
                ("D", LZFSEBlockHeader.distanceFrequencies, LZFSEBlockHeader.distanceStateCount, header.matchCount == 0),
            ]
            for (name, range, states, unused) in tables {
                if let problem = FSEDecodingTable.problem(with: part(range), stateCount: states, allowEmpty: unused) {
                    throw LZFSEProblem("\(name) table: \(problem)")
                }
            }
            FSEDecodingTable.buildLiteralTable(part(LZFSEBlockHeader.literalFrequencies), stateCount: LZFSEBlockHeader.literalStateCount,
                                               into: literalTable)
            FSEDecodingTable.buildValueTable(part(LZFSEBlockHeader.literalLengthFrequencies), stateCount: LZFSEBlockHeader.literalLengthStateCount,
                                             extraBits: LZFSEValueClasses.literalLengthExtraBits, bases: LZFSEValueClasses.literalLengthBase,
                                             into: literalLengthTable)
            FSEDecodingTable.buildValueTable(part(LZFSEBlockHeader.matchLengthFrequencies), stateCount: LZFSEBlockHeader.matchLengthStateCount,
                                             extraBits: LZFSEValueClasses.matchLengthExtraBits, bases: LZFSEValueClasses.matchLengthBase,
                                             into: matchLengthTable)
            FSEDecodingTable.buildValueTable(part(LZFSEBlockHeader.distanceFrequencies), stateCount: LZFSEBlockHeader.distanceStateCount,
                                             extraBits: LZFSEValueClasses.distanceExtraBits, bases: LZFSEValueClasses.distanceBase,
                                             into: distanceTable)
        }
    }

    /// Decodes the four interleaved literal streams into `literals`. The stream is read
    /// backwards from `end`; like the reference decoder, its first refill may reach back into
    /// the block's header (a stream of one repeated literal has no payload bytes at all).
    private func decodeLiterals(_ header: LZFSEBlockHeader, _ sourceBase: UnsafeRawPointer,
                                lowerBound: Int, end: Int) throws(LZFSEProblem) {
        if header.literalCount == 0 { return }
        var reader = try FSEBitReader(base: sourceBase, lowerBound: lowerBound, end: end, finalBits: header.literalFinalBits)
        var (s0, s1, s2, s3) = header.literalStates
        let table = UnsafePointer(literalTable)
        let out = literals.assumingMemoryBound(to: UInt8.self)
        let mask = LZFSEBlockHeader.literalStateCount - 1
        var index = 0
        while index < header.literalCount {
            guard reader.refill() else { throw FSEBitReader.overrun }
            out[index] = reader.literal(&s0, table, stateMask: mask)
            out[index + 1] = reader.literal(&s1, table, stateMask: mask)
            out[index + 2] = reader.literal(&s2, table, stateMask: mask)
            out[index + 3] = reader.literal(&s3, table, stateMask: mask)
            index += 4
        }
    }
}
