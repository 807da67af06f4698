/*
 * db.h - the one small database interface the run-history store speaks, with
 * two engines behind it: SQLite (db_sqlite.c, a file) and PostgreSQL
 * (db_pg.c, libpq). Everything above this header is written once for both.
 *
 * SQL is written with PostgreSQL's numbered placeholders ($1, $2, ...); the
 * SQLite engine reads them as its own ?1, ?2. Values only ever travel as
 * bound parameters: no text of the data is ever pasted into SQL. The SQL
 * text itself is built from constants and counts (how many rows a
 * multi-row INSERT carries), never from data.
 *
 * Column types in DDL are written as tokens the engine replaces
 * (etp_db_ddl): {ID} an auto-numbered 64-bit primary key, {INT} a 64-bit
 * integer, {REAL} a double, {BYTES} bytes kept exactly (labels, paths and
 * names that may not be UTF-8: SQLite BLOB, PostgreSQL bytea), {NOROWID}
 * SQLite's WITHOUT ROWID clause (nothing on PostgreSQL). TEXT columns hold
 * only text a bundle's JSON carried (valid UTF-8, no NUL).
 *
 * Errors are one line naming the target with any password replaced by
 * "***" (etp_db_redact): a password never reaches a message, a log or a file.
 *
 * Thread safety: a connection and its queries belong to one thread at a time.
 */
#ifndef ETP_STORE_DB_H
#define ETP_STORE_DB_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/error.h"

typedef enum etp_db_engine { ETP_DB_SQLITE = 0, ETP_DB_POSTGRES } etp_db_engine;

/* How a connection is opened. */
enum {
    ETP_DB_READ = 0,      /* an existing database; writes may still be tried */
    ETP_DB_CREATE = 1     /* SQLite: create a missing file (PostgreSQL: the database must exist) */
};

typedef struct etp_db etp_db;
typedef struct etp_db_query etp_db_query;

/* Which engine @p target names: "postgresql://..." or "postgres://..." is
 * PostgreSQL, anything else a SQLite file path. */
etp_db_engine etp_db_engine_of_target(const char *target);

/* @p target for messages: the password of a URL ("user:PASSWORD@") and any
 * "password=" parameter replaced by "***". Always terminated; cut to fit. */
void etp_db_redact(const char *target, char *out, size_t size);

/* Connect. The error names the redacted target. */
etp_status etp_db_open(const char *target, unsigned flags, etp_db **out, etp_error *err);
void etp_db_close(etp_db *db);
/* Another connection to the database @p db is on, for reading on another
 * thread while @p db is used on this one (each connection stays on one
 * thread at a time). Returns 1 with *@p out where the engine offers one
 * cheaply (SQLite: the same file), 0 where it does not (a server: a second
 * connection is a second server process to start), -1 with @p err set when
 * opening failed. */
int etp_db_open_reader(etp_db *db, etp_db **out, etp_error *err);
/* 1 when etp_db_open_reader would try to open one, without opening it. */
int etp_db_offers_reader(etp_db *db);
etp_db_engine etp_db_engine_get(const etp_db *db);
/* The redacted target (for messages). */
const char *etp_db_shown(const etp_db *db);
/* 1 when the database cannot be written (a read-only SQLite file or
 * directory); PostgreSQL reports it when a write is tried. */
int etp_db_readonly(const etp_db *db);

/* @p ddl with the type tokens of this engine (malloc'd; NULL when out of memory). */
char *etp_db_ddl(const etp_db *db, const char *ddl);

/* Run statements without parameters or rows (DDL, pragmas); several may be
 * separated by ';'. */
etp_status etp_db_exec(etp_db *db, const char *sql, etp_error *err);

/* Transactions. begin_write takes the write lock up front (SQLite BEGIN
 * IMMEDIATE: concurrent writers queue on the busy timeout instead of failing
 * on a lock upgrade); begin_read gives one consistent snapshot for several
 * queries; begin_schema also serialises schema changes between processes
 * (PostgreSQL: a transaction-scoped advisory lock). rollback never fails
 * loudly: it is the path out of an error. */
etp_status etp_db_begin_write(etp_db *db, etp_error *err);
etp_status etp_db_begin_read(etp_db *db, etp_error *err);
etp_status etp_db_begin_schema(etp_db *db, etp_error *err);
etp_status etp_db_commit(etp_db *db, etp_error *err);
void etp_db_rollback(etp_db *db);

/* Statements that return no rows, batched: between batch_begin and
 * batch_end an engine may send them without waiting for each (PostgreSQL's
 * pipeline mode: the lot costs one round trip to the server); their first
 * error is reported by etp_db_batch_end (a statement of the batch reports
 * only a failure to send it). No statement inside a batch may return rows.
 * SQLite runs each statement at once. */
etp_status etp_db_batch_begin(etp_db *db, etp_error *err);
etp_status etp_db_batch_end(etp_db *db, etp_error *err);

/* 1 when table @p name exists, 0 when not; -1 on error (err set). */
int etp_db_has_table(etp_db *db, const char *name, etp_error *err);

/* A statement: prepare, bind 1-based parameters, step through its rows;
 * reset to bind again and run once more. */
etp_status etp_db_prepare(etp_db *db, const char *sql, etp_db_query **out, etp_error *err);
void etp_db_bind_int(etp_db_query *q, int i, int64_t v);
void etp_db_bind_double(etp_db_query *q, int i, double v); /* NaN binds NULL */
void etp_db_bind_text(etp_db_query *q, int i, const char *s); /* NULL binds NULL */
void etp_db_bind_bytes(etp_db_query *q, int i, const void *p, size_t n);
void etp_db_bind_null(etp_db_query *q, int i);
/* Run (on the first call) and advance: *row 1 with a row to read, 0 when
 * done. */
etp_status etp_db_step(etp_db_query *q, int *row, etp_error *err);
int etp_db_col_null(etp_db_query *q, int c);
int64_t etp_db_col_int(etp_db_query *q, int c);
double etp_db_col_double(etp_db_query *q, int c); /* NULL reads as NaN */
/* Text or bytes of column @p c, valid until the next step ("" for NULL);
 * *len (may be NULL) receives the length. Text is NUL-terminated; a {BYTES}
 * column's value may not be: read it with its length. */
const char *etp_db_col_bytes(etp_db_query *q, int c, size_t *len);
void etp_db_reset(etp_db_query *q);
/* Rows one INSERT statement should carry on this engine (0: no limit but
 * the parameters'); a statement of one row is prepared once and stepped
 * once per row. */
uint32_t etp_db_insert_rows_max(const etp_db *db);
void etp_db_finalize(etp_db_query *q);

/* Prepare @p sql, bind nothing, step once: the first column of the first
 * row as an integer in *v (*found 0 and *v untouched without a row). */
etp_status etp_db_query_int(etp_db *db, const char *sql, int64_t *v, int *found, etp_error *err);

#endif
