/* db_sqlite.c - the SQLite engine of the store's database interface (db.h):
 * one file, WAL journal (readers beside one writer), a busy timeout
 * (concurrent writers wait their turn instead of failing), foreign keys on
 * (a run's rows go with it), synchronous=NORMAL (a crashed process loses
 * nothing committed; WAL keeps the file consistent). */
#include "store/db_internal.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How long a writer waits for another process's transaction to end. */
#define BUSY_TIMEOUT_MS 120000

/* Finalized statements kept for their next prepare of the same text:
 * ingest prepares the same few INSERTs and lookups for every bundle, and
 * compiling them was a tenth of its CPU time. */
#define STMT_CACHE 32

typedef struct sq_db {
    etp_db head;
    sqlite3 *h;
    sqlite3_stmt *idle[STMT_CACHE]; /* reset, bindings cleared; oldest first */
    int nidle;
} sq_db;

typedef struct sq_query {
    etp_db_query head;
    sqlite3_stmt *st;
} sq_query;

static etp_status fail(etp_db *db, const char *what, etp_error *err)
{
    char line[480];
    etp_db_one_line(sqlite3_errmsg(((sq_db *)db)->h), NULL, line, sizeof line);
    return etp_error_set(err, ETP_E_IO, db->shown, ETP_NO_OFFSET, "%s%s", what, line);
}

static void sq_close(etp_db *db)
{
    sq_db *d = (sq_db *)db;
    for (int i = 0; i < d->nidle; i++)
        sqlite3_finalize(d->idle[i]);
    d->nidle = 0;
    sqlite3_close_v2(d->h);
    free(d);
}

/* The main database's file ("" for a temporary or in-memory one). */
static const char *sq_reader_target(etp_db *db) { return sqlite3_db_filename(((sq_db *)db)->h, "main"); }

static int sq_readonly(const etp_db *db) { return sqlite3_db_readonly(((const sq_db *)db)->h, "main") == 1; }

static etp_status sq_exec(etp_db *db, const char *sql, etp_error *err)
{
    if (sqlite3_exec(((sq_db *)db)->h, sql, NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, "", err);
    return ETP_OK;
}

static etp_status sq_open(const char *target, const char *shown, unsigned flags, etp_db **out,
                          etp_error *err)
{
    struct stat st;
    if (!(flags & ETP_DB_CREATE) && stat(target, &st) != 0)
        return etp_error_set(err, ETP_E_IO, shown, ETP_NO_OFFSET, "no such database: %s",
                             strerror(errno));
    sq_db *d = calloc(1, sizeof *d);
    if (!d)
        return etp_error_set(err, ETP_E_NOMEM, shown, ETP_NO_OFFSET, "out of memory");
    snprintf(d->head.shown, sizeof d->head.shown, "%s", shown);
    d->head.ops = &etp_db_sqlite_ops;
    int of = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
    if (flags & ETP_DB_CREATE)
        of |= SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(target, &d->h, of, NULL) != SQLITE_OK) {
        etp_status s = d->h ? fail(&d->head, "cannot open: ", err)
                            : etp_error_set(err, ETP_E_NOMEM, shown, ETP_NO_OFFSET, "out of memory");
        sq_close(&d->head);
        return s;
    }
    sqlite3_busy_timeout(d->h, BUSY_TIMEOUT_MS);
    /* WAL is a property of the file, set once by the first writer; a
     * read-only file keeps whatever mode it has. */
    /* Reads through a memory map (no copy per page read) and a larger page
     * cache: a series over a large history reads tens of megabytes. */
    etp_status s = sq_exec(&d->head,
                           "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL; "
                           "PRAGMA mmap_size=1073741824; PRAGMA cache_size=-65536",
                           err);
    if (!s && !sq_readonly(&d->head))
        s = sq_exec(&d->head, "PRAGMA journal_mode=WAL", err);
    if (s) {
        sq_close(&d->head);
        return s;
    }
    *out = &d->head;
    return ETP_OK;
}

/* PostgreSQL's $N placeholders in SQLite's words: plain "?" when they come
 * in order ($1, $2, ... each once: SQLite numbers "?" the same way), else
 * ?N. The plain form matters: SQLite looks each ?N up in a list of the
 * numbers seen so far, so a multi-row INSERT of thousands of ?N would cost
 * the square of their count to prepare. */
static char *placeholders(const char *sql)
{
    char *s = strdup(sql);
    if (!s)
        return NULL;
    long expect = 1;
    int in_order = 1;
    for (const char *p = s; *p && in_order; p++)
        if (*p == '$' && p[1] >= '0' && p[1] <= '9')
            in_order = strtol(p + 1, NULL, 10) == expect++;
    char *o = s;
    for (const char *p = s; *p;) {
        if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
            *o++ = '?';
            p++;
            if (in_order)
                while (*p >= '0' && *p <= '9')
                    p++;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    return s;
}

static etp_status sq_prepare(etp_db *db, const char *sql, etp_db_query **out, etp_error *err)
{
    sq_query *q = calloc(1, sizeof *q);
    char *text = placeholders(sql);
    if (!q || !text) {
        free(q);
        free(text);
        return etp_error_set(err, ETP_E_NOMEM, db->shown, ETP_NO_OFFSET, "out of memory");
    }
    sq_db *d = (sq_db *)db;
    for (int i = d->nidle - 1; i >= 0; i--)
        if (!strcmp(sqlite3_sql(d->idle[i]), text)) {
            q->st = d->idle[i];
            memmove(&d->idle[i], &d->idle[i + 1], (size_t)(d->nidle - i - 1) * sizeof d->idle[0]);
            d->nidle--;
            free(text);
            *out = &q->head;
            return ETP_OK;
        }
    int rc = sqlite3_prepare_v2(d->h, text, -1, &q->st, NULL);
    free(text);
    if (rc != SQLITE_OK) {
        free(q);
        return fail(db, "", err);
    }
    *out = &q->head;
    return ETP_OK;
}

static sqlite3_stmt *st(etp_db_query *q) { return ((sq_query *)q)->st; }

static void sq_bind_int(etp_db_query *q, int i, int64_t v) { sqlite3_bind_int64(st(q), i, v); }
static void sq_bind_double(etp_db_query *q, int i, double v) { sqlite3_bind_double(st(q), i, v); }
static void sq_bind_text(etp_db_query *q, int i, const char *s, size_t n)
{
    sqlite3_bind_text64(st(q), i, s, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}
static void sq_bind_bytes(etp_db_query *q, int i, const void *p, size_t n)
{
    sqlite3_bind_blob64(st(q), i, p, n, SQLITE_TRANSIENT);
}
static void sq_bind_null(etp_db_query *q, int i) { sqlite3_bind_null(st(q), i); }

static etp_status sq_step(etp_db_query *q, int *row, etp_error *err)
{
    int rc = sqlite3_step(st(q));
    *row = rc == SQLITE_ROW;
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        return ETP_OK;
    return fail(q->db, "", err);
}

static int sq_col_null(etp_db_query *q, int c) { return sqlite3_column_type(st(q), c) == SQLITE_NULL; }
static int64_t sq_col_int(etp_db_query *q, int c) { return sqlite3_column_int64(st(q), c); }
static double sq_col_double(etp_db_query *q, int c) { return sqlite3_column_double(st(q), c); }
static const char *sq_col_bytes(etp_db_query *q, int c, size_t *len)
{
    /* A BLOB as stored: asking for text would copy it to add a NUL. */
    const char *p = sqlite3_column_type(st(q), c) == SQLITE_BLOB
                        ? (const char *)sqlite3_column_blob(st(q), c)
                        : (const char *)sqlite3_column_text(st(q), c);
    *len = (size_t)sqlite3_column_bytes(st(q), c);
    return p;
}

static void sq_reset(etp_db_query *q)
{
    sqlite3_reset(st(q));
    sqlite3_clear_bindings(st(q));
}

static void sq_finalize(etp_db_query *q)
{
    sq_db *d = (sq_db *)q->db;
    sqlite3_stmt *stmt = st(q);
    /* Kept only when short (a long text is a one-off: a multi-row INSERT or
     * an IN list whose length varies) and reset cleanly. */
    const char *sql = sqlite3_sql(stmt);
    if (sql && strlen(sql) < 2048 && sqlite3_reset(stmt) == SQLITE_OK) {
        sqlite3_clear_bindings(stmt);
        if (d->nidle == STMT_CACHE) {
            sqlite3_finalize(d->idle[0]);
            memmove(&d->idle[0], &d->idle[1], (STMT_CACHE - 1) * sizeof d->idle[0]);
            d->nidle--;
        }
        d->idle[d->nidle++] = stmt;
    } else {
        sqlite3_finalize(stmt);
    }
    free(q);
}

const etp_db_ops etp_db_sqlite_ops = {
    .engine = ETP_DB_SQLITE,
    .id = "INTEGER PRIMARY KEY",
    .int_type = "INTEGER",
    .real = "REAL",
    .bytes = "BLOB",
    .norowid = " WITHOUT ROWID",
    .open = sq_open,
    .close = sq_close,
    .reader_target = sq_reader_target,
    .readonly = sq_readonly,
    .exec = sq_exec,
    .begin_write = "BEGIN IMMEDIATE",
    .begin_read = "BEGIN",
    .schema_lock = NULL, /* BEGIN IMMEDIATE already excludes every other writer */
    .has_table_sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
    .prepare = sq_prepare,
    .insert_rows_max = 1,
    .bind_int = sq_bind_int,
    .bind_double = sq_bind_double,
    .bind_text = sq_bind_text,
    .bind_bytes = sq_bind_bytes,
    .bind_null = sq_bind_null,
    .step = sq_step,
    .col_null = sq_col_null,
    .col_int = sq_col_int,
    .col_double = sq_col_double,
    .col_bytes = sq_col_bytes,
    .reset = sq_reset,
    .finalize = sq_finalize,
};
