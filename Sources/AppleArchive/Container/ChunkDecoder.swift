import CAppleCompression

/// Decodes one container chunk to exactly its declared uncompressed size with the container's
/// codec. A stream that ends early, runs past the declared size, or leaves bytes unused is an
/// error naming the chunk and its file offset.
enum ChunkDecoder {
    /// The most memory liblzma may use for one chunk's xz stream (its dictionary): real archives
    /// use at most 64 MiB (preset 9); a larger claim in hostile input is refused, not allocated.
    static let lzmaMemoryLimit: UInt64 = 128 << 20

    static func decode(_ chunk: ContainerChunk, compression: AppleArchiveCompression) throws(AppleArchiveError) -> [UInt8] {
        if chunk.isStored { return chunk.compressed }
        // Not zero-filled first: every byte is written by the decoder, or the chunk is refused.
        var failure: AppleArchiveError?
        let out = [UInt8](unsafeUninitializedCapacity: chunk.rawSize) { buffer, count in
            let destination = UnsafeMutableRawBufferPointer(buffer)
            chunk.compressed.withUnsafeBytes { source in
                do throws(AppleArchiveError) {
                    switch compression {
                    case .zlib: try inflate(source, into: destination, chunk)
                    case .lzma: try unxz(source, into: destination, chunk)
                    case .lz4: try unlz4(source, into: destination, chunk)
                    case .lzfse: try unlzfse(source, into: destination, chunk)
                    case .none: throw bad(chunk, "a bare stream has no chunks")
                    }
                } catch { failure = error }
            }
            count = failure == nil ? chunk.rawSize : 0
        }
        if let failure { throw failure }
        return out
    }

    static func bad(_ chunk: ContainerChunk, _ reason: String) -> AppleArchiveError {
        .malformed(chunk.region, at: chunk.offset, reason)
    }

    // MARK: zlib (pbzz): RFC 1950

    private static func inflate(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer,
                                _ chunk: ContainerChunk) throws(AppleArchiveError) {
        var s = z_stream()
        guard capple_inflate_init(&s) == Z_OK else { throw AppleArchiveError(.io, chunk.region, at: chunk.offset, "zlib could not start") }
        defer { inflateEnd(&s) }
        s.next_in = UnsafeMutablePointer(mutating: source.baseAddress!.assumingMemoryBound(to: Bytef.self))
        s.avail_in = uInt(source.count)
        s.next_out = destination.baseAddress!.assumingMemoryBound(to: Bytef.self)
        s.avail_out = uInt(destination.count)
        while true {
            let r = CAppleCompression.inflate(&s, Z_FINISH)
            if r == Z_STREAM_END { break }
            if r == Z_OK { continue }
            if r == Z_BUF_ERROR && s.avail_out == 0 {
                throw bad(chunk, "the zlib stream decodes to more than the declared \(chunk.rawSize) bytes")
            }
            if r == Z_BUF_ERROR { throw bad(chunk, "the zlib stream is cut short after \(destination.count - Int(s.avail_out)) of \(chunk.rawSize) bytes") }
            let message = s.msg.map { String(cString: $0) } ?? "error \(r)"
            throw bad(chunk, "not a valid zlib (RFC 1950) stream: \(message)")
        }
        try finished(chunk, produced: destination.count - Int(s.avail_out), unused: Int(s.avail_in), codec: "zlib")
    }

    // MARK: xz (pbzx)

    private static func unxz(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer,
                             _ chunk: ContainerChunk) throws(AppleArchiveError) {
        var s = capple_lzma_stream_init()
        guard lzma_stream_decoder(&s, lzmaMemoryLimit, 0) == LZMA_OK else {
            throw AppleArchiveError(.io, chunk.region, at: chunk.offset, "liblzma could not start")
        }
        defer { lzma_end(&s) }
        s.next_in = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
        s.avail_in = source.count
        s.next_out = destination.baseAddress!.assumingMemoryBound(to: UInt8.self)
        s.avail_out = destination.count
        while true {
            let before = (s.avail_in, s.avail_out)
            let r = lzma_code(&s, LZMA_FINISH)
            if r == LZMA_STREAM_END { break }
            if r == LZMA_OK, before != (s.avail_in, s.avail_out) { continue }
            switch r {
            case LZMA_OK, LZMA_BUF_ERROR:
                if s.avail_out == 0 { throw bad(chunk, "the xz stream decodes to more than the declared \(chunk.rawSize) bytes") }
                throw bad(chunk, "the xz stream is cut short after \(destination.count - s.avail_out) of \(chunk.rawSize) bytes")
            case LZMA_MEMLIMIT_ERROR: throw bad(chunk, "the xz stream needs more than \(lzmaMemoryLimit >> 20) MiB to decode (refused)")
            case LZMA_FORMAT_ERROR: throw bad(chunk, "not an xz stream (bad magic)")
            case LZMA_OPTIONS_ERROR: throw bad(chunk, "the xz stream uses options liblzma does not support")
            case LZMA_DATA_ERROR: throw bad(chunk, "the xz stream is corrupt")
            default: throw bad(chunk, "liblzma failed with code \(r.rawValue)")
            }
        }
        try finished(chunk, produced: destination.count - s.avail_out, unused: s.avail_in, codec: "xz")
    }

    // MARK: LZ4 (pbz4): Apple's block framing around raw LZ4 blocks

    /// Apple's framing: blocks `bv41` (u32 LE decoded size, u32 LE encoded size, LZ4 block),
    /// `bv4-` (u32 LE size, stored bytes), ending with `bv4$`. A block may refer back into the
    /// output of the blocks before it (up to 64 KiB), so each is decoded with that as its
    /// dictionary.
    private static func unlz4(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer,
                              _ chunk: ContainerChunk) throws(AppleArchiveError) {
        var at = 0
        var produced = 0
        func u32(_ p: Int) -> Int { Int(source.loadUnaligned(fromByteOffset: p, as: UInt32.self).littleEndian) }
        while true {
            guard source.count - at >= 4 else { throw bad(chunk, "the LZ4 stream ends at byte \(at) without its bv4$ end marker") }
            let magic = Array(source[at..<at + 4])
            if magic == Array("bv4$".utf8) {
                at += 4
                break
            }
            if magic == Array("bv41".utf8) {
                guard source.count - at >= 12 else { throw bad(chunk, "the bv41 block header at byte \(at) is cut short") }
                let decoded = u32(at + 4), encoded = u32(at + 8)
                guard encoded <= source.count - at - 12 else { throw bad(chunk, "the bv41 block at byte \(at) declares \(encoded) bytes but \(source.count - at - 12) remain") }
                guard decoded <= destination.count - produced else {
                    throw bad(chunk, "the bv41 block at byte \(at) decodes to \(decoded) bytes, past the declared \(chunk.rawSize)")
                }
                let dictionary = min(produced, 64 << 10)
                let base = destination.baseAddress!.assumingMemoryBound(to: CChar.self)
                let n = LZ4_decompress_safe_usingDict(source.baseAddress!.advanced(by: at + 12).assumingMemoryBound(to: CChar.self),
                                                      base + produced, Int32(encoded), Int32(decoded),
                                                      base + produced - dictionary, Int32(dictionary))
                guard n == Int32(decoded) else { throw bad(chunk, "the LZ4 block at byte \(at) is corrupt (decoded \(n) of \(decoded) bytes)") }
                produced += decoded
                at += 12 + encoded
            } else if magic == Array("bv4-".utf8) {
                guard source.count - at >= 8 else { throw bad(chunk, "the bv4- block header at byte \(at) is cut short") }
                let size = u32(at + 4)
                guard size <= source.count - at - 8, size <= destination.count - produced else {
                    throw bad(chunk, "the stored bv4- block at byte \(at) declares \(size) bytes, past the chunk or its declared size")
                }
                (destination.baseAddress! + produced).copyMemory(from: source.baseAddress! + at + 8, byteCount: size)
                produced += size
                at += 8 + size
            } else {
                throw bad(chunk, "unknown LZ4 block magic at byte \(at) (expected bv41, bv4- or bv4$)")
            }
        }
        try finished(chunk, produced: produced, unused: source.count - at, codec: "LZ4")
    }

    private static func finished(_ chunk: ContainerChunk, produced: Int, unused: Int, codec: String) throws(AppleArchiveError) {
        guard produced == chunk.rawSize else {
            throw bad(chunk, "the \(codec) stream decodes to \(produced) bytes, not the declared \(chunk.rawSize)")
        }
        guard unused == 0 else { throw bad(chunk, "\(unused) bytes follow the end of the \(codec) stream") }
    }
}
