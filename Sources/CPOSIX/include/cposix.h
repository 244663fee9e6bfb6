#ifndef CPOSIX_H
#define CPOSIX_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <unistd.h>

/// syncfs(2), which Glibc declares only under _GNU_SOURCE: flushes the file system holding `fd`.
static inline int cposix_syncfs(int fd) { return syncfs(fd); }

/// SO_PEERCRED (Linux; `struct ucred` needs _GNU_SOURCE): the user and process on the other end
/// of a connected Unix socket. Returns 0, or -1 with errno set.
int cposix_peer_credentials(int fd, uid_t *uid, pid_t *pid);
#endif
