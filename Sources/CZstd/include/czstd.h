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

/// Declared content size of the frame at `src`, or a negative value when unknown or invalid.
static inline long long czstd_frame_content_size(const void *src, size_t srcSize) {
    unsigned long long n = ZSTD_getFrameContentSize(src, srcSize);
    if (n == ZSTD_CONTENTSIZE_UNKNOWN) return -1;
    if (n == ZSTD_CONTENTSIZE_ERROR) return -2;
    return (long long)n;
}
#endif
