#ifndef CPOSIX_H
#define CPOSIX_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

/// syncfs(2), which Glibc declares only under _GNU_SOURCE: flushes the file system holding `fd`.
static inline int cposix_syncfs(int fd) { return syncfs(fd); }

/// posix_spawn settings glibc declares only under _GNU_SOURCE (defined in shim.c: <spawn.h>
/// here would bring a second `fd_set` into Swift's view): a child in a session of its own
/// (POSIX_SPAWN_SETSID added to a `posix_spawnattr_t`'s flags), and one that inherits no
/// descriptor from `lowest` up (closefrom on a `posix_spawn_file_actions_t`). 0, or an error number.
int cposix_spawn_new_session(void *attributes);
int cposix_spawn_close_from(void *actions, int lowest);

/// sync_file_range(SYNC_FILE_RANGE_WRITE) (Linux; defined in shim.c: glibc declares it only under
/// _GNU_SOURCE): starts writing back the dirty pages of [offset, offset + length) of `fd` without
/// waiting for them, so that a later fsync has less left to wait for (`length` 0: to the end of
/// the file). 0, or -1 with errno set.
int cposix_start_writeback(int fd, long long offset, long long length);

/// sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER) (Linux, as above): writes the dirty pages of
/// [offset, offset + length) back and waits until they are on their way to the disk, so that the
/// page cache can let go of them. Not a durability barrier (no metadata, no disk cache flush).
int cposix_finish_writeback(int fd, long long offset, long long length);

/// posix_fadvise(POSIX_FADV_DONTNEED): the page cache drops the clean pages of
/// [offset, offset + length) of `fd` (`length` 0: to the end of the file). Advisory.
static inline int cposix_drop_cached(int fd, long long offset, long long length) {
    return posix_fadvise(fd, (off_t)offset, (off_t)length, POSIX_FADV_DONTNEED);
}

/// posix_fadvise(POSIX_FADV_WILLNEED): the kernel starts reading [offset, offset + length) of
/// `fd` into the page cache without waiting for it (`length` 0: to the end of the file). Advisory.
static inline int cposix_will_need(int fd, long long offset, long long length) {
    return posix_fadvise(fd, (off_t)offset, (off_t)length, POSIX_FADV_WILLNEED);
}

/// copy_file_range(2) (Linux; glibc declares it only under _GNU_SOURCE): copies up to `length`
/// bytes of `in` from `*in_offset` to `out` at `*out_offset` inside the kernel, without passing
/// them through user memory (a file system that shares blocks, such as XFS or Btrfs, shares them
/// instead of copying), and moves both offsets on by the bytes copied. The count, 0 at the end of
/// `in`, or -1 with errno set (EXDEV, EINVAL, EOPNOTSUPP or ENOSYS: not between these files here).
/// (In shim.c: `loff_t` comes with <sys/types.h>, whose <sys/select.h> brings _GNU_SOURCE's
/// `fd_set` into Swift's view, as for `cposix_has_default_acl`.)
long long cposix_copy_file_range(int in, long long *in_offset, int out, long long *out_offset, long long length);

/// SO_PEERCRED (Linux; `struct ucred` needs _GNU_SOURCE): the user and process on the other end
/// of a connected Unix socket. Returns 0, or -1 with errno set.
int cposix_peer_credentials(int fd, uid_t *uid, pid_t *pid);

/// Whether `address` lies in an object the dynamic loader mapped (the program or a shared
/// library): 1, or 0.
int cposix_in_loaded_object(const void *address);

/// Whether the directory `fd` has a default POSIX ACL (1), none (0), or cannot say (-1): a file
/// created in a folder with one takes its permissions from that ACL, not from the creation mask.
/// (In shim.c: <sys/xattr.h> brings in <sys/select.h> with _GNU_SOURCE's fd_set, which differs
/// from the one the other C modules see, and Clang refuses two definitions in one Swift module.)
int cposix_has_default_acl(int fd);

/// setxattr(2) on `path` (flags 0); for tests that give a folder a default ACL.
int cposix_set_attribute(const char *path, const char *name, const void *value, size_t size);

/// The process's file mode creation mask, as the kernel reports it in /proc/self/status (read
/// without changing it, unlike umask(2), which another thread creating a file at that moment
/// would see); -1 when it cannot be read.
int cposix_current_umask(void);

/// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS: opens `path` relative to the directory
/// `dirfd`, refusing any component that is a symbolic link (ELOOP) or that leads out of `dirfd`
/// (EXDEV). Glibc has no wrapper, so the system call is made directly; a kernel without it
/// (before 5.6) answers -1 with errno ENOSYS, and the caller walks the path itself.
static inline int cposix_openat_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
#ifdef SYS_openat2
    struct open_how how = {0};
    how.flags = (uint64_t)(unsigned int)flags;
    how.mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? (uint64_t)mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/// mallopt(M_ARENA_MAX, n): at most `n` malloc arenas, however many threads allocate (glibc
/// otherwise gives threads up to 8 arenas per core, each keeping what was freed into it).
/// Returns 1 on success.
static inline int cposix_limit_malloc_arenas(int n) { return mallopt(M_ARENA_MAX, n); }

/// mallopt(M_MMAP_THRESHOLD, bytes): allocations of `bytes` or more get pages of their own,
/// returned to the system when freed. Setting it also stops glibc from raising the threshold to
/// the largest block freed so far, after which blocks of up to 32 MiB come from the arenas and
/// their memory stays with the process once freed. Returns 1 on success.
static inline int cposix_map_allocations_from(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

/// malloc_trim(0): hands the free memory of every malloc arena back to the system. Returns 1
/// when some was released.
static inline int cposix_release_free_memory(void) { return malloc_trim(0); }
#endif
