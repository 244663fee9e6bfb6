#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include "cmicrohttpd.h"
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#ifdef __linux__
#include <netinet/in.h>
#include <linux/tcp.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#endif

int cmhd_parse_time(const char *text, const char *format, struct tm *out) {
    const char *end = strptime(text, format, out);
    return end != NULL && *end == 0;
}

/// Leaves the URL as received: the handler decodes percent escapes itself and rejects bad ones.
static size_t cmhd_keep_escaped(void *cls, struct MHD_Connection *c, char *s) {
    (void)cls; (void)c;
    return strlen(s);
}

/// libmicrohttpd's messages minus the routine ones about single connections — a client that
/// hung up, sent a malformed request or failed a TLS handshake, or a connection the server
/// closed itself — which under a flood of slow clients would bury standard error (where the
/// access log goes by default). Start-up and resource errors still show.
static void cmhd_log(void *cls, const char *format, va_list arguments) {
    (void)cls;
    char line[1024];
    vsnprintf(line, sizeof line, format, arguments);
    static const char *const routine[] = {
        "closed by remote side", "Connection socket is closed", "application reported error generating data",
        "Failed to send the response", "Error processing request", "Failed to parse", "andshake", NULL,
    };
    for (int i = 0; routine[i]; i++)
        if (strstr(line, routine[i])) return;
    fputs(line, stderr);
}

struct MHD_Daemon *cmhd_start(const cmhd_config *config) {
    struct MHD_OptionItem options[16];
    int n = 0;
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, config->listen_socket, NULL };
    if (config->thread_pool_size > 1)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, config->thread_pool_size, NULL };
    if (config->connection_limit)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, config->connection_limit, NULL };
    if (config->per_ip_connection_limit)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT, config->per_ip_connection_limit, NULL };
    if (config->connection_timeout_seconds)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, config->connection_timeout_seconds, NULL };
    if (config->https_mem_key)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)config->https_mem_key };
    if (config->https_mem_cert)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)config->https_mem_cert };
    if (config->completed) {
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)config->completed, config->completed_cls };
    }
    if (config->notify_connection)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)config->notify_connection, config->notify_connection_cls };
    if (config->uri_log)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)config->uri_log, config->uri_log_cls };
    if (config->thread_stack_size)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_STACK_SIZE, (intptr_t)config->thread_stack_size, NULL };
    if (config->keep_url_escaped)
        options[n++] = (struct MHD_OptionItem){ MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)cmhd_keep_escaped, NULL };
    options[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    return MHD_start_daemon(config->flags, 0, NULL, NULL, config->handler, config->handler_cls,
                            MHD_OPTION_EXTERNAL_LOGGER, cmhd_log, NULL,  /* first, or MHD warns */
                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

long long cmhd_socket_bytes_sent(int fd) {
#ifdef __linux__
    /* The queue (write_seq - una) is read between two looks at the acknowledged count: if an
       ACK arrived in between, look again, so the sum is one moment's. */
    for (int attempt = 0; attempt < 8; attempt++) {
        struct tcp_info before, after;
        socklen_t length = sizeof before;
        if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &before, &length) != 0 || length < offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof before.tcpi_bytes_acked)
            return -1;
        /* Reset or closed: whatever was still queued is lost; only what the peer acknowledged
           was delivered. */
        if (before.tcpi_state == 7 /* TCP_CLOSE */) return (long long)before.tcpi_bytes_acked;
        int queued = 0;
        if (ioctl(fd, SIOCOUTQ, &queued) != 0) return -1;
        length = sizeof after;
        if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &after, &length) != 0) return -1;
        if (before.tcpi_bytes_acked == after.tcpi_bytes_acked)
            return (long long)after.tcpi_bytes_acked + queued;
    }
    return -1;
#else
    (void)fd;
    return -1;
#endif
}
