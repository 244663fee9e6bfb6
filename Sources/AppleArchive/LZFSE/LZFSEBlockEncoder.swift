/// Gathers matches and literals from LZMatchFinder and writes them as `bvx2` blocks: each block
/// holds at most 10,000 matches and 40,000 literals; its literals go through four interleaved
/// FSE streams and its L, M, D values through three more, all coded with frequency tables
/// normalised from the block's own counts. A block whose coded size, estimated from those tables
/// before any coding, would not be smaller than its bytes is written as a `bvx-` stored block
/// instead (consecutive ones merged), so incompressible input costs little more than a copy.
struct LZFSEBlockEncoder: LZMatchSink, ~Copyable {
    var maxDistance: Int { LZFSEValueClasses.maxDistance }
    var output: [UInt8] = []

    private let input: UnsafePointer<UInt8>
    private let literalLengths: UnsafeMutablePointer<Int32>
    private let matchLengths: UnsafeMutablePointer<Int32>
    private let distances: UnsafeMutablePointer<Int32>
    private let literals: UnsafeMutablePointer<UInt8>
    /// Counts and tables, reused for each block.
    private let counts: UnsafeMutablePointer<UInt32>
    private let countScratch: UnsafeMutablePointer<UInt32>
    private let tables: UnsafeMutablePointer<FSEEncodingTable.Entry>
    private let stream: UnsafeMutablePointer<UInt8>
    private static let streamCapacity = 256 * 1024
    private var matchCount = 0
    private var literalCount = 0
    private var lastDistance = 0
    /// Where the current block's bytes start in the input: blocks cover it end to end.
    private var blockStart = 0
    /// The output offset of the last block's `bvx-` header while that block ends the output.
    private var openStoredBlock: Int?

    private static let matchLimit = LZFSEBlockHeader.maxMatches
    private static let literalLimit = LZFSEBlockHeader.maxLiterals - 4

    /// The arrays above, carved in this order from one pooled buffer (LZFSEBufferPool).
    private let scratch: UnsafeMutableRawPointer
    private static let scratchLayout: (offsets: [Int], total: Int) = {
        let sizes = [3 * matchLimit * MemoryLayout<Int32>.stride, LZFSEBlockHeader.maxLiterals,
                     (LZFSEBlockHeader.frequencyCount + 1024) * MemoryLayout<UInt32>.stride,
                     LZFSEBlockHeader.frequencyCount * MemoryLayout<FSEEncodingTable.Entry>.stride, streamCapacity]
        var offsets: [Int] = [], total = 0
        for size in sizes {
            offsets.append(total)
            total += (size + 63) & ~63
        }
        return (offsets, total)
    }()

    /// `output` is where the stream goes (its bytes are replaced, its capacity kept).
    init(input: UnsafePointer<UInt8>, output: consuming [UInt8], expectedOutput: Int) {
        self.input = input
        let layout = Self.scratchLayout
        scratch = LZFSEBufferPool.take(layout.total)
        let lengths = (scratch + layout.offsets[0]).bindMemory(to: Int32.self, capacity: 3 * Self.matchLimit)
        literalLengths = lengths
        matchLengths = lengths + Self.matchLimit
        distances = lengths + 2 * Self.matchLimit
        literals = (scratch + layout.offsets[1]).bindMemory(to: UInt8.self, capacity: LZFSEBlockHeader.maxLiterals)
        counts = (scratch + layout.offsets[2]).bindMemory(to: UInt32.self, capacity: LZFSEBlockHeader.frequencyCount + 1024)
        countScratch = counts + LZFSEBlockHeader.frequencyCount
        tables = (scratch + layout.offsets[3]).bindMemory(to: FSEEncodingTable.Entry.self, capacity: LZFSEBlockHeader.frequencyCount)
        stream = (scratch + layout.offsets[4]).bindMemory(to: UInt8.self, capacity: Self.streamCapacity)
        self.output = output
        self.output.removeAll(keepingCapacity: true)
        self.output.reserveCapacity(expectedOutput)
    }

    deinit {
        LZFSEBufferPool.give(scratch, Self.scratchLayout.total)
    }

    mutating func match(literalStart: Int, literalCount count: Int, matchLength: Int, distance: Int) {
        var start = literalStart, remaining = count
        while remaining > LZFSEValueClasses.maxLiteralLength {
            push(start, LZFSEValueClasses.maxLiteralLength, 0, lastDistance > 0 ? lastDistance : 1)
            start += LZFSEValueClasses.maxLiteralLength
            remaining -= LZFSEValueClasses.maxLiteralLength
        }
        var length = matchLength
        while length > LZFSEValueClasses.maxMatchLength {
            push(start, remaining, LZFSEValueClasses.maxMatchLength, distance)
            start += remaining
            remaining = 0
            length -= LZFSEValueClasses.maxMatchLength
        }
        push(start, remaining, length, distance)
    }

    mutating func finish(literalStart: Int, literalCount count: Int) {
        var start = literalStart, remaining = count
        while remaining > 0 {
            let piece = min(remaining, LZFSEValueClasses.maxLiteralLength)
            push(start, piece, 0, lastDistance > 0 ? lastDistance : 1)
            start += piece
            remaining -= piece
        }
        writeBlock()
    }

    @inline(__always)
    private mutating func push(_ literalStart: Int, _ count: Int, _ matchLength: Int, _ distance: Int) {
        if matchCount == Self.matchLimit || literalCount + count > Self.literalLimit { writeBlock() }
        literalLengths[matchCount] = Int32(count)
        matchLengths[matchCount] = Int32(matchLength)
        distances[matchCount] = Int32(distance)
        matchCount += 1
        (literals + literalCount).update(from: input + literalStart, count: count)
        literalCount += count
        lastDistance = distance
    }

    /// Writes the gathered matches and literals as one `bvx2` block and starts the next.
    private mutating func writeBlock() {
        if matchCount == 0 { return }
        var header = LZFSEBlockHeader()
        var rawBytes = 0
        for index in 0..<matchCount { rawBytes += Int(literalLengths[index]) + Int(matchLengths[index]) }
        header.rawByteCount = rawBytes
        // Four literal streams: pad the literals to a multiple of four.
        while literalCount & 3 != 0 {
            literals[literalCount] = 0
            literalCount += 1
        }
        header.literalCount = literalCount
        header.matchCount = matchCount
        // A distance equal to the previous one in the block is coded as 0.
        var previous: Int32 = 0
        for index in 0..<matchCount {
            let distance = distances[index]
            if distance == previous { distances[index] = 0 } else { previous = distance }
        }
        countSymbols()
        header.frequencies.withUnsafeMutableBufferPointer { frequencies in
            for (range, states) in [(LZFSEBlockHeader.literalLengthFrequencies, LZFSEBlockHeader.literalLengthStateCount),
                                    (LZFSEBlockHeader.matchLengthFrequencies, LZFSEBlockHeader.matchLengthStateCount),
                                    (LZFSEBlockHeader.distanceFrequencies, LZFSEBlockHeader.distanceStateCount),
                                    (LZFSEBlockHeader.literalFrequencies, LZFSEBlockHeader.literalStateCount)] {
                FSEEncodingTable.normalise(UnsafeBufferPointer(start: counts + range.lowerBound, count: range.count),
                                           stateCount: states, into: UnsafeMutableBufferPointer(rebasing: frequencies[range]))
                FSEEncodingTable.build(UnsafeBufferPointer(rebasing: frequencies[range]), stateCount: states,
                                       into: tables + range.lowerBound)
            }
        }
        if estimatedSize(header) >= rawBytes + (openStoredBlock == nil ? 8 : 0) {
            writeStored(rawBytes)
            return
        }
        openStoredBlock = nil
        let literalPayload = encodeLiterals(&header)
        header.literalPayloadSize = literalPayload
        // The literal payload is in `stream`; keep it while the L, M, D payload is written after it.
        let lmdPayload = encodeValues(&header, at: literalPayload)
        header.lmdPayloadSize = lmdPayload
        header.appendV2(to: &output)
        output.append(contentsOf: UnsafeBufferPointer(start: stream, count: literalPayload + lmdPayload))
        startNextBlock(after: rawBytes)
    }

    private mutating func startNextBlock(after rawBytes: Int) {
        blockStart += rawBytes
        matchCount = 0
        literalCount = 0
        lastDistance = 0
    }

    /// Writes the block's `rawBytes` input bytes as they are: a `bvx-` block, or more bytes of
    /// the stored block that ends the output.
    private mutating func writeStored(_ rawBytes: Int) {
        if let header = openStoredBlock {
            let stored = output.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: header + 4, as: UInt32.self))) }
            output.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(stored + rawBytes).littleEndian, toByteOffset: header + 4, as: UInt32.self) }
        } else {
            openStoredBlock = output.count
            withUnsafeBytes(of: LZFSEBlockMagic.stored.rawValue.littleEndian) { output.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt32(rawBytes).littleEndian) { output.append(contentsOf: $0) }
        }
        output.append(contentsOf: UnsafeBufferPointer(start: input + blockStart, count: rawBytes))
        startNextBlock(after: rawBytes)
    }

    /// The size the block would take as `bvx2`, from its counts and normalised tables: each coded
    /// symbol costs log2(states / frequency) bits, each L, M, D value its class's extra bits too.
    private func estimatedSize(_ header: LZFSEBlockHeader) -> Int {
        var bits = 0  // in 1/256 bit
        header.frequencies.withUnsafeBufferPointer { frequencies in
            func coded(_ range: Range<Int>, stateBits: Int, extraBits: [UInt8]? = nil) {
                for symbol in range where counts[symbol] > 0 {
                    let cost = stateBits << 8 - Int(Self.log2Table[Int(frequencies[symbol])])
                    let extra = extraBits.map { Int($0[symbol - range.lowerBound]) << 8 } ?? 0
                    bits += Int(counts[symbol]) * (cost + extra)
                }
            }
            coded(LZFSEBlockHeader.literalFrequencies, stateBits: 10)
            coded(LZFSEBlockHeader.literalLengthFrequencies, stateBits: 6, extraBits: LZFSEValueClasses.literalLengthExtraBits)
            coded(LZFSEBlockHeader.matchLengthFrequencies, stateBits: 6, extraBits: LZFSEValueClasses.matchLengthExtraBits)
            coded(LZFSEBlockHeader.distanceFrequencies, stateBits: 8, extraBits: LZFSEValueClasses.distanceExtraBits)
        }
        return header.v2Size + 8 + bits >> 11
    }

    /// log2(f) in 1/256 for f in 0...1024 (0 for 0, never used).
    private static let log2Table: [UInt16] = (0...1024).map { f in
        guard f > 0 else { return 0 }
        // The integer part from the bit length, the fraction by repeated squaring.
        let whole = Int.bitWidth - 1 - f.leadingZeroBitCount
        var x = Double(f) / Double(1 << whole), fraction = 0
        for bit in (0..<8).reversed() {
            x *= x
            if x >= 2 { x /= 2; fraction |= 1 << bit }
        }
        return UInt16(whole << 8 | fraction)
    }

    private func countSymbols() {
        counts.initialize(repeating: 0, count: LZFSEBlockHeader.frequencyCount)
        let literalLengthCounts = counts + LZFSEBlockHeader.literalLengthFrequencies.lowerBound
        let matchLengthCounts = counts + LZFSEBlockHeader.matchLengthFrequencies.lowerBound
        let distanceCounts = counts + LZFSEBlockHeader.distanceFrequencies.lowerBound
        let literalCounts = counts + LZFSEBlockHeader.literalFrequencies.lowerBound
        for index in 0..<matchCount {
            literalLengthCounts[LZFSEValueClasses.literalLengthClass(Int(literalLengths[index]))] += 1
            matchLengthCounts[LZFSEValueClasses.matchLengthClass(Int(matchLengths[index]))] += 1
            distanceCounts[LZFSEValueClasses.distanceClass(Int(distances[index]))] += 1
        }
        // Four histograms, so that runs of one byte do not wait on the same counter.
        let partial = countScratch
        partial.initialize(repeating: 0, count: 1024)
        var index = 0
        while index + 4 <= literalCount {
            partial[Int(literals[index])] += 1
            partial[256 + Int(literals[index + 1])] += 1
            partial[512 + Int(literals[index + 2])] += 1
            partial[768 + Int(literals[index + 3])] += 1
            index += 4
        }
        while index < literalCount { partial[Int(literals[index])] += 1; index += 1 }
        for symbol in 0..<256 { literalCounts[symbol] = partial[symbol] + partial[256 + symbol] + partial[512 + symbol] + partial[768 + symbol] }
    }

    /// Writes the literal streams at the start of `stream`; returns their size. The hottest loop
    /// of the encoder: four symbols (at most 40 bits) go into the accumulator between stores,
    /// with the bit writer's rules (FSEBitWriter) kept in registers. All arithmetic is on UInt64
    /// with wrapping operators: every value stays in range (FSEEncodingTable.Entry), so there is
    /// nothing to check, and no conversion between signed and unsigned in the loop.
    private func encodeLiterals(_ header: inout LZFSEBlockHeader) -> Int {
        precondition(literalCount / 4 * 5 + 16 <= Self.streamCapacity, "literal stream outgrew its buffer")
        let table = UnsafeRawPointer(tables + LZFSEBlockHeader.literalFrequencies.lowerBound)
        let stateCount = UInt64(LZFSEBlockHeader.literalStateCount)
        var s0: UInt64 = 0, s1: UInt64 = 0, s2: UInt64 = 0, s3: UInt64 = 0
        var accumulator: UInt64 = 0, pending: UInt64 = 0
        var out = UnsafeMutableRawPointer(stream)
        let source = UnsafeRawPointer(literals)
        var index = literalCount
        let masks = Self.lowBitMasks
        // Last literals first, so that the decoder reads the first ones first.
        while index > 0 {
            index &-= 4
            let four = UInt64(UInt32(littleEndian: source.loadUnaligned(fromByteOffset: index, as: UInt32.self)))
            // One symbol: its entry's two halves sign-extended (Entry is two Int32), the bit count
            // from the state, the state's low bits out, the next state.
            let e3 = table.load(fromByteOffset: Int(truncatingIfNeeded: (four &>> 24) &<< 3), as: UInt64.self)
            let b3 = (s3 &+ UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: e3)))) &>> 16
            accumulator |= (s3 & masks[Int(truncatingIfNeeded: b3)]) &<< pending
            pending &+= b3
            s3 = ((s3 &+ stateCount) &>> b3) &+ UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: e3 &>> 32)))
            let e2 = table.load(fromByteOffset: Int(truncatingIfNeeded: ((four &>> 16) & 0xff) &<< 3), as: UInt64.self)
            let b2 = (s2 &+ UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: e2)))) &>> 16
            accumulator |= (s2 & masks[Int(truncatingIfNeeded: b2)]) &<< pending
            pending &+= b2
            s2 = ((s2 &+ stateCount) &>> b2) &+ UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: e2 &>> 32)))
            let e1 = table.load(fromByteOffset: Int(truncatingIfNeeded: ((four &>> 8) & 0xff) &<< 3), as: UInt64.self)
            let b1 = (s1 &+ UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: e1)))) &>> 16
            accumulator |= (s1 & masks[Int(truncatingIfNeeded: b1)]) &<< pending
            pending &+= b1
            s1 = ((s1 &+ stateCount) &>> b1) &+ UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: e1 &>> 32)))
            let e0 = table.load(fromByteOffset: Int(truncatingIfNeeded: (four & 0xff) &<< 3), as: UInt64.self)
            let b0 = (s0 &+ UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: e0)))) &>> 16
            accumulator |= (s0 & masks[Int(truncatingIfNeeded: b0)]) &<< pending
            pending &+= b0
            s0 = ((s0 &+ stateCount) &>> b0) &+ UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: e0 &>> 32)))
            out.storeBytes(of: accumulator.littleEndian, as: UInt64.self)
            let bytes = pending &>> 3
            out += Int(truncatingIfNeeded: bytes)
            accumulator = accumulator &>> (bytes &<< 3)
            pending &= 7
        }
        var count = out - UnsafeMutableRawPointer(stream)
        var finalBits = 0
        if pending > 0 {
            out.storeBytes(of: accumulator.littleEndian, as: UInt64.self)
            count += 1
            finalBits = Int(pending) - 8
        }
        header.literalFinalBits = finalBits
        header.literalStates = (Int(s0), Int(s1), Int(s2), Int(s3))
        return count
    }

    /// `lowBitMasks[n]` keeps the low n bits (n ≤ 16, the most a state emits): a load, where
    /// computing the mask takes three instructions around a shift by a variable count.
    nonisolated(unsafe) private static let lowBitMasks: UnsafePointer<UInt64> = {
        let masks = UnsafeMutablePointer<UInt64>.allocate(capacity: 17)
        for bits in 0...16 { masks[bits] = (1 << UInt64(bits)) - 1 }
        return UnsafePointer(masks)
    }()

    /// Writes the L, M, D stream into `stream` from `start`, after 8 zero bytes that let the
    /// decoder fill its window; returns its size.
    private func encodeValues(_ header: inout LZFSEBlockHeader, at start: Int) -> Int {
        (stream + start).initialize(repeating: 0, count: 8)
        var writer = FSEBitWriter(base: stream + start + 8, capacity: Self.streamCapacity - start - 8)
        let literalLengthTable = UnsafePointer(tables + LZFSEBlockHeader.literalLengthFrequencies.lowerBound)
        let matchLengthTable = UnsafePointer(tables + LZFSEBlockHeader.matchLengthFrequencies.lowerBound)
        let distanceTable = UnsafePointer(tables + LZFSEBlockHeader.distanceFrequencies.lowerBound)
        var lState = 0, mState = 0, dState = 0
        LZFSEValueClasses.distanceBase.withUnsafeBufferPointer { distanceBase in
        LZFSEValueClasses.distanceExtraBits.withUnsafeBufferPointer { distanceExtraBits in
        LZFSEValueClasses.matchLengthBase.withUnsafeBufferPointer { matchLengthBase in
        LZFSEValueClasses.matchLengthExtraBits.withUnsafeBufferPointer { matchLengthExtraBits in
        LZFSEValueClasses.literalLengthBase.withUnsafeBufferPointer { literalLengthBase in
        LZFSEValueClasses.literalLengthExtraBits.withUnsafeBufferPointer { literalLengthExtraBits in
            var index = matchCount
            while index > 0 {
                index -= 1
                let distance = Int(distances[index])
                let distanceClass = LZFSEValueClasses.distanceClass(distance)
                writer.push(UInt64(distance - Int(distanceBase[distanceClass])), bits: Int(distanceExtraBits[distanceClass]))
                writer.encode(distanceClass, &dState, distanceTable, stateCount: LZFSEBlockHeader.distanceStateCount)
                let matchLength = Int(matchLengths[index])
                let matchClass = LZFSEValueClasses.matchLengthClass(matchLength)
                writer.push(UInt64(matchLength - Int(matchLengthBase[matchClass])), bits: Int(matchLengthExtraBits[matchClass]))
                writer.encode(matchClass, &mState, matchLengthTable, stateCount: LZFSEBlockHeader.matchLengthStateCount)
                let literalLength = Int(literalLengths[index])
                let literalClass = LZFSEValueClasses.literalLengthClass(literalLength)
                writer.push(UInt64(literalLength - Int(literalLengthBase[literalClass])), bits: Int(literalLengthExtraBits[literalClass]))
                writer.encode(literalClass, &lState, literalLengthTable, stateCount: LZFSEBlockHeader.literalLengthStateCount)
                writer.flush()
            }
        }}}}}}
        header.lmdFinalBits = writer.finish()
        header.literalLengthState = lState
        header.matchLengthState = mState
        header.distanceState = dState
        return 8 + writer.count
    }
}
