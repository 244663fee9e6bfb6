/// Writes what LZMatchFinder finds as LZVN opcodes (see LZVNDecoder for their layout), ending
/// with the end-of-stream opcode. Literal runs longer than 3 bytes get literal-only opcodes; a
/// match takes the shortest opcode its distance allows (match-only opcodes when it repeats the
/// previous distance with no literal before it, as there is no such previous-distance opcode),
/// and what its opcode cannot hold of its length follows as match-only opcodes.
struct LZVNEncoder: LZMatchSink {
    var maxDistance: Int { 65_535 }
    private(set) var payload: [UInt8] = []
    private let input: UnsafePointer<UInt8>
    private var previousDistance = 0
    /// The longest match a small, large or previous-distance opcode holds, by its literal count.
    private static let shortOpcodeMaxMatch = [10, 8, 6, 4]

    init(input: UnsafePointer<UInt8>, count: Int) {
        self.input = input
        payload.reserveCapacity(count + count / 8 + 16)
    }

    mutating func match(literalStart: Int, literalCount: Int, matchLength: Int, distance: Int) {
        var literals = literalCount
        if literals > 3 {
            appendLiterals(literalStart, literals)
            literals = 0
        }
        let l = literals
        let taken: Int
        if distance == previousDistance && l == 0 {
            // No previous-distance opcode without literals: match-only opcodes say it.
            taken = 0
        } else if distance == previousDistance {
            taken = min(matchLength, Self.shortOpcodeMaxMatch[l])
            payload.append(UInt8(l << 6 | (taken - 3) << 3 | 6))
        } else if distance < 1536 {
            taken = min(matchLength, Self.shortOpcodeMaxMatch[l])
            payload.append(UInt8(l << 6 | (taken - 3) << 3 | distance >> 8))
            payload.append(UInt8(truncatingIfNeeded: distance))
        } else if distance < 16384 {
            taken = min(matchLength, 34)
            let field = distance << 2 | (taken - 3) & 3
            payload.append(UInt8(0xa0 | l << 3 | (taken - 3) >> 2))
            payload.append(UInt8(truncatingIfNeeded: field))
            payload.append(UInt8(truncatingIfNeeded: field >> 8))
        } else {
            taken = min(matchLength, Self.shortOpcodeMaxMatch[l])
            payload.append(UInt8(l << 6 | (taken - 3) << 3 | 7))
            payload.append(UInt8(truncatingIfNeeded: distance))
            payload.append(UInt8(truncatingIfNeeded: distance >> 8))
        }
        if l > 0 { payload.append(contentsOf: UnsafeBufferPointer(start: input + literalStart, count: l)) }
        previousDistance = distance
        var remaining = matchLength - taken
        while remaining > 0 {
            if remaining >= 16 {
                let piece = min(remaining, 271)
                payload.append(0xf0)
                payload.append(UInt8(piece - 16))
                remaining -= piece
            } else {
                payload.append(0xf0 | UInt8(remaining))
                remaining = 0
            }
        }
    }

    mutating func finish(literalStart: Int, literalCount: Int) {
        if literalCount > 0 { appendLiterals(literalStart, literalCount) }
        payload += [0x06, 0, 0, 0, 0, 0, 0, 0]
    }

    private mutating func appendLiterals(_ start: Int, _ count: Int) {
        var start = start, remaining = count
        while remaining > 0 {
            let piece = min(remaining, 271)
            if piece >= 16 {
                payload.append(0xe0)
                payload.append(UInt8(piece - 16))
            } else {
                payload.append(0xe0 | UInt8(piece))
            }
            payload.append(contentsOf: UnsafeBufferPointer(start: input + start, count: piece))
            start += piece
            remaining -= piece
        }
    }
}
