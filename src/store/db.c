/* db.c - the store's database interface (db.h): engine choice, DDL type
 * tokens, and the calls that go to the engine (texts: db_text.c). */
#include "store/db_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

etp_status etp_db_open(const char *target, unsigned flags, etp_db **out, etp_error *err)
{
    *out = NULL;
    char shown[512];
    if (!target || !*target)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "no database given (--db TARGET or ETPROF_DB)");
    etp_db_redact(target, shown, sizeof shown);
    const etp_db_ops *ops =
        etp_db_engine_of_target(target) == ETP_DB_POSTGRES ? &etp_db_pg_ops : &etp_db_sqlite_ops;
    etp_status s = ops->open(target, shown, flags, out, err);
    if (!s) {
        (*out)->ops = ops;
        snprintf((*out)->shown, sizeof (*out)->shown, "%s", shown);
    }
    return s;
}

void etp_db_close(etp_db *db)
{
    if (db)
        db->ops->close(db);
}

etp_db_engine etp_db_engine_get(const etp_db *db) { return db->ops->engine; }

const char *etp_db_shown(const etp_db *db) { return db->shown; }

int etp_db_readonly(const etp_db *db) { return db->ops->readonly(db); }

etp_status etp_db_exec(etp_db *db, const char *sql, etp_error *err) { return db->ops->exec(db, sql, err); }

etp_status etp_db_begin_write(etp_db *db, etp_error *err) { return db->ops->exec(db, db->ops->begin_write, err); }

etp_status etp_db_begin_read(etp_db *db, etp_error *err) { return db->ops->exec(db, db->ops->begin_read, err); }

etp_status etp_db_begin_schema(etp_db *db, etp_error *err)
{
    etp_status s = db->ops->exec(db, db->ops->begin_write, err);
    if (!s && db->ops->schema_lock && (s = db->ops->exec(db, db->ops->schema_lock, err)))
        etp_db_rollback(db);
    return s;
}

etp_status etp_db_commit(etp_db *db, etp_error *err) { return db->ops->exec(db, "COMMIT", err); }

void etp_db_rollback(etp_db *db)
{
    etp_error ignored;
    etp_error_clear(&ignored);
    db->ops->exec(db, "ROLLBACK", &ignored);
}

etp_status etp_db_batch_begin(etp_db *db, etp_error *err)
{
    return db->ops->batch_begin ? db->ops->batch_begin(db, err) : ETP_OK;
}

etp_status etp_db_batch_end(etp_db *db, etp_error *err)
{
    return db->ops->batch_end ? db->ops->batch_end(db, err) : ETP_OK;
}

int etp_db_has_table(etp_db *db, const char *name, etp_error *err)
{
    etp_db_query *q;
    if (etp_db_prepare(db, db->ops->has_table_sql, &q, err))
        return -1;
    etp_db_bind_text(q, 1, name);
    int row = 0;
    etp_status s = etp_db_step(q, &row, err);
    int found = !s && row && etp_db_col_int(q, 0) > 0;
    etp_db_finalize(q);
    return s ? -1 : found;
}

etp_status etp_db_prepare(etp_db *db, const char *sql, etp_db_query **out, etp_error *err)
{
    *out = NULL;
    etp_status s = db->ops->prepare(db, sql, out, err);
    if (!s) {
        (*out)->ops = db->ops;
        (*out)->db = db;
    }
    return s;
}

void etp_db_bind_int(etp_db_query *q, int i, int64_t v) { q->ops->bind_int(q, i, v); }

void etp_db_bind_double(etp_db_query *q, int i, double v)
{
    if (isnan(v))
        q->ops->bind_null(q, i);
    else
        q->ops->bind_double(q, i, v);
}

void etp_db_bind_text(etp_db_query *q, int i, const char *s)
{
    if (s)
        q->ops->bind_text(q, i, s, strlen(s));
    else
        q->ops->bind_null(q, i);
}

void etp_db_bind_bytes(etp_db_query *q, int i, const void *p, size_t n)
{
    q->ops->bind_bytes(q, i, p ? p : "", n);
}

void etp_db_bind_null(etp_db_query *q, int i) { q->ops->bind_null(q, i); }

etp_status etp_db_step(etp_db_query *q, int *row, etp_error *err) { return q->ops->step(q, row, err); }

int etp_db_col_null(etp_db_query *q, int c) { return q->ops->col_null(q, c); }

int64_t etp_db_col_int(etp_db_query *q, int c) { return q->ops->col_int(q, c); }

double etp_db_col_double(etp_db_query *q, int c)
{
    return q->ops->col_null(q, c) ? NAN : q->ops->col_double(q, c);
}

const char *etp_db_col_bytes(etp_db_query *q, int c, size_t *len)
{
    size_t n = 0;
    const char *p = q->ops->col_bytes(q, c, &n);
    if (len)
        *len = p ? n : 0;
    return p ? p : "";
}

void etp_db_reset(etp_db_query *q) { q->ops->reset(q); }

static const char *reader_target(etp_db *db)
{
    const char *target = db->ops->reader_target ? db->ops->reader_target(db) : NULL;
    return target && *target ? target : NULL;
}

int etp_db_offers_reader(etp_db *db) { return reader_target(db) != NULL; }

int etp_db_open_reader(etp_db *db, etp_db **out, etp_error *err)
{
    *out = NULL;
    const char *target = reader_target(db);
    if (!target)
        return 0;
    return etp_db_open(target, ETP_DB_READ, out, err) ? -1 : 1;
}

uint32_t etp_db_insert_rows_max(const etp_db *db) { return db->ops->insert_rows_max; }

void etp_db_finalize(etp_db_query *q)
{
    if (q)
        q->ops->finalize(q);
}

etp_status etp_db_query_int(etp_db *db, const char *sql, int64_t *v, int *found, etp_error *err)
{
    etp_db_query *q;
    etp_status s = etp_db_prepare(db, sql, &q, err);
    if (s)
        return s;
    int row = 0;
    s = etp_db_step(q, &row, err);
    if (!s && row && !etp_db_col_null(q, 0))
        *v = etp_db_col_int(q, 0);
    if (found)
        *found = !s && row && !etp_db_col_null(q, 0);
    etp_db_finalize(q);
    return s;
}
