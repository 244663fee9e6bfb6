/// LZFSE, the codec of Apple Archive's `pbze` containers: a stream of blocks, each opened by a
/// four-byte magic, ending with `bvx$`. Written from the format, as Debian has no LZFSE library.
public enum LZFSE {
    /// Decodes one whole LZFSE stream (blocks until `bvx$`) from `source` into `destination`; returns the
    /// number of bytes written. Throws LZFSEError (block magic, offset, why) on malformed input or when the
    /// output would exceed destination.count. Never traps on any input.
    public static func decode(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) throws(LZFSEError) -> Int {
        let blockDecoder = LZFSEBlockDecoder()
        var position = 0
        var out = 0
        while true {
            guard source.count - position >= 4 else {
                throw LZFSEError(block: "none", offset: position, reason: "stream ends without a bvx$ block")
            }
            let value = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: position, as: UInt32.self))
            guard let magic = LZFSEBlockMagic(rawValue: value) else {
                throw LZFSEError(block: LZFSEBlockMagic.describe(unknown: value), offset: position, reason: "not a block magic")
            }
            let blockStart = position
            do throws(LZFSEProblem) {
                switch magic {
                case .endOfStream:
                    return out
                case .stored:
                    let count = try readCount(source, blockStart + 4, "raw byte count")
                    try checkRoom(count, out, destination.count)
                    guard count <= source.count - blockStart - 8 else {
                        throw LZFSEProblem("\(count) stored bytes, \(source.count - blockStart - 8) remain in the stream")
                    }
                    if count > 0, let target = destination.baseAddress, let from = source.baseAddress {
                        (target + out).copyMemory(from: from + blockStart + 8, byteCount: count)
                    }
                    out += count
                    position = blockStart + 8 + count
                case .lzvn:
                    let count = try readCount(source, blockStart + 4, "raw byte count")
                    let payload = try readCount(source, blockStart + 8, "payload byte count")
                    try checkRoom(count, out, destination.count)
                    guard payload <= source.count - blockStart - 12 else {
                        throw LZFSEProblem("payload of \(payload) bytes, \(source.count - blockStart - 12) remain in the stream")
                    }
                    try LZVNDecoder.decode(source: source, start: blockStart + 12, end: blockStart + 12 + payload,
                                           destination: destination, outputStart: out, rawByteCount: count)
                    out += count
                    position = blockStart + 12 + payload
                case .compressedV1, .compressedV2:
                    let header = magic == .compressedV2
                        ? try LZFSEBlockHeader.readV2(source, at: blockStart)
                        : try LZFSEBlockHeader.readV1(source, at: blockStart)
                    try checkRoom(header.rawByteCount, out, destination.count)
                    let payloadStart = blockStart + header.headerSize
                    let payloadSize = header.literalPayloadSize + header.lmdPayloadSize
                    guard payloadSize <= source.count - payloadStart else {
                        throw LZFSEProblem("payload of \(payloadSize) bytes, \(source.count - payloadStart) remain in the stream")
                    }
                    out = try blockDecoder.decode(header, source: source, blockStart: blockStart, payloadStart: payloadStart,
                                                  destination: destination, outputStart: out)
                    position = payloadStart + payloadSize
                }
            } catch {
                throw LZFSEError(block: magic.name, offset: blockStart, reason: error.reason)
            }
        }
    }

    private static func readCount(_ source: UnsafeRawBufferPointer, _ offset: Int, _ name: String) throws(LZFSEProblem) -> Int {
        guard source.count - offset >= 4 else { throw LZFSEProblem("header is cut short before its \(name)") }
        return Int(UInt32(littleEndian: source.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    private static func checkRoom(_ count: Int, _ out: Int, _ capacity: Int) throws(LZFSEProblem) {
        guard count <= capacity - out else {
            throw LZFSEProblem("block of \(count) bytes exceeds the destination (\(capacity - out) of \(capacity) bytes left)")
        }
    }
}
