/* series_runs.c - the point column of series_runs: what a series reads of a
 * run, in one value (a series reads one per run of the history, and every
 * column costs the server and libpq a little per row):
 *
 *   run (8 bytes), published_ms (8 bytes), both little-endian two's
 *   complement; detailed (1 byte, 0 or 1); the run id; a NUL; the labels as
 *   runs.labels holds them (key NUL value NUL ..., sorted by key).
 *
 * Also the rows of the runs stored before schema version 3 (step 3). */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

#define POINT_FIXED 17

static void put_le64(unsigned char *p, int64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)((uint64_t)v >> (8 * i));
}

static int64_t get_le64(const unsigned char *p)
{
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&v, p, 8); /* one load: a series unpacks two a run */
#else
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
#endif
    return (int64_t)v;
}

unsigned char *etp_store_point_pack(const etp_store_point *pt, size_t *len)
{
    size_t n = POINT_FIXED + pt->run_id_len + 1 + pt->labels_len;
    unsigned char *p = malloc(n);
    if (!p)
        return NULL;
    put_le64(p, pt->run);
    put_le64(p + 8, pt->published_ms);
    p[16] = pt->detailed != 0;
    memcpy(p + POINT_FIXED, pt->run_id, pt->run_id_len);
    p[POINT_FIXED + pt->run_id_len] = '\0';
    memcpy(p + POINT_FIXED + pt->run_id_len + 1, pt->labels, pt->labels_len);
    *len = n;
    return p;
}

int etp_store_point_unpack(const char *bytes, size_t n, etp_store_point *pt)
{
    const unsigned char *p = (const unsigned char *)bytes;
    const char *nul = n > POINT_FIXED ? memchr(bytes + POINT_FIXED, 0, n - POINT_FIXED) : NULL;
    if (!nul || p[16] > 1)
        return -1;
    pt->run = get_le64(p);
    pt->published_ms = get_le64(p + 8);
    pt->detailed = p[16];
    pt->run_id = bytes + POINT_FIXED;
    pt->run_id_len = (size_t)(nul - pt->run_id);
    pt->labels = nul + 1;
    pt->labels_len = n - POINT_FIXED - pt->run_id_len - 1;
    return 0;
}

void etp_store_point_bind(etp_db_query *q, int p, const etp_store_point *pt, int64_t head)
{
    size_t n;
    unsigned char *point = etp_store_point_pack(pt, &n);
    etp_db_bind_int(q, p, pt->run);
    etp_db_bind_int(q, p + 1, head);
    etp_db_bind_int(q, p + 2, pt->published_ms);
    if (point)
        etp_db_bind_bytes(q, p + 3, point, n);
    else
        etp_db_bind_null(q, p + 3); /* out of memory: the statement fails (NOT NULL) */
    free(point);
}

/* ---- runs stored before schema version 3 ---------------------------------- */

#define BACKFILL_CHUNK 2000
#define TEXT_OF(x) #x
#define NUMBER_TEXT(x) TEXT_OF(x)

/* A chunk of runs read: each point's strings in one allocation of its own. */
typedef struct backfill_rows {
    etp_store_point pts[BACKFILL_CHUNK];
    int64_t heads[BACKFILL_CHUNK];
    char *owned[BACKFILL_CHUNK];
    uint32_t n;
} backfill_rows;

static etp_status read_chunk(etp_db *db, int64_t after, backfill_rows *r, etp_error *err)
{
    etp_db_query *q;
    etp_status st = etp_db_prepare(
        db,
        "SELECT r.id, h.id, r.published_ms, r.detailed, r.run_id, r.labels FROM runs r "
        "JOIN run_heads h ON h.program_sha256 = r.program_sha256 AND h.etrecord_sha256 = "
        "r.etrecord_sha256 AND h.method = r.method AND h.time_unit = r.time_unit AND h.validity = "
        "r.validity AND h.tool_version = r.tool_version WHERE r.id > $1 AND NOT EXISTS (SELECT 1 "
        "FROM series_runs k WHERE k.run = r.id) ORDER BY r.id LIMIT " NUMBER_TEXT(BACKFILL_CHUNK),
        &q, err);
    if (st)
        return st;
    etp_db_bind_int(q, 1, after);
    int row;
    while (!(st = etp_db_step(q, &row, err)) && row && r->n < BACKFILL_CHUNK) {
        size_t idl, ll;
        const char *id = etp_db_col_bytes(q, 4, &idl), *labels = etp_db_col_bytes(q, 5, &ll);
        char *own = malloc(idl + ll + 1);
        if (!own) {
            st = etp_error_set(err, ETP_E_NOMEM, etp_db_shown(db), ETP_NO_OFFSET, "out of memory");
            break;
        }
        memcpy(own, id, idl);
        memcpy(own + idl, labels, ll);
        r->owned[r->n] = own;
        r->heads[r->n] = etp_db_col_int(q, 1);
        r->pts[r->n] = (etp_store_point){etp_db_col_int(q, 0), etp_db_col_int(q, 2),
                                         etp_db_col_int(q, 3) != 0, own, own + idl, idl, ll};
        r->n++;
    }
    etp_db_finalize(q);
    return st;
}

/* The chunk's rows, sent as one batch (PostgreSQL: one round trip). */
static etp_status write_chunk(etp_db *db, const backfill_rows *r, etp_error *err)
{
    etp_db_query *q = NULL;
    etp_status st = etp_db_batch_begin(db, err);
    etp_status sent = st ? st
                         : etp_db_prepare(db,
                                          "INSERT INTO series_runs (" ETP_STORE_SERIES_RUNS_COLUMNS
                                          ") VALUES ($1, $2, $3, $4)",
                                          &q, err);
    int row;
    for (uint32_t i = 0; !sent && i < r->n; i++) {
        etp_store_point_bind(q, 1, &r->pts[i], r->heads[i]);
        sent = etp_db_step(q, &row, err);
        etp_db_reset(q);
    }
    etp_db_finalize(q);
    if (!st) {
        etp_error ignored;
        etp_error_clear(&ignored);
        etp_status ended = etp_db_batch_end(db, sent ? &ignored : err);
        st = sent ? sent : ended;
    }
    return st;
}

etp_status etp_store_series_backfill(etp_db *db, etp_error *err)
{
    etp_status st = etp_db_exec(
        db,
        "INSERT INTO run_heads (program_sha256, etrecord_sha256, method, time_unit, validity, "
        "tool_version) SELECT DISTINCT r.program_sha256, r.etrecord_sha256, r.method, r.time_unit, "
        "r.validity, r.tool_version FROM runs r WHERE NOT EXISTS (SELECT 1 FROM series_runs k "
        "WHERE k.run = r.id) ON CONFLICT (program_sha256, etrecord_sha256, method, time_unit, "
        "validity, tool_version) DO NOTHING",
        err);
    backfill_rows *r = st ? NULL : malloc(sizeof *r);
    if (!st && !r)
        st = etp_error_set(err, ETP_E_NOMEM, etp_db_shown(db), ETP_NO_OFFSET, "out of memory");
    /* A chunk at a time, read then written: a connection runs one
     * statement at a time. */
    for (int64_t after = 0; !st;) {
        r->n = 0;
        st = read_chunk(db, after, r, err);
        if (!st && r->n)
            st = write_chunk(db, r, err);
        for (uint32_t i = 0; i < r->n; i++)
            free(r->owned[i]);
        if (r->n < BACKFILL_CHUNK)
            break;
        after = r->pts[r->n - 1].run;
    }
    free(r);
    return st;
}
