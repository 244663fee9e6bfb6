import AssetPackFormat
import CAppleCompression

/// Compresses one block of the AA01 stream with a container codec: LZFSE (Swift), zlib (RFC 1950,
/// zlib's deflate at its default level) or an xz stream (liblzma, preset 6 with a CRC64 check).
/// A block gives the same bytes whatever thread compresses it.
enum AppleArchiveBlockEncoder {
    /// The codecs the writer can emit (`lz4` is read, not written; `none` has no blocks).
    static func isWritable(_ codec: AppleArchiveCompression) -> Bool {
        switch codec {
        case .lzfse, .zlib, .lzma: true
        case .lz4, .none: false
        }
    }

    /// Compresses the block into `output` (its capacity reused from block to block); false when
    /// compressing does not make it smaller (the container then stores it raw).
    static func compress(_ block: UnsafeRawBufferPointer, codec: AppleArchiveCompression, into output: inout [UInt8]) -> Bool {
        guard block.count > 0 else { return false }
        switch codec {
        case .zlib: output = deflate(block) ?? []
        case .lzma: output = xz(block) ?? []
        case .lzfse: LZFSE.encode(block, into: &output)
        case .lz4, .none: preconditionFailure("\(codec) blocks are not written")
        }
        return !output.isEmpty && output.count < block.count
    }

    private static func deflate(_ block: UnsafeRawBufferPointer) -> [UInt8]? {
        var capacity = compressBound(uLong(block.count))
        var out = [UInt8](repeating: 0, count: Int(capacity))
        let status = out.withUnsafeMutableBytes { o in
            compress2(o.baseAddress!.assumingMemoryBound(to: Bytef.self), &capacity,
                      block.baseAddress!.assumingMemoryBound(to: Bytef.self), uLong(block.count), Z_DEFAULT_COMPRESSION)
        }
        guard status == Z_OK else { return nil }
        out.removeSubrange(Int(capacity)...)
        return out
    }

    private static func xz(_ block: UnsafeRawBufferPointer) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: lzma_stream_buffer_bound(block.count))
        var position = 0
        let status = out.withUnsafeMutableBytes { o in
            lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nil, block.baseAddress!.assumingMemoryBound(to: UInt8.self), block.count,
                                    o.baseAddress!.assumingMemoryBound(to: UInt8.self), &position, o.count)
        }
        guard status == LZMA_OK else { return nil }
        out.removeSubrange(position...)
        return out
    }
}
