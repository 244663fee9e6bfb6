#ifndef CAPPLECOMPRESSION_H
#define CAPPLECOMPRESSION_H
// The codecs of Apple Archive's pbz* container other than LZFSE (which is Swift, in AppleArchive):
// zlib (pbzz, RFC 1950), liblzma (pbzx, xz streams) and liblz4 (pbz4, raw LZ4 blocks inside
// Apple's bv41 framing). Wrappers are added here where Swift cannot call the C API directly.
#include <zlib.h>
#include <lzma.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stddef.h>

/// LZMA_STREAM_INIT as a function (a macro Swift cannot import).
static inline lzma_stream capple_lzma_stream_init(void) {
    lzma_stream s = LZMA_STREAM_INIT;
    return s;
}

/// zlib's inflateInit as a function (a macro over inflateInit_).
static inline int capple_inflate_init(z_stream *s) { return inflateInit(s); }

/// zlib's deflateInit as a function (a macro over deflateInit_).
static inline int capple_deflate_init(z_stream *s, int level) { return deflateInit(s, level); }

#endif
