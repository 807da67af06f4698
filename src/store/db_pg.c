/* db_pg.c - the PostgreSQL engine of the store's database interface (db.h),
 * through libpq. Parameters travel in binary with their types (int8,
 * float8, text, bytea) and results come back in binary: no value is ever
 * formatted into or parsed out of SQL text, and doubles keep every bit.
 * Server notices are dropped (they would reach stderr); error texts are
 * made one line with the password scrubbed out. */
#include "store/db_internal.h"

#include <endian.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Type OIDs of the built-in types (pg_type.dat; fixed across versions). */
enum {
    OID_BOOL = 16, OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_TEXT = 25,
    OID_FLOAT4 = 700, OID_FLOAT8 = 701
};

/* Seconds a connection attempt may take when the target does not say. */
#define CONNECT_TIMEOUT "10"

typedef struct pg_db {
    etp_db head;
    PGconn *c;
    char *secret; /* the password of the target, scrubbed from messages */
    int pipeline; /* inside etp_db_batch_begin/end */
} pg_db;

typedef struct pg_query {
    etp_db_query head;
    char *sql;
    int nparams, cap;
    Oid *types;
    char **values;
    int *lengths, *formats;
    PGresult *res;                /* the current row (single-row mode) */
    enum { RUN_IDLE, RUN_STREAMING, RUN_DONE } state;
} pg_query;

/* Read what is left of the query's results: the connection is free for the
 * next statement (a query stopped early still receives its rows). */
static void drain(pg_query *q)
{
    if (q->state == RUN_STREAMING) {
        PGresult *r;
        while ((r = PQgetResult(((pg_db *)q->head.db)->c)))
            PQclear(r);
    }
    q->state = RUN_DONE;
}

static void no_notices(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

static etp_status fail_text(etp_db *db, const char *text, etp_error *err)
{
    char line[480];
    etp_db_one_line(text, ((pg_db *)db)->secret, line, sizeof line);
    return etp_error_set(err, ETP_E_IO, db->shown, ETP_NO_OFFSET, "%s", line);
}

/* The error of @p res (its primary message), else the connection's. */
static etp_status fail_result(etp_db *db, const PGresult *res, etp_error *err)
{
    const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    return fail_text(db, m ? m : PQerrorMessage(((pg_db *)db)->c), err);
}

/* The password in @p target ("scheme://user:PASSWORD@..." or "password=..."),
 * or NULL. */
static char *find_secret(const char *target)
{
    size_t off, len;
    if (etp_db_password_at(target, &off, &len))
        return strndup(target + off, len);
    const char *pw = strstr(target, "password=");
    if (pw) {
        pw += 9;
        return strndup(pw, strcspn(pw, "& "));
    }
    return NULL;
}

static void pg_close(etp_db *db)
{
    pg_db *d = (pg_db *)db;
    PQfinish(d->c);
    free(d->secret);
    free(d);
}

static int pg_readonly(const etp_db *db)
{
    (void)db;
    return 0;
}

static etp_status pg_exec(etp_db *db, const char *sql, etp_error *err)
{
    pg_db *d = (pg_db *)db;
    if (d->pipeline) /* one statement, sent with the batch (extended protocol) */
        return PQsendQueryParams(d->c, sql, 0, NULL, NULL, NULL, NULL, 1)
                   ? ETP_OK
                   : fail_text(db, PQerrorMessage(d->c), err);
    PGresult *r = PQexec(d->c, sql);
    ExecStatusType st = PQresultStatus(r);
    etp_status s = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? ETP_OK : fail_result(db, r, err);
    PQclear(r);
    return s;
}

static etp_status pg_open(const char *target, const char *shown, unsigned flags, etp_db **out,
                          etp_error *err)
{
    (void)flags;
    pg_db *d = calloc(1, sizeof *d);
    /* A server that does not answer must not hang the caller. */
    char *url = malloc(strlen(target) + 32);
    if (url && strstr(target, "connect_timeout="))
        strcpy(url, target);
    else if (url)
        sprintf(url, "%s%cconnect_timeout=" CONNECT_TIMEOUT, target, strchr(target, '?') ? '&' : '?');
    if (!d || !url) {
        free(d);
        free(url);
        return etp_error_set(err, ETP_E_NOMEM, shown, ETP_NO_OFFSET, "out of memory");
    }
    snprintf(d->head.shown, sizeof d->head.shown, "%s", shown);
    d->head.ops = &etp_db_pg_ops;
    d->secret = find_secret(target);
    d->c = PQconnectdb(url);
    free(url);
    etp_status s = ETP_OK;
    if (!d->c)
        s = etp_error_set(err, ETP_E_NOMEM, shown, ETP_NO_OFFSET, "out of memory");
    else if (PQstatus(d->c) != CONNECTION_OK)
        s = fail_text(&d->head, PQerrorMessage(d->c), err);
    else {
        /* Text travels as UTF-8. No parallel workers: etprof's reads are
         * index ranges streamed to one client, and on a small server
         * starting two workers cost a filtered series (10,000 of 100,000
         * runs) 30 ms of its 90 (docs/history.md). One round trip for both. */
        PGresult *r = PQexec(d->c, "SET client_encoding TO 'UTF8'; SET max_parallel_workers_per_gather TO 0");
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            s = fail_result(&d->head, r, err);
        PQclear(r);
    }
    if (s) {
        pg_close(&d->head);
        return s;
    }
    PQsetNoticeProcessor(d->c, no_notices, NULL);
    *out = &d->head;
    return ETP_OK;
}

static etp_status pg_prepare(etp_db *db, const char *sql, etp_db_query **out, etp_error *err)
{
    pg_query *q = calloc(1, sizeof *q);
    if (q)
        q->sql = strdup(sql);
    if (!q || !q->sql) {
        free(q);
        return etp_error_set(err, ETP_E_NOMEM, db->shown, ETP_NO_OFFSET, "out of memory");
    }
    *out = &q->head;
    return ETP_OK;
}

/* Parameter @p i (1-based) set to a copy of @p n bytes of type @p type (NULL
 * @p p: SQL NULL). A failed allocation leaves the query to fail at step. */
static void bind(etp_db_query *hq, int i, Oid type, const void *p, size_t n)
{
    pg_query *q = (pg_query *)hq;
    if (i < 1)
        return;
    if (i > q->cap) {
        int cap = i > 2 * q->cap ? i : 2 * q->cap;
        Oid *t = realloc(q->types, (size_t)cap * sizeof *t);
        if (t)
            q->types = t;
        char **v = t ? realloc(q->values, (size_t)cap * sizeof *v) : NULL;
        if (v)
            q->values = v;
        int *l = v ? realloc(q->lengths, (size_t)cap * sizeof *l) : NULL;
        if (l)
            q->lengths = l;
        int *f = l ? realloc(q->formats, (size_t)cap * sizeof *f) : NULL;
        if (!f) {
            q->nparams = -1; /* out of memory: step reports it */
            return;
        }
        q->formats = f;
        for (int k = q->cap; k < cap; k++) {
            q->types[k] = 0;
            q->values[k] = NULL;
            q->lengths[k] = 0;
            q->formats[k] = 1;
        }
        q->cap = cap;
    }
    if (q->nparams < 0)
        return;
    if (i > q->nparams)
        q->nparams = i;
    free(q->values[i - 1]);
    q->values[i - 1] = NULL;
    q->types[i - 1] = type;
    q->lengths[i - 1] = (int)n;
    if (p) {
        q->values[i - 1] = malloc(n + 1);
        if (!q->values[i - 1]) {
            q->nparams = -1;
            return;
        }
        memcpy(q->values[i - 1], p, n);
    }
}

static void pg_bind_int(etp_db_query *q, int i, int64_t v)
{
    uint64_t be = htobe64((uint64_t)v);
    bind(q, i, OID_INT8, &be, 8);
}

static void pg_bind_double(etp_db_query *q, int i, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    bits = htobe64(bits);
    bind(q, i, OID_FLOAT8, &bits, 8);
}

static void pg_bind_text(etp_db_query *q, int i, const char *s, size_t n) { bind(q, i, OID_TEXT, s, n); }
static void pg_bind_bytes(etp_db_query *q, int i, const void *p, size_t n) { bind(q, i, OID_BYTEA, p, n); }
static void pg_bind_null(etp_db_query *q, int i) { bind(q, i, 0, NULL, 0); }

static etp_status pg_batch_begin(etp_db *db, etp_error *err)
{
    pg_db *d = (pg_db *)db;
    if (!PQenterPipelineMode(d->c))
        return fail_text(db, PQerrorMessage(d->c), err);
    d->pipeline = 1;
    return ETP_OK;
}

/* Send the sync, read every result of the batch (the first error wins:
 * the statements after it were skipped by the server), leave pipeline mode. */
static etp_status pg_batch_end(etp_db *db, etp_error *err)
{
    pg_db *d = (pg_db *)db;
    etp_status s = PQpipelineSync(d->c) ? ETP_OK : fail_text(db, PQerrorMessage(d->c), err);
    for (int synced = s != ETP_OK; !synced;) {
        PGresult *r = PQgetResult(d->c);
        if (!r) {
            if (PQstatus(d->c) != CONNECTION_OK) {
                s = s ? s : fail_text(db, PQerrorMessage(d->c), err);
                break;
            }
            continue; /* the end of one statement's results */
        }
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_PIPELINE_SYNC)
            synced = 1;
        else if (st == PGRES_FATAL_ERROR && !s)
            s = fail_result(db, r, err);
        PQclear(r);
    }
    d->pipeline = 0;
    if (!PQexitPipelineMode(d->c) && !s)
        s = fail_text(db, PQerrorMessage(d->c), err);
    return s;
}

static etp_status pg_step(etp_db_query *hq, int *row, etp_error *err)
{
    pg_query *q = (pg_query *)hq;
    pg_db *d = (pg_db *)hq->db;
    *row = 0;
    if (q->nparams < 0)
        return etp_error_set(err, ETP_E_NOMEM, hq->db->shown, ETP_NO_OFFSET, "out of memory");
    if (d->pipeline) /* sent now, its result read by pg_batch_end */
        return PQsendQueryParams(d->c, q->sql, q->nparams, q->types, (const char *const *)q->values,
                                 q->lengths, q->formats, 1)
                   ? ETP_OK
                   : fail_text(hq->db, PQerrorMessage(d->c), err);
    if (q->state == RUN_DONE)
        return ETP_OK;
    if (q->state == RUN_IDLE) {
        /* Rows stream one at a time (single-row mode): the client holds one
         * row, never the whole result (100,000 rows of a series would be
         * tens of MB of fresh memory, each page a fault). */
        if (!PQsendQueryParams(d->c, q->sql, q->nparams, q->types, (const char *const *)q->values,
                               q->lengths, q->formats, 1))
            return fail_text(hq->db, PQerrorMessage(d->c), err);
        PQsetSingleRowMode(d->c); /* may fail only when nothing was sent */
        q->state = RUN_STREAMING;
    }
    PQclear(q->res);
    q->res = PQgetResult(d->c);
    ExecStatusType st = PQresultStatus(q->res);
    if (st == PGRES_SINGLE_TUPLE) {
        *row = 1;
        return ETP_OK;
    }
    etp_status s = st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK ? ETP_OK
                                                                   : fail_result(hq->db, q->res, err);
    PQclear(q->res);
    q->res = NULL;
    drain(q);
    return s;
}

static pg_query *cur(etp_db_query *q) { return (pg_query *)q; }

static int pg_col_null(etp_db_query *hq, int c)
{
    pg_query *q = cur(hq);
    return PQgetisnull(q->res, 0, c);
}

static uint64_t be_bytes(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static double as_double(pg_query *q, int c)
{
    const unsigned char *p = (const unsigned char *)PQgetvalue(q->res, 0, c);
    switch (PQftype(q->res, c)) {
    case OID_FLOAT8: {
        uint64_t bits = be_bytes(p, 8);
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    case OID_FLOAT4: {
        uint32_t bits = (uint32_t)be_bytes(p, 4);
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    case OID_INT8: return (double)(int64_t)be_bytes(p, 8);
    case OID_INT4: return (double)(int32_t)be_bytes(p, 4);
    case OID_INT2: return (double)(int16_t)be_bytes(p, 2);
    case OID_BOOL: return p[0] != 0;
    default: return 0;
    }
}

static int64_t pg_col_int(etp_db_query *hq, int c)
{
    pg_query *q = cur(hq);
    if (PQgetisnull(q->res, 0, c))
        return 0;
    const unsigned char *p = (const unsigned char *)PQgetvalue(q->res, 0, c);
    switch (PQftype(q->res, c)) {
    case OID_INT8: return (int64_t)be_bytes(p, 8);
    case OID_INT4: return (int32_t)be_bytes(p, 4);
    case OID_INT2: return (int16_t)be_bytes(p, 2);
    case OID_BOOL: return p[0] != 0;
    default: return (int64_t)as_double(q, c);
    }
}

static double pg_col_double(etp_db_query *hq, int c) { return as_double(cur(hq), c); }

/* Text and bytea arrive as their raw bytes; libpq ends every value with a NUL. */
static const char *pg_col_bytes(etp_db_query *hq, int c, size_t *len)
{
    pg_query *q = cur(hq);
    *len = (size_t)PQgetlength(q->res, 0, c);
    return PQgetvalue(q->res, 0, c);
}

static void pg_reset(etp_db_query *hq)
{
    pg_query *q = cur(hq);
    PQclear(q->res);
    q->res = NULL;
    drain(q);
    q->state = RUN_IDLE;
    for (int i = 0; i < q->cap; i++) {
        free(q->values[i]);
        q->values[i] = NULL;
        q->types[i] = 0;
    }
    if (q->nparams > 0)
        q->nparams = 0;
}

static void pg_finalize(etp_db_query *hq)
{
    pg_query *q = cur(hq);
    PQclear(q->res);
    drain(q);
    for (int i = 0; i < q->cap; i++)
        free(q->values[i]);
    free(q->types);
    free(q->values);
    free(q->lengths);
    free(q->formats);
    free(q->sql);
    free(q);
}

const etp_db_ops etp_db_pg_ops = {
    .engine = ETP_DB_POSTGRES,
    .id = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    .int_type = "BIGINT",
    .real = "DOUBLE PRECISION",
    .bytes = "BYTEA",
    .norowid = "",
    .open = pg_open,
    .close = pg_close,
    .readonly = pg_readonly,
    .exec = pg_exec,
    .batch_begin = pg_batch_begin,
    .batch_end = pg_batch_end,
    .begin_write = "BEGIN",
    .begin_read = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
    /* One schema change at a time across every client of the server (the
     * number is etprof's own lock id: ASCII "etpsch"). */
    .schema_lock = "SELECT pg_advisory_xact_lock(111546462888808)",
    .has_table_sql = "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() "
                     "AND tablename = $1",
    .prepare = pg_prepare,
    .bind_int = pg_bind_int,
    .bind_double = pg_bind_double,
    .bind_text = pg_bind_text,
    .bind_bytes = pg_bind_bytes,
    .bind_null = pg_bind_null,
    .step = pg_step,
    .col_null = pg_col_null,
    .col_int = pg_col_int,
    .col_double = pg_col_double,
    .col_bytes = pg_col_bytes,
    .reset = pg_reset,
    .finalize = pg_finalize,
};
