#ifndef CZSTD_H
#define CZSTD_H
#include <zstd.h>
#include <stddef.h>

/// Compresses with a reusable context at a fixed level; returns ZSTD error codes as-is.
static inline size_t czstd_compress(ZSTD_CCtx *cctx, void *dst, size_t dstCapacity,
                                    const void *src, size_t srcSize, int level) {
    return ZSTD_compressCCtx(cctx, dst, dstCapacity, src, srcSize, level);
}

/// 1 when `code` is a zstd error code.
static inline int czstd_is_error(size_t code) { return ZSTD_isError(code) ? 1 : 0; }

/// Length of the one whole frame that starts at `src` (skippable frames included), or a
/// negative value when `src` does not start with a complete frame.
static inline long long czstd_frame_compressed_size(const void *src, size_t srcSize) {
    size_t n = ZSTD_findFrameCompressedSize(src, srcSize);
    return ZSTD_isError(n) ? -1 : (long long)n;
}

/// Declared content size of the frame at `src`, or a negative value when unknown or invalid.
static inline long long czstd_frame_content_size(const void *src, size_t srcSize) {
    unsigned long long n = ZSTD_getFrameContentSize(src, srcSize);
    if (n == ZSTD_CONTENTSIZE_UNKNOWN) return -1;
    if (n == ZSTD_CONTENTSIZE_ERROR) return -2;
    return (long long)n;
}

/// Compresses `src` into one frame that may refer to `prefix` (zstd's reference-prefix API: the
/// prefix is not stored, a decoder must hold the same bytes). Content size in the header, no
/// checksum; `windowLog` 0 keeps the level's window, `longDistance` enables long-distance matching.
static inline size_t czstd_compress_with_prefix(ZSTD_CCtx *cctx, void *dst, size_t dstCapacity,
                                                const void *src, size_t srcSize,
                                                const void *prefix, size_t prefixSize,
                                                int level, int windowLog, int longDistance) {
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    size_t r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    if (ZSTD_isError(r)) return r;
    r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    if (ZSTD_isError(r)) return r;
    r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
    if (ZSTD_isError(r)) return r;
    if (windowLog > 0) {
        r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, windowLog);
        if (ZSTD_isError(r)) return r;
    }
    r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, longDistance ? 1 : 0);
    if (ZSTD_isError(r)) return r;
    r = ZSTD_CCtx_refPrefix(cctx, prefix, prefixSize);
    if (ZSTD_isError(r)) return r;
    return ZSTD_compress2(cctx, dst, dstCapacity, src, srcSize);
}

/// Decompresses one frame made by `czstd_compress_with_prefix` against the same `prefix`; a frame
/// whose window exceeds 2^windowLogMax is refused before its window is allocated.
static inline size_t czstd_decompress_with_prefix(ZSTD_DCtx *dctx, void *dst, size_t dstCapacity,
                                                  const void *src, size_t srcSize,
                                                  const void *prefix, size_t prefixSize, int windowLogMax) {
    ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
    size_t r = ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, windowLogMax);
    if (ZSTD_isError(r)) return r;
    r = ZSTD_DCtx_refPrefix(dctx, prefix, prefixSize);
    if (ZSTD_isError(r)) return r;
    return ZSTD_decompressDCtx(dctx, dst, dstCapacity, src, srcSize);
}
#endif
