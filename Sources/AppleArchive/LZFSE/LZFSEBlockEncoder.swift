/// Gathers matches and literals from LZMatchFinder and writes them as `bvx2` blocks: each block
/// holds at most 10,000 matches and 40,000 literals; its literals go through four interleaved
/// FSE streams and its L, M, D values through three more, all coded with frequency tables
/// normalised from the block's own counts.
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
    private let tables: UnsafeMutablePointer<FSEEncodingTable.Entry>
    private let stream: UnsafeMutablePointer<UInt8>
    private static let streamCapacity = 256 * 1024
    private var matchCount = 0
    private var literalCount = 0
    private var lastDistance = 0

    private static let matchLimit = LZFSEBlockHeader.maxMatches
    private static let literalLimit = LZFSEBlockHeader.maxLiterals - 4

    init(input: UnsafePointer<UInt8>, expectedOutput: Int) {
        self.input = input
        literalLengths = .allocate(capacity: Self.matchLimit)
        matchLengths = .allocate(capacity: Self.matchLimit)
        distances = .allocate(capacity: Self.matchLimit)
        literals = .allocate(capacity: LZFSEBlockHeader.maxLiterals)
        counts = .allocate(capacity: LZFSEBlockHeader.frequencyCount)
        tables = .allocate(capacity: LZFSEBlockHeader.frequencyCount)
        stream = .allocate(capacity: Self.streamCapacity)
        output.reserveCapacity(expectedOutput)
    }

    deinit {
        literalLengths.deallocate()
        matchLengths.deallocate()
        distances.deallocate()
        literals.deallocate()
        counts.deallocate()
        tables.deallocate()
        stream.deallocate()
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
        let literalPayload = encodeLiterals(&header)
        header.literalPayloadSize = literalPayload
        // The literal payload is in `stream`; keep it while the L, M, D payload is written after it.
        let lmdPayload = encodeValues(&header, at: literalPayload)
        header.lmdPayloadSize = lmdPayload
        header.appendV2(to: &output)
        output.append(contentsOf: UnsafeBufferPointer(start: stream, count: literalPayload + lmdPayload))
        matchCount = 0
        literalCount = 0
        lastDistance = 0
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
        for index in 0..<literalCount { literalCounts[Int(literals[index])] += 1 }
    }

    /// Writes the literal streams at the start of `stream`; returns their size.
    private func encodeLiterals(_ header: inout LZFSEBlockHeader) -> Int {
        var writer = FSEBitWriter(base: stream, capacity: Self.streamCapacity)
        let table = UnsafePointer(tables + LZFSEBlockHeader.literalFrequencies.lowerBound)
        var s0 = 0, s1 = 0, s2 = 0, s3 = 0
        var index = literalCount
        // Last literals first, so that the decoder reads the first ones first.
        while index > 0 {
            index -= 4
            writer.encode(Int(literals[index + 3]), &s3, table)
            writer.encode(Int(literals[index + 2]), &s2, table)
            writer.encode(Int(literals[index + 1]), &s1, table)
            writer.encode(Int(literals[index]), &s0, table)
            writer.flush()
        }
        header.literalFinalBits = writer.finish()
        header.literalStates = (s0, s1, s2, s3)
        return writer.count
    }

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
                writer.encode(distanceClass, &dState, distanceTable)
                let matchLength = Int(matchLengths[index])
                let matchClass = LZFSEValueClasses.matchLengthClass(matchLength)
                writer.push(UInt64(matchLength - Int(matchLengthBase[matchClass])), bits: Int(matchLengthExtraBits[matchClass]))
                writer.encode(matchClass, &mState, matchLengthTable)
                let literalLength = Int(literalLengths[index])
                let literalClass = LZFSEValueClasses.literalLengthClass(literalLength)
                writer.push(UInt64(literalLength - Int(literalLengthBase[literalClass])), bits: Int(literalLengthExtraBits[literalClass]))
                writer.encode(literalClass, &lState, literalLengthTable)
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
