import AssetPackFormat
import CZstd

/// A zstd compressor with a reusable context; one per thread.
public final class ZstdCompressor: @unchecked Sendable {
    private let ctx: OpaquePointer
    public let level: Int32

    public init(level: Int32) {
        guard let c = ZSTD_createCCtx() else { fatalError("zstd could not allocate a compression context") }
        ctx = c
        self.level = level
        // Frames carry their content size and a checksum-free body: chunk hashes already verify.
        ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, level)
        ZSTD_CCtx_setParameter(ctx, ZSTD_c_contentSizeFlag, 1)
        ZSTD_CCtx_setParameter(ctx, ZSTD_c_checksumFlag, 0)
    }

    deinit { ZSTD_freeCCtx(ctx) }

    /// Compresses `input` into one zstd frame in `output`, which must have room for
    /// `ZSTD_compressBound(input.count)` bytes; returns the frame's length.
    public func compress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        precondition(output.count >= ZSTD_compressBound(input.count), "zstd output buffer too small")
        let n = ZSTD_compress2(ctx, output.baseAddress, output.count, input.baseAddress, input.count)
        precondition(czstd_is_error(n) == 0, "zstd compression failed: \(String(cString: ZSTD_getErrorName(n)))")
        return n
    }

    /// One complete zstd frame holding `input`.
    public func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        let bound = ZSTD_compressBound(input.count)
        return [UInt8](unsafeUninitializedCapacity: bound) { out, count in
            let n = ZSTD_compress2(ctx, out.baseAddress, bound, input.baseAddress, input.count)
            precondition(czstd_is_error(n) == 0, "zstd compression failed: \(String(cString: ZSTD_getErrorName(n)))")
            count = n
        }
    }

    /// One complete zstd frame holding `input` that refers to `prefix` (zstd's reference prefix:
    /// a decoder needs the same bytes), with the window sized to reach across the prefix and the
    /// input, and long-distance matching when they are larger than 16 MiB. The context's own
    /// settings are restored for the next `compress`.
    public func compress(_ input: UnsafeRawBufferPointer, prefix: UnsafeRawBufferPointer, level: Int32) -> [UInt8] {
        var windowLog: Int32 = 10
        while windowLog < PatchLayout.windowLogMax && (1 << windowLog) < prefix.count + input.count { windowLog += 1 }
        let bound = ZSTD_compressBound(input.count)
        let out = [UInt8](unsafeUninitializedCapacity: bound) { out, count in
            let n = czstd_compress_with_prefix(ctx, out.baseAddress, bound, input.baseAddress, input.count,
                                               prefix.baseAddress, prefix.count, level, windowLog, prefix.count + input.count > 16 << 20 ? 1 : 0)
            precondition(czstd_is_error(n) == 0, "zstd compression failed: \(String(cString: ZSTD_getErrorName(n)))")
            count = n
        }
        ZSTD_CCtx_reset(ctx, ZSTD_reset_session_and_parameters)
        ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, self.level)
        ZSTD_CCtx_setParameter(ctx, ZSTD_c_contentSizeFlag, 1)
        ZSTD_CCtx_setParameter(ctx, ZSTD_c_checksumFlag, 0)
        return out
    }
}
