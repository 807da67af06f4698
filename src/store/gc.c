/* gc.c - removing old runs (etp_store_gc): the newest N of each default
 * series group are kept (program digest x method x `device` label), and/or
 * the runs of the last D days; everything else goes, with every row that
 * belongs to it (ON DELETE CASCADE), in one transaction. The dictionary
 * rows (metric kinds, entity keys) stay: they are shared, small, and a
 * concurrent writer may be about to use them. */
#include "store/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utc_time.h"

/* Runs deleted per statement. */
#define BATCH 500

static etp_status delete_runs(etp_store *s, const int64_t *ids, size_t n, etp_error *err)
{
    for (size_t lo = 0; lo < n; lo += BATCH) {
        size_t k = n - lo < BATCH ? n - lo : BATCH;
        etp_db_query *q;
        etp_status st = etp_store_prepare_text(s, etp_store_in_list_sql("DELETE FROM runs WHERE id IN (", k),
                                               &q, err);
        if (st)
            return st;
        for (size_t i = 0; i < k; i++)
            etp_db_bind_int(q, (int)i + 1, ids[lo + i]);
        int row;
        st = etp_db_step(q, &row, err);
        etp_db_finalize(q);
        if (st)
            return st;
    }
    return ETP_OK;
}

etp_status etp_store_gc(etp_store *s, const etp_store_gc_options *o, uint64_t *removed,
                        uint64_t *kept, etp_error *err)
{
    *removed = *kept = 0;
    if (!o->keep_last && !o->keep_days)
        return etp_error_set(err, ETP_E_USAGE, etp_db_shown(s->db), ETP_NO_OFFSET,
                             "nothing to decide by: give --keep-last N or --keep-days D");
    int64_t cutoff = etp_utc_now_ms() - (int64_t)o->keep_days * 86400000;
    etp_status st = etp_db_begin_write(s->db, err);
    if (st)
        return st;
    etp_db_query *q = NULL;
    st = etp_db_prepare(s->db,
                        "SELECT r.id, r.published_ms, r.program_sha256, r.method, l.value "
                        "FROM runs r LEFT JOIN labels l ON l.run = r.id AND l.key = 'device' "
                        "ORDER BY r.published_ms DESC, r.id DESC",
                        &q, err);
    etp_store_dict groups; /* runs seen per group, newest first */
    etp_store_dict_init(&groups);
    int64_t *gone = NULL;
    size_t ngone = 0, cap = 0;
    char *key = NULL;
    size_t key_cap = 0;
    int row = 0;
    while (!st && !(st = etp_db_step(q, &row, err)) && row) {
        size_t pl, ml, dl;
        const char *p = etp_db_col_bytes(q, 2, &pl), *m = etp_db_col_bytes(q, 3, &ml);
        int no_device = etp_db_col_null(q, 4);
        const char *d = etp_db_col_bytes(q, 4, &dl);
        /* program NUL method NUL (1 device | 0) */
        size_t need = pl + ml + dl + 4;
        if (need > key_cap) {
            char *k = realloc(key, need);
            if (!k) {
                st = etp_store_nomem(s, err);
                break;
            }
            key = k;
            key_cap = need;
        }
        memcpy(key, p, pl + 1);
        memcpy(key + pl + 1, m, ml + 1);
        key[pl + ml + 2] = no_device ? '0' : '1';
        memcpy(key + pl + ml + 3, d, dl);
        int64_t *seen = etp_store_dict_slot(&groups, key, pl + ml + 3 + dl, NULL);
        if (!seen) {
            st = etp_store_nomem(s, err);
            break;
        }
        int go = (o->keep_last && (*seen)++ >= o->keep_last) ||
                 (o->keep_days && etp_db_col_int(q, 1) < cutoff);
        if (!go) {
            (*kept)++;
            continue;
        }
        if (ngone == cap) {
            cap = cap ? cap * 2 : 1024;
            int64_t *v = realloc(gone, cap * sizeof *v);
            if (!v) {
                st = etp_store_nomem(s, err);
                break;
            }
            gone = v;
        }
        gone[ngone++] = etp_db_col_int(q, 0);
    }
    etp_db_finalize(q);
    if (!st && !o->dry_run)
        st = delete_runs(s, gone, ngone, err);
    if (!st && !o->dry_run)
        st = etp_db_commit(s->db, err);
    if (st || o->dry_run)
        etp_db_rollback(s->db);
    if (!st)
        *removed = ngone;
    free(gone);
    free(key);
    etp_store_dict_free(&groups);
    return st;
}
