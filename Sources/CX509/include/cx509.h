#ifndef CX509_H
#define CX509_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/// A new ECDSA P-256 key (EVP_EC_gen is a macro over a variadic function).
static inline EVP_PKEY *cx509_generate_p256_key(void) {
    return EVP_EC_gen("P-256");
}

/// The bytes a memory BIO holds (BIO_get_mem_data is a macro).
static inline long cx509_bio_contents(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// Frees memory OpenSSL allocated (OPENSSL_free is a macro).
static inline void cx509_free(void *p) {
    OPENSSL_free(p);
}

/// Gives `cert` a random positive 127-bit serial number; returns 1 on success.
static inline int cx509_set_random_serial(X509 *cert) {
    BIGNUM *bn = BN_new();
    int ok = bn != NULL && BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1
        && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != NULL;
    BN_free(bn);
    return ok;
}

/// Adds the X.509v3 extension `nid` written in OpenSSL's configuration syntax (e.g.
/// "critical,CA:TRUE"), with `issuer` as the issuing certificate; returns 1 on success.
static inline int cx509_add_extension(X509 *cert, X509 *issuer, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (ext == NULL) return 0;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}
#endif
