/// Turns symbol counts into the normalised frequencies an LZFSE header carries, and those into
/// the per-symbol entries the encoder needs to invert FSEDecodingTable's layout.
enum FSEEncodingTable {
    /// How to encode one symbol from the state after it (in decoding order). Of the symbol's
    /// `count` decoder states, the first are reached with `shift` bits and the rest with
    /// `shift - 1`; an encoder state from `(count << shift) - stateCount` up takes the wider ones.
    /// Both cases fold into two additions and two shifts: `bits = (state + bitsDelta) >> 16`
    /// (`bitsDelta = shift << 16 - wideFrom`, so the sum's high half is `shift` or `shift - 1`),
    /// and the next state `(state + stateCount) >> bits + stateDelta`, because the two groups'
    /// shifted values lie end to end in `count..<2 * count` (`stateDelta` = the symbol's first
    /// decoder state - `count`). Eight bytes, so a 256-symbol table stays in the first-level cache.
    struct Entry {
        var bitsDelta: Int32 = 0
        var stateDelta: Int32 = 0
    }

    /// Normalises `counts` to frequencies summing to `stateCount` (a power of two), each symbol
    /// that occurs getting at least 1; all zeros when nothing occurs.
    static func normalise(_ counts: UnsafeBufferPointer<UInt32>, stateCount: Int, into frequencies: UnsafeMutableBufferPointer<UInt16>) {
        var total = 0
        var largest = 0
        for (symbol, count) in counts.enumerated() {
            total += Int(count)
            if count > counts[largest] { largest = symbol }
        }
        if total == 0 {
            for index in frequencies.indices { frequencies[index] = 0 }
            return
        }
        var sum = 0
        for (symbol, count) in counts.enumerated() {
            var frequency = 0
            if count > 0 { frequency = max(1, (Int(count) * stateCount * 2 + total) / (2 * total)) }
            frequencies[symbol] = UInt16(frequency)
            sum += frequency
        }
        // Rounding and the floor of 1 leave the sum off by a little: settle it on the most
        // frequent symbols, where a state more or less costs the least.
        while sum != stateCount {
            var target = largest
            if sum > stateCount {
                for symbol in frequencies.indices where frequencies[symbol] > frequencies[target] { target = symbol }
                let take = min(sum - stateCount, Int(frequencies[target]) - 1, max(1, Int(frequencies[target]) / 4))
                frequencies[target] -= UInt16(take)
                sum -= take
            } else {
                frequencies[target] += UInt16(stateCount - sum)
                sum = stateCount
            }
        }
    }

    /// The entry of each symbol for `frequencies` (which sum to `stateCount`).
    static func build(_ frequencies: UnsafeBufferPointer<UInt16>, stateCount: Int, into table: UnsafeMutablePointer<Entry>) {
        let stateBits = Int.bitWidth - 1 - stateCount.leadingZeroBitCount
        var offset = 0
        for symbol in frequencies.indices {
            let count = Int(frequencies[symbol])
            if count == 0 {
                table[symbol] = Entry()
                continue
            }
            let shift = stateBits - (Int.bitWidth - 1 - count.leadingZeroBitCount)
            table[symbol] = Entry(bitsDelta: Int32(shift << 16 - ((count << shift) - stateCount)),
                                  stateDelta: Int32(offset - count))
            offset += count
        }
    }
}
