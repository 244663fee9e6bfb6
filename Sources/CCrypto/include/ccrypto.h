#ifndef CCRYPTO_H
#define CCRYPTO_H
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

// MARK: Ed25519 (RFC 8032) through EVP. Keys cross into Swift as raw 32-byte values: the private
// key is the 32-byte seed, the public key the 32-byte encoded point, a signature 64 bytes.

/// Generates a key pair from the system's random source; returns 1 on success.
static inline int ccrypto_ed25519_generate(unsigned char seed[32], unsigned char pub[32]) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL);
    EVP_PKEY *key = NULL;
    int ok = ctx && EVP_PKEY_keygen_init(ctx) == 1 && EVP_PKEY_keygen(ctx, &key) == 1;
    size_t n = 32, m = 32;
    ok = ok && EVP_PKEY_get_raw_private_key(key, seed, &n) == 1 && n == 32
            && EVP_PKEY_get_raw_public_key(key, pub, &m) == 1 && m == 32;
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/// Derives the public key of a private key (seed); returns 1 on success.
static inline int ccrypto_ed25519_public_key(const unsigned char seed[32], unsigned char pub[32]) {
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
    size_t n = 32;
    int ok = key && EVP_PKEY_get_raw_public_key(key, pub, &n) == 1 && n == 32;
    EVP_PKEY_free(key);
    return ok;
}

/// Signs `len` bytes of `msg` (pure Ed25519: no digest, so the md argument is NULL).
static inline int ccrypto_ed25519_sign(const unsigned char seed[32], const void *msg, size_t len, unsigned char sig[64]) {
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    size_t n = 64;
    int ok = key && ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) == 1
             && EVP_DigestSign(ctx, sig, &n, (const unsigned char *)msg, len) == 1 && n == 64;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(key);
    return ok;
}

/// Checks a signature: 1 valid, 0 invalid, -1 when the public key is not a valid point.
static inline int ccrypto_ed25519_verify(const unsigned char pub[32], const void *msg, size_t len, const unsigned char sig[64]) {
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, 32);
    if (!key) { ERR_clear_error(); return -1; }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1
             && EVP_DigestVerify(ctx, sig, 64, (const unsigned char *)msg, len) == 1;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(key);
    ERR_clear_error();
    return ok ? 1 : 0;
}

/// Encodes a private key as unencrypted PEM PKCS#8 ("BEGIN PRIVATE KEY"). Returns the length
/// written to `out` (at most `cap`), or 0 on failure.
static inline size_t ccrypto_ed25519_private_pem(const unsigned char seed[32], char *out, size_t cap) {
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
    BIO *bio = BIO_new(BIO_s_mem());
    size_t written = 0;
    if (key && bio && PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1) {
        char *data = NULL;
        long n = BIO_get_mem_data(bio, &data);
        if (n > 0 && (size_t)n <= cap) { memcpy(out, data, (size_t)n); written = (size_t)n; }
    }
    BIO_free(bio);
    EVP_PKEY_free(key);
    return written;
}

/// A password callback that gives none, so an encrypted key fails instead of prompting.
static inline int ccrypto_no_password(char *buf, int size, int rwflag, void *u) {
    (void)buf; (void)size; (void)rwflag; (void)u;
    return 0;
}

/// Reads an unencrypted PEM private key; returns 1 and the seed when it is an Ed25519 key, 0 when it is
/// another kind of key, -1 when the text is not a PEM private key at all.
static inline int ccrypto_ed25519_read_private_pem(const void *pem, size_t len, unsigned char seed[32]) {
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, ccrypto_no_password, NULL) : NULL;
    int result = -1;
    if (key) {
        size_t n = 32;
        result = EVP_PKEY_get_id(key) == EVP_PKEY_ED25519
                 && EVP_PKEY_get_raw_private_key(key, seed, &n) == 1 && n == 32 ? 1 : 0;
    }
    EVP_PKEY_free(key);
    BIO_free(bio);
    ERR_clear_error();
    return result;
}
// MARK: AES-256-GCM, HMAC-SHA-256 and random bytes, for sealed (encrypted) packs. Nonces are 12
// bytes, tags 16; `out` may be `in` (in place).

#include <openssl/hmac.h>
#include <openssl/rand.h>

/// Fills `out` with `len` bytes from OpenSSL's CSPRNG; returns 1 on success.
static inline int ccrypto_random(unsigned char *out, size_t len) {
    return RAND_bytes(out, (int)len) == 1;
}

/// HMAC-SHA-256 of `len` bytes of `data` under a 32-byte key; returns 1 on success.
static inline int ccrypto_hmac_sha256(const unsigned char key[32], const void *data, size_t len, unsigned char out[32]) {
    unsigned int n = 0;
    return HMAC(EVP_sha256(), key, 32, (const unsigned char *)data, len, out, &n) != NULL && n == 32;
}

/// Encrypts `len` bytes of `in` into `out` and writes the tag; returns 1 on success.
static inline int ccrypto_aes256gcm_seal(const unsigned char key[32], const unsigned char nonce[12],
                                         const void *aad, size_t aadLen, const void *in, size_t len,
                                         unsigned char *out, unsigned char tag[16]) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, ok = ctx && len <= 0x7fffffff && aadLen <= 0x7fffffff
        && EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1
        && EVP_EncryptInit_ex(ctx, NULL, NULL, key, nonce) == 1
        && (aadLen == 0 || EVP_EncryptUpdate(ctx, NULL, &n, (const unsigned char *)aad, (int)aadLen) == 1)
        && (len == 0 || EVP_EncryptUpdate(ctx, out, &n, (const unsigned char *)in, (int)len) == 1)
        && EVP_EncryptFinal_ex(ctx, out + (len == 0 ? 0 : n), &n) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

/// GCM's keystream alone: decrypts the `len` bytes of a frame sealed under `key` and `nonce`
/// with AES-256 in counter mode from GCM's first counter block (`nonce ‖ 00000002`), without
/// computing the tag. For a frame whose plaintext is checked afterwards against a digest from
/// authenticated data. 1 on success; 0 on a failure, or for more than 2^31 - 1 bytes (one EVP
/// call; GCM's 32-bit block counter would wrap only past 64 GiB).
static inline int ccrypto_aes256gcm_keystream(const unsigned char key[32], const unsigned char nonce[12],
                                              const void *in, size_t len, unsigned char *out) {
    if (len > 0x7fffffff) return 0;
    unsigned char iv[16];
    memcpy(iv, nonce, 12);
    iv[12] = 0; iv[13] = 0; iv[14] = 0; iv[15] = 2;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, ok = ctx
        && EVP_DecryptInit_ex(ctx, EVP_aes_256_ctr(), NULL, key, iv) == 1
        && (len == 0 || EVP_DecryptUpdate(ctx, out, &n, (const unsigned char *)in, (int)len) == 1)
        && (len == 0 || n == (int)len);
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return ok ? 1 : 0;
}

/// Decrypts and authenticates: 1 when the tag verifies (and `out` holds the plaintext), 0 when it
/// does not (wrong key, tampered bytes: `out` must then be discarded), -1 on another failure.
static inline int ccrypto_aes256gcm_open(const unsigned char key[32], const unsigned char nonce[12],
                                         const void *aad, size_t aadLen, const void *in, size_t len,
                                         const unsigned char tag[16], unsigned char *out) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0;
    int ready = ctx && len <= 0x7fffffff && aadLen <= 0x7fffffff
        && EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1
        && EVP_DecryptInit_ex(ctx, NULL, NULL, key, nonce) == 1
        && (aadLen == 0 || EVP_DecryptUpdate(ctx, NULL, &n, (const unsigned char *)aad, (int)aadLen) == 1)
        && (len == 0 || EVP_DecryptUpdate(ctx, out, &n, (const unsigned char *)in, (int)len) == 1)
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, (void *)tag) == 1;
    int result = -1;
    if (ready) result = EVP_DecryptFinal_ex(ctx, out + (len == 0 ? 0 : n), &n) == 1 ? 1 : 0;
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return result;
}
#endif
