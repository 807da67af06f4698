/* db_internal.h - what an engine of the store's database interface (db.h)
 * provides: a table of functions, and the connection and query headers
 * each engine's own structures start with. */
#ifndef ETP_STORE_DB_INTERNAL_H
#define ETP_STORE_DB_INTERNAL_H

#include "store/db.h"

typedef struct etp_db_ops {
    etp_db_engine engine;
    /* Type tokens of db.h, in this engine's words: {ID}, {INT}, {REAL},
     * {BYTES}, {NOROWID}. */
    const char *id, *int_type, *real, *bytes, *norowid;
    etp_status (*open)(const char *target, const char *shown, unsigned flags, etp_db **out,
                       etp_error *err);
    void (*close)(etp_db *db);
    /* The target of another connection to the same database (NULL: none
     * offered, see etp_db_open_reader). */
    const char *(*reader_target)(etp_db *db);
    int (*readonly)(const etp_db *db);
    etp_status (*exec)(etp_db *db, const char *sql, etp_error *err);
    const char *begin_write, *begin_read;
    /* Statements that follow BEGIN in begin_schema (may be NULL). */
    const char *schema_lock;
    const char *has_table_sql; /* one parameter (the name), one integer column: a count */
    etp_status (*batch_begin)(etp_db *db, etp_error *err); /* NULL: statements run at once */
    etp_status (*batch_end)(etp_db *db, etp_error *err);
    etp_status (*prepare)(etp_db *db, const char *sql, etp_db_query **out, etp_error *err);
    /* Rows one INSERT should carry: 1 where preparing a statement costs more
     * than stepping it (SQLite compiles each row of a multi-row VALUES into
     * its program), 0 for as many as the parameter limit allows (a server:
     * a statement per row would be a round trip per row). */
    uint32_t insert_rows_max;
    void (*bind_int)(etp_db_query *q, int i, int64_t v);
    void (*bind_double)(etp_db_query *q, int i, double v);
    void (*bind_text)(etp_db_query *q, int i, const char *s, size_t n);
    void (*bind_bytes)(etp_db_query *q, int i, const void *p, size_t n);
    void (*bind_null)(etp_db_query *q, int i);
    etp_status (*step)(etp_db_query *q, int *row, etp_error *err);
    int (*col_null)(etp_db_query *q, int c);
    int64_t (*col_int)(etp_db_query *q, int c);
    double (*col_double)(etp_db_query *q, int c);
    const char *(*col_bytes)(etp_db_query *q, int c, size_t *len);
    void (*reset)(etp_db_query *q);
    void (*finalize)(etp_db_query *q);
} etp_db_ops;

/* The head of every engine's connection. */
struct etp_db {
    const etp_db_ops *ops;
    char shown[512]; /* the redacted target */
};

/* The head of every engine's query. */
struct etp_db_query {
    const etp_db_ops *ops;
    etp_db *db;
};

extern const etp_db_ops etp_db_sqlite_ops;
extern const etp_db_ops etp_db_pg_ops;

/* Where the password of a URL target ("scheme://user:PASSWORD@host...")
 * lies: 1 with *off and *len set, 0 when it has none. */
int etp_db_password_at(const char *target, size_t *off, size_t *len);

/* An engine's error text as one line (line breaks and tabs become "; " and
 * spaces, trailing blanks cut) with every occurrence of @p secret (may be
 * NULL) replaced by "***", into @p out. */
void etp_db_one_line(const char *text, const char *secret, char *out, size_t size);

#endif
