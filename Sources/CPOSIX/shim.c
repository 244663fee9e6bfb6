#include "cposix.h"
#include <sys/socket.h>

int cposix_peer_credentials(int fd, uid_t *uid, pid_t *pid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *pid = credentials.pid;
    return 0;
}

#include <spawn.h>

int cposix_spawn_new_session(void *attributes) {
    short flags = 0;
    int rc = posix_spawnattr_getflags((posix_spawnattr_t *)attributes, &flags);
    if (rc != 0) return rc;
    return posix_spawnattr_setflags((posix_spawnattr_t *)attributes, (short)(flags | POSIX_SPAWN_SETSID));
}

int cposix_spawn_close_from(void *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, lowest);
}

int cposix_start_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
}

int cposix_finish_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, (off_t)offset, (off_t)length,
                           SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
}

#include <stdio.h>

int cposix_current_umask(void) {
    FILE *status = fopen("/proc/self/status", "re");
    if (!status) return -1;
    char line[256];
    int mask = -1;
    while (fgets(line, sizeof line, status)) {
        unsigned int value;
        if (sscanf(line, "Umask: %o", &value) == 1) { mask = (int)(value & 0777); break; }
    }
    fclose(status);
    return mask;
}

#include <sys/xattr.h>

int cposix_has_default_acl(int fd) {
    ssize_t n = fgetxattr(fd, "system.posix_acl_default", NULL, 0);
    if (n >= 0) return n > 0;
    return (errno == ENODATA || errno == ENOTSUP) ? 0 : -1;
}

int cposix_set_attribute(const char *path, const char *name, const void *value, size_t size) {
    return setxattr(path, name, value, size, 0);
}

#include <dlfcn.h>

int cposix_in_loaded_object(const void *address) {
    Dl_info info;
    return dladdr(address, &info) != 0;
}

#include <sys/types.h>

long long cposix_copy_file_range(int in, long long *in_offset, int out, long long *out_offset, long long length) {
    loff_t from = (loff_t)*in_offset, to = (loff_t)*out_offset;
    ssize_t n = copy_file_range(in, &from, out, &to, (size_t)length, 0);
    if (n > 0) { *in_offset = from; *out_offset = to; }
    return n;
}
