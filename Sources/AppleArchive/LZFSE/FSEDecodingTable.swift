/// Builds the tables that turn an FSE state into a symbol, the number of bits to read for the next
/// state, and the base of that next state. The states of each symbol are laid out in symbol order;
/// the first states of a symbol read one bit more than the rest, so that every state maps back
/// into `0..<stateCount`.
enum FSEDecodingTable {
    /// Checks a normalised frequency table: every count at most `stateCount` and the counts
    /// summing to exactly `stateCount` (a table that is never used may be all zeros, when
    /// `allowEmpty`). Returns why it is invalid, or nil.
    static func problem(with frequencies: UnsafeBufferPointer<UInt16>, stateCount: Int, allowEmpty: Bool) -> String? {
        var sum = 0
        for count in frequencies { sum += Int(count) }
        if sum == stateCount { return nil }
        if sum == 0 && allowEmpty { return nil }
        return "frequency counts sum to \(sum), not \(stateCount)"
    }

    /// Calls `body(symbol, bits, delta)` for every state in order. The table must have passed
    /// `problem(with:)`.
    @inline(__always)
    private static func forEachState(_ frequencies: UnsafeBufferPointer<UInt16>, stateCount: Int,
                                     _ body: (_ symbol: Int, _ bits: Int, _ delta: Int) -> Void) {
        let stateBits = Int.bitWidth - 1 - stateCount.leadingZeroBitCount
        for symbol in frequencies.indices {
            let count = Int(frequencies[symbol])
            if count == 0 { continue }
            // The shift that brings count into [stateCount, 2 * stateCount).
            let shift = stateBits - (Int.bitWidth - 1 - count.leadingZeroBitCount)
            let widerStates = ((2 * stateCount) >> shift) - count
            for j in 0..<count {
                if j < widerStates {
                    body(symbol, shift, ((count + j) << shift) - stateCount)
                } else {
                    body(symbol, shift - 1, (j - widerStates) << (shift - 1))
                }
            }
        }
    }

    /// Fills `table[0..<stateCount]` for the literal stream: each entry packs the bits to read
    /// (bits 0-7), the literal byte (8-15) and the next state's base (16-31).
    static func buildLiteralTable(_ frequencies: UnsafeBufferPointer<UInt16>, stateCount: Int,
                                  into table: UnsafeMutablePointer<UInt32>) {
        table.initialize(repeating: 0, count: stateCount)
        var state = 0
        forEachState(frequencies, stateCount: stateCount) { symbol, bits, delta in
            table[state] = UInt32(bits) | UInt32(symbol) << 8 | UInt32(delta) << 16
            state += 1
        }
    }

    /// Fills `table[0..<stateCount]` for an L, M or D stream: each entry packs the state bits plus
    /// the class's extra bits (bits 0-7), the extra bits alone (8-15), the next state's base
    /// (16-31) and the class's base value (32-63).
    static func buildValueTable(_ frequencies: UnsafeBufferPointer<UInt16>, stateCount: Int,
                                extraBits: [UInt8], bases: [Int32], into table: UnsafeMutablePointer<UInt64>) {
        table.initialize(repeating: 0, count: stateCount)
        var state = 0
        forEachState(frequencies, stateCount: stateCount) { symbol, bits, delta in
            let extra = UInt64(extraBits[symbol])
            table[state] = (UInt64(bits) + extra) | extra << 8 | UInt64(delta) << 16 | UInt64(UInt32(bitPattern: bases[symbol])) << 32
            state += 1
        }
    }
}
