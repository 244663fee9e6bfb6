#ifndef CPOSIX_H
#define CPOSIX_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <unistd.h>
#include <fcntl.h>

/// syncfs(2), which Glibc declares only under _GNU_SOURCE: flushes the file system holding `fd`.
static inline int cposix_syncfs(int fd) { return syncfs(fd); }

/// Starts writing `fd`'s dirty pages to disk without waiting for them: sync_file_range(2) with
/// SYNC_FILE_RANGE_WRITE over the whole file (also declared only under _GNU_SOURCE).
static inline int cposix_start_writeback(int fd) { return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); }
#endif
