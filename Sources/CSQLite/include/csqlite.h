#ifndef CSQLITE_H
#define CSQLITE_H
#include <sqlite3.h>

/// sqlite3_bind_text/blob with SQLITE_TRANSIENT (a macro Swift cannot import): SQLite copies the bytes.
static inline int csqlite_bind_text(sqlite3_stmt *s, int i, const char *text, int n) {
    return sqlite3_bind_text(s, i, text, n, SQLITE_TRANSIENT);
}
static inline int csqlite_bind_blob(sqlite3_stmt *s, int i, const void *bytes, int n) {
    return sqlite3_bind_blob(s, i, bytes, n, SQLITE_TRANSIENT);
}
#endif
