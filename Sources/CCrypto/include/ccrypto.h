#ifndef CCRYPTO_H
#define CCRYPTO_H
#include <openssl/evp.h>
#include <openssl/err.h>
#include <stddef.h>

/// One-shot SHA-256 through EVP; returns 1 on success.
static inline int ccrypto_sha256(const void *data, size_t len, unsigned char out[32]) {
    unsigned int n = 0;
    return EVP_Digest(data, len, out, &n, EVP_sha256(), NULL);
}

/// Starts an incremental SHA-256; returns NULL on failure.
static inline EVP_MD_CTX *ccrypto_sha256_new(void) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) { EVP_MD_CTX_free(ctx); return NULL; }
    return ctx;
}
#endif
