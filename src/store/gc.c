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

typedef struct group_count {
    etp_hm index;
    char **keys;
    size_t *lens;
    uint32_t *counts;
    uint32_t n, cap;
} group_count;

/* How many runs of the group @p key (of @p len bytes) were seen before this one. */
static int count_group(group_count *g, const char *key, size_t len, uint32_t *seen)
{
    uint64_t h = etp_hash_bytes(key, len, 5);
    size_t cur = 0;
    uint32_t v;
    while (etp_hm_next(&g->index, h, &cur, &v))
        if (g->lens[v] == len && !memcmp(g->keys[v], key, len)) {
            *seen = g->counts[v]++;
            return 0;
        }
    if (g->n == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2 : 64;
        char **k = realloc(g->keys, cap * sizeof *k);
        if (!k)
            return -1;
        g->keys = k;
        size_t *l = realloc(g->lens, cap * sizeof *l);
        if (!l)
            return -1;
        g->lens = l;
        uint32_t *c = realloc(g->counts, cap * sizeof *c);
        if (!c)
            return -1;
        g->counts = c;
        g->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy || etp_hm_put(&g->index, h, g->n)) {
        free(copy);
        return -1;
    }
    memcpy(copy, key, len);
    g->keys[g->n] = copy;
    g->lens[g->n] = len;
    g->counts[g->n++] = 1;
    *seen = 0;
    return 0;
}

static void group_count_free(group_count *g)
{
    for (uint32_t i = 0; i < g->n; i++)
        free(g->keys[i]);
    free(g->keys);
    free(g->lens);
    free(g->counts);
    etp_hm_free(&g->index);
}

static etp_status delete_runs(etp_store *s, const int64_t *ids, size_t n, etp_error *err)
{
    for (size_t lo = 0; lo < n; lo += BATCH) {
        size_t k = n - lo < BATCH ? n - lo : BATCH;
        char *sql = malloc(64 + k * 8);
        if (!sql)
            return etp_store_nomem(s, err);
        size_t len = (size_t)sprintf(sql, "DELETE FROM runs WHERE id IN (");
        for (size_t i = 0; i < k; i++)
            len += (size_t)sprintf(sql + len, "%s$%zu", i ? "," : "", i + 1);
        strcpy(sql + len, ")");
        etp_db_query *q;
        etp_status st = etp_db_prepare(s->db, sql, &q, err);
        free(sql);
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
    group_count g;
    memset(&g, 0, sizeof g);
    etp_hm_init(&g.index);
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
        uint32_t seen = 0;
        if (count_group(&g, key, pl + ml + 3 + dl, &seen)) {
            st = etp_store_nomem(s, err);
            break;
        }
        int go = (o->keep_last && seen >= o->keep_last) ||
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
    group_count_free(&g);
    return st;
}
