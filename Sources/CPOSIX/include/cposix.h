#ifndef CPOSIX_H
#define CPOSIX_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <unistd.h>

/// syncfs(2), which Glibc declares only under _GNU_SOURCE: flushes the file system holding `fd`.
static inline int cposix_syncfs(int fd) { return syncfs(fd); }
#endif
