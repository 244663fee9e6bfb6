/// Decodes the payload of a `bvxn` block: LZVN, a byte-oriented LZ code whose opcodes carry a
/// literal length L, a match length M and a distance D (or reuse the previous distance):
///
///   LLMMMDDD DDDDDDDD              small distance: L 0-3, M 3-10, D < 1536 (D's top bits not 6 or 7)
///   101LLMMM DDDDDDMM DDDDDDDD     medium distance: L 0-3, M 3-34, D < 16384
///   LLMMM111 DDDDDDDD DDDDDDDD     large distance: L 0-3, M 3-10, D < 65536 (little-endian)
///   LLMMM110                       previous distance: L 0-3, M 3-10
///   1110LLLL / 11100000 LLLLLLLL   literal only: L 1-15 / L 16-271
///   1111MMMM / 11110000 MMMMMMMM   match only at the previous distance: M 1-15 / M 16-271
///   00000110 + 7 bytes             end of stream; 00001110 and 00010110 are no-ops
///
/// Literal bytes follow their opcode. Every other byte value is invalid.
enum LZVNDecoder {
    /// Decodes `source[start..<end]`, which must end exactly with the end-of-stream opcode, into
    /// `destination` from `outputStart`, producing exactly `rawByteCount` bytes (the caller has
    /// checked that they fit). Matches may reach back into earlier blocks' output.
    static func decode(source: UnsafeRawBufferPointer, start: Int, end: Int,
                       destination: UnsafeMutableRawBufferPointer, outputStart: Int, rawByteCount: Int) throws(LZFSEProblem) {
        guard let input = source.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let outputBase = destination.baseAddress else { throw LZFSEProblem("empty buffer") }
        let output = outputBase.assumingMemoryBound(to: UInt8.self)
        let outputEnd = outputStart + rawByteCount
        var position = start
        var out = outputStart
        var distance = 0
        while true {
            guard position < end else { throw LZFSEProblem("payload ends without an end-of-stream opcode") }
            let opcode = Int(input[position])
            var opcodeLength = 1
            var literalLength = 0
            var matchLength = 0
            switch opcode {
            case 0xe0...0xff:
                let large = opcode & 0x0f == 0
                if large {
                    guard end - position >= 2 else { throw LZFSEProblem("opcode at \(position) is cut short") }
                    opcodeLength = 2
                }
                let length = large ? Int(input[position + 1]) + 16 : opcode & 0x0f
                if opcode < 0xf0 { literalLength = length } else { matchLength = length }
            case 0xa0...0xbf:
                guard end - position >= 3 else { throw LZFSEProblem("opcode at \(position) is cut short") }
                opcodeLength = 3
                let next = Int(input[position + 1]) | Int(input[position + 2]) << 8
                literalLength = (opcode >> 3) & 3
                matchLength = ((opcode & 7) << 2 | next & 3) + 3
                distance = next >> 2
            case 0x70...0x7f, 0xd0...0xdf:
                throw LZFSEProblem("invalid opcode \(opcode) at \(position)")
            default:
                literalLength = opcode >> 6
                matchLength = ((opcode >> 3) & 7) + 3
                switch opcode & 7 {
                case 7:
                    guard end - position >= 3 else { throw LZFSEProblem("opcode at \(position) is cut short") }
                    opcodeLength = 3
                    distance = Int(input[position + 1]) | Int(input[position + 2]) << 8
                case 6:
                    if opcode == 0x06 {
                        guard end - position == 8 else {
                            throw LZFSEProblem("end-of-stream opcode at \(position) is not the payload's last 8 bytes")
                        }
                        guard out == outputEnd else {
                            throw LZFSEProblem("block decodes to \(out - outputStart) bytes, its header says \(rawByteCount)")
                        }
                        return
                    }
                    if opcode < 0x40 {
                        guard opcode == 0x0e || opcode == 0x16 else { throw LZFSEProblem("invalid opcode \(opcode) at \(position)") }
                        position += 1
                        continue
                    }
                default:
                    guard end - position >= 2 else { throw LZFSEProblem("opcode at \(position) is cut short") }
                    opcodeLength = 2
                    distance = (opcode & 7) << 8 | Int(input[position + 1])
                }
            }
            position += opcodeLength
            guard literalLength <= end - position else { throw LZFSEProblem("literal at \(position) runs past the payload") }
            guard literalLength + matchLength <= outputEnd - out else {
                throw LZFSEProblem("opcode at \(position - opcodeLength) writes past the block's raw byte count \(rawByteCount)")
            }
            if literalLength > 0 {
                (output + out).update(from: input + position, count: literalLength)
                position += literalLength
                out += literalLength
            }
            if matchLength > 0 {
                guard distance > 0, distance <= out else {
                    throw LZFSEProblem("match at \(position) reaches \(distance) bytes back, \(out) are written")
                }
                ByteCopy.exactMatch(outputBase + out, distance: distance, count: matchLength)
                out += matchLength
            }
        }
    }
}
