#include "ccurl.h"
#include <pthread.h>
#include <stdlib.h>

struct ccurl_share {
    CURLSH *handle;
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

static void ccurl_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *userptr) {
    (void)h; (void)access;
    pthread_mutex_lock(&((ccurl_share *)userptr)->locks[data]);
}

static void ccurl_unlock(CURL *h, curl_lock_data data, void *userptr) {
    (void)h;
    pthread_mutex_unlock(&((ccurl_share *)userptr)->locks[data]);
}

ccurl_share *ccurl_share_create(void) {
    ccurl_share *share = calloc(1, sizeof *share);
    if (!share) return NULL;
    share->handle = curl_share_init();
    if (!share->handle) { free(share); return NULL; }
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&share->locks[i], NULL);
    curl_share_setopt(share->handle, CURLSHOPT_USERDATA, share);
    curl_share_setopt(share->handle, CURLSHOPT_LOCKFUNC, ccurl_lock);
    curl_share_setopt(share->handle, CURLSHOPT_UNLOCKFUNC, ccurl_unlock);
    curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    curl_share_setopt(share->handle, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    return share;
}

CURLSH *ccurl_share_handle(ccurl_share *share) { return share->handle; }

void ccurl_share_destroy(ccurl_share *share) {
    if (!share) return;
    curl_share_cleanup(share->handle);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&share->locks[i]);
    free(share);
}
