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
/// sqlite3_bind_text with SQLITE_STATIC: the bytes must stay valid until the statement is reset.
static inline int csqlite_bind_text_static(sqlite3_stmt *s, int i, const void *text, int n) {
    return sqlite3_bind_text(s, i, (const char *)text, n, SQLITE_STATIC);
}
#endif
