#ifndef CCURL_H
#define CCURL_H
#include <curl/curl.h>
#include <stddef.h>

/* Typed wrappers for libcurl's variadic calls, which Swift cannot call directly: one per
   argument type. Each returns libcurl's code unchanged. */

/// Data callbacks (write, read, header) share this shape.
typedef size_t (*ccurl_data_callback)(char *buffer, size_t size, size_t count, void *context);
typedef int (*ccurl_xferinfo_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);
typedef int (*ccurl_seek_callback)(void *context, curl_off_t offset, int origin);

static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_data_callback(CURL *h, CURLoption o, ccurl_data_callback f) { return curl_easy_setopt(h, o, f); }
static inline CURLcode ccurl_setopt_xferinfo_callback(CURL *h, ccurl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode ccurl_setopt_seek_callback(CURL *h, ccurl_seek_callback f) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }

static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_off_t(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }

/* Macros Swift does not import. */
static inline long ccurl_global_default(void) { return CURL_GLOBAL_DEFAULT; }
static inline size_t ccurl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
static inline long ccurl_http_version_2tls(void) { return CURL_HTTP_VERSION_2TLS; }

/// A libcurl share of connections, DNS and TLS sessions with one pthread mutex per data kind,
/// so that easy handles on several threads can use it at once.
typedef struct ccurl_share ccurl_share;
/// NULL on failure.
ccurl_share *ccurl_share_create(void);
/// The share to pass as CURLOPT_SHARE.
CURLSH *ccurl_share_handle(ccurl_share *share);
/// Releases the share and its mutexes; every easy handle using it must be cleaned up first.
void ccurl_share_destroy(ccurl_share *share);
#endif
