#ifndef CMICROHTTPD_H
#define CMICROHTTPD_H
#include <sys/types.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>

/// Everything `cmhd_start` passes to MHD_start_daemon as options; zero or NULL means "unset".
typedef struct {
    unsigned int flags;
    int listen_socket;
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int connection_timeout_seconds;
    const char *https_mem_key;
    const char *https_mem_cert;
    MHD_AccessHandlerCallback handler;
    void *handler_cls;
    MHD_RequestCompletedCallback completed;
    void *completed_cls;
    /// Told when a connection opens and closes (MHD_OPTION_NOTIFY_CONNECTION).
    MHD_NotifyConnectionCallback notify_connection;
    void *notify_connection_cls;
    /// Sees each request line's target before MHD cuts it up (MHD_OPTION_URI_LOG_CALLBACK);
    /// what it returns becomes the request's context pointer.
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection);
    void *uri_log_cls;
    /// When set, MHD leaves the request URL exactly as received (the handler percent-decodes).
    int keep_url_escaped;
    /// Connections one client address may hold at once (MHD_OPTION_PER_IP_CONNECTION_LIMIT).
    unsigned int per_ip_connection_limit;
    /// The stack of each thread MHD starts (MHD_OPTION_THREAD_STACK_SIZE); 0: the system's default.
    size_t thread_stack_size;
} cmhd_config;

/// Starts a daemon on an already listening socket (MHD_start_daemon is variadic, Swift cannot call it).
struct MHD_Daemon *cmhd_start(const cmhd_config *config);

/// The client's address as MHD stores it, or NULL.
static inline const struct sockaddr *cmhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/// Whether the connection is encrypted (TLS).
static inline int cmhd_connection_is_tls(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_PROTOCOL);
    return info != NULL && info->protocol != 0;
}

/// The connection's socket, or -1.
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/// Bytes a TCP socket has sent since it opened: those the peer acknowledged plus those still
/// queued (which go out on an orderly close), or only the acknowledged ones once the
/// connection was reset (the queue is lost). -1 if the kernel does not say.
long long cmhd_socket_bytes_sent(int fd);

/// MHD's status and reader constants, which Swift sees only as macros or enums of odd types.
static const ssize_t cmhd_content_reader_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t cmhd_content_reader_end_with_error = MHD_CONTENT_READER_END_WITH_ERROR;
static const uint64_t cmhd_size_unknown = MHD_SIZE_UNKNOWN;
static const enum MHD_Result cmhd_yes = MHD_YES;
static const enum MHD_Result cmhd_no = MHD_NO;
static const enum MHD_RequestTerminationCode cmhd_completed_ok = MHD_REQUEST_TERMINATED_COMPLETED_OK;
static const enum MHD_ConnectionNotificationCode cmhd_connection_started = MHD_CONNECTION_NOTIFY_STARTED;
static const enum MHD_ValueKind cmhd_header_kind = MHD_HEADER_KIND;
static const enum MHD_ValueKind cmhd_get_argument_kind = MHD_GET_ARGUMENT_KIND;
static const enum MHD_ResponseMemoryMode cmhd_respmem_persistent = MHD_RESPMEM_PERSISTENT;
static const enum MHD_ResponseMemoryMode cmhd_respmem_must_copy = MHD_RESPMEM_MUST_COPY;

struct tm;
/// strptime(3), which the Glibc module hides without _XOPEN_SOURCE; returns 1 if `text` matched
/// `format` completely.
int cmhd_parse_time(const char *text, const char *format, struct tm *out);
#endif
