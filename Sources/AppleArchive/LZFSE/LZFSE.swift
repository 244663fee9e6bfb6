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

    /// Inputs below this size are coded with LZVN (`bvxn`), larger ones with `bvx2` blocks.
    static let lzvnThreshold = 4096
    /// Inputs are matched in segments of at most this size (positions are kept in 32 bits).
    static let segmentSize = 1 << 30

    /// Encodes `source` as one LZFSE stream ending in `bvx$` (bvx2 blocks; LZVN `bvxn` for small inputs;
    /// `bvx-` stored when that is smaller). Deterministic.
    public static func encode(_ source: UnsafeRawBufferPointer) -> [UInt8] {
        var stream: [UInt8] = []
        encode(source, into: &stream)
        return stream
    }

    /// As `encode(_:)`, into `stream`: its bytes are replaced and its capacity kept, so that a
    /// caller encoding block after block reuses one buffer.
    public static func encode(_ source: UnsafeRawBufferPointer, into stream: inout [UInt8]) {
        stream.removeAll(keepingCapacity: true)
        let count = source.count
        guard count >= 8, let base = source.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return stored(source, into: &stream) }
        if count < lzvnThreshold {
            var encoder = LZVNEncoder(input: base, count: count)
            var finder = LZMatchFinder()
            finder.run(base, count: count, into: &encoder)
            guard encoder.payload.count < count else { return stored(source, into: &stream) }
            appendMagic(.lzvn, to: &stream)
            appendUInt32(count, to: &stream)
            appendUInt32(encoder.payload.count, to: &stream)
            stream += encoder.payload
        } else {
            var finder = LZMatchFinder()
            var offset = 0
            while offset < count {
                let length = min(segmentSize, count - offset)
                // The first segment writes into `stream`'s own buffer; later ones are appended.
                var buffer: [UInt8] = []
                if offset == 0 { swap(&buffer, &stream) }
                var encoder = LZFSEBlockEncoder(input: base + offset, output: buffer, expectedOutput: length / 2)
                finder.run(base + offset, count: length, into: &encoder)
                if offset == 0 { swap(&stream, &encoder.output) } else { stream += encoder.output }
                offset += length
                if stream.count >= count { return stored(source, into: &stream) }
            }
        }
        guard stream.count + 4 < count + 12 else { return stored(source, into: &stream) }
        appendMagic(.endOfStream, to: &stream)
    }

    /// `source` as `bvx-` blocks (of at most 1 GiB each) and `bvx$`, in place of what `stream` held.
    private static func stored(_ source: UnsafeRawBufferPointer, into stream: inout [UInt8]) {
        stream.removeAll(keepingCapacity: true)
        stream.reserveCapacity(source.count + 8 * (source.count / segmentSize + 1) + 4)
        var offset = 0
        repeat {
            let length = min(segmentSize, source.count - offset)
            appendMagic(.stored, to: &stream)
            appendUInt32(length, to: &stream)
            stream += UnsafeRawBufferPointer(rebasing: source[offset..<offset + length])
            offset += length
        } while offset < source.count
        appendMagic(.endOfStream, to: &stream)
    }

    private static func appendMagic(_ magic: LZFSEBlockMagic, to stream: inout [UInt8]) { appendUInt32(Int(magic.rawValue), to: &stream) }

    private static func appendUInt32(_ value: Int, to stream: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { stream += $0 }
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
