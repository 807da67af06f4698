/* export.c - every selected run with its summary metrics, one run at a
 * time (etp_store_each_run): the runs listed first, then their metrics and
 * per-execution values read a chunk of runs at a time, so an export of any
 * size holds one chunk in memory. */
#include "store/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs whose metrics one query reads. */
#define CHUNK 256

typedef struct run_metrics {
    etp_history_metric *v;
    uint32_t n, cap;
} run_metrics;

typedef struct run_figures {
    const char **names, **units;
    const double **values;
    uint32_t *counts;
    uint32_t n, cap;
} run_figures;

/* Index of run @p id among @p runs [0, @p k) (sorted by publication, so
 * searched linearly: a chunk is short). */
static int64_t slot_of(const etp_history_run *runs, size_t k, int64_t id)
{
    for (size_t i = 0; i < k; i++)
        if (runs[i].run == id)
            return (int64_t)i;
    return -1;
}

static int cmp_metric(const void *x, const void *y)
{
    return strcmp(((const etp_history_metric *)x)->name, ((const etp_history_metric *)y)->name);
}

static etp_status read_chunk(etp_store *s, const etp_history_run *runs, size_t k, etp_arena *a,
                             run_metrics *rm, run_figures *rf, etp_error *err)
{
    char *sql = etp_store_in_list_sql("SELECT m.run, k.name, m.value, k.unit, k.aggregation, k.additive, "
                            "m.samples FROM metrics m JOIN metric_kinds k ON k.id = m.kind "
                            "WHERE m.value IS NOT NULL AND m.run IN (",
                            k);
    etp_db_query *q;
    etp_status st = etp_store_prepare_text(s, sql, &q, err);
    if (st)
        return st;
    for (size_t i = 0; i < k; i++)
        etp_db_bind_int(q, (int)i + 1, runs[i].run);
    int row;
    while (!(st = etp_db_step(q, &row, err)) && row) {
        int64_t at = slot_of(runs, k, etp_db_col_int(q, 0));
        if (at < 0)
            continue;
        run_metrics *m = &rm[at];
        if (m->n == m->cap) {
            uint32_t cap = m->cap ? m->cap * 2 : 64;
            etp_history_metric *v = etp_arena_alloc(a, cap * sizeof *v);
            if (!v) {
                st = etp_store_nomem(s, err);
                break;
            }
            if (m->n)
                memcpy(v, m->v, m->n * sizeof *v);
            m->v = v;
            m->cap = cap;
        }
        etp_history_metric *x = &m->v[m->n++];
        x->name = etp_arena_strdup(a, etp_db_col_bytes(q, 1, NULL));
        x->value = etp_db_col_double(q, 2);
        x->unit = etp_arena_strdup(a, etp_db_col_bytes(q, 3, NULL));
        x->aggregation = etp_arena_strdup(a, etp_db_col_bytes(q, 4, NULL));
        x->additive = etp_db_col_int(q, 5) != 0;
        int64_t n = etp_db_col_int(q, 6);
        x->samples = n > 0 && n <= UINT32_MAX ? (uint32_t)n : 0;
        x->sample_count = 0;
        x->execution_values = NULL;
        if (!x->name || !x->unit || !x->aggregation) {
            st = etp_store_nomem(s, err);
            break;
        }
    }
    etp_db_finalize(q);
    if (st)
        return st;
    st = etp_store_prepare_text(
        s, etp_store_in_list_sql("SELECT run, figure, unit, value_le FROM figure_samples WHERE run IN (", k),
        &q, err);
    if (st)
        return st;
    for (size_t i = 0; i < k; i++)
        etp_db_bind_int(q, (int)i + 1, runs[i].run);
    while (!(st = etp_db_step(q, &row, err)) && row) {
        int64_t at = slot_of(runs, k, etp_db_col_int(q, 0));
        size_t len;
        const char *le = etp_db_col_bytes(q, 3, &len);
        uint32_t n = 0;
        const double *v = at >= 0 ? etp_store_values_decode(a, le, len, &n) : NULL;
        if (!v)
            continue; /* not a run of this chunk, or malformed: no values */
        run_figures *f = &rf[at];
        if (f->n == f->cap) {
            uint32_t cap = f->cap ? f->cap * 2 : 16;
            const char **names = etp_arena_alloc(a, cap * sizeof *names);
            const char **units = etp_arena_alloc(a, cap * sizeof *units);
            const double **vals = etp_arena_alloc(a, cap * sizeof *vals);
            uint32_t *counts = etp_arena_alloc(a, cap * sizeof *counts);
            if (!names || !units || !vals || !counts) {
                st = etp_store_nomem(s, err);
                break;
            }
            if (f->n) {
                memcpy(names, f->names, f->n * sizeof *names);
                memcpy(units, f->units, f->n * sizeof *units);
                memcpy(vals, f->values, f->n * sizeof *vals);
                memcpy(counts, f->counts, f->n * sizeof *counts);
            }
            f->names = names, f->units = units, f->values = vals, f->counts = counts;
            f->cap = cap;
        }
        f->names[f->n] = etp_arena_strdup(a, etp_db_col_bytes(q, 1, NULL));
        f->units[f->n] = etp_arena_strdup(a, etp_db_col_bytes(q, 2, NULL));
        f->values[f->n] = v;
        f->counts[f->n] = n;
        if (!f->names[f->n] || !f->units[f->n]) {
            st = etp_store_nomem(s, err);
            break;
        }
        f->n++;
    }
    etp_db_finalize(q);
    return st;
}

/* Metric "FIGURE.stat" of the figure's unit gets the figure's values. */
static void attach(run_metrics *m, const run_figures *f)
{
    for (uint32_t i = 0; i < m->n; i++) {
        const char *dot = strrchr(m->v[i].name, '.');
        size_t base = dot ? (size_t)(dot - m->v[i].name) : strlen(m->v[i].name);
        for (uint32_t k = 0; k < f->n; k++)
            if (strlen(f->names[k]) == base && !strncmp(f->names[k], m->v[i].name, base) &&
                !strcmp(f->units[k], m->v[i].unit)) {
                m->v[i].sample_count = f->counts[k];
                m->v[i].execution_values = f->values[k];
            }
    }
}

etp_status etp_store_each_run(etp_store *s, const etp_store_filter *f, etp_store_run_fn fn,
                              void *ctx, etp_error *err)
{
    etp_arena runs_arena = {0};
    etp_history_run *runs;
    uint32_t count;
    etp_status st = etp_db_begin_read(s->db, err);
    if (st)
        return st;
    st = etp_store_select_runs(s, f, &runs_arena, &runs, &count, err);
    for (uint32_t lo = 0; !st && lo < count; lo += CHUNK) {
        size_t k = count - lo < CHUNK ? count - lo : CHUNK;
        etp_arena a = {0};
        run_metrics *rm = etp_arena_calloc(&a, k * sizeof *rm);
        run_figures *rf = etp_arena_calloc(&a, k * sizeof *rf);
        st = rm && rf ? read_chunk(s, runs + lo, k, &a, rm, rf, err) : etp_store_nomem(s, err);
        for (size_t i = 0; !st && i < k; i++) {
            if (rm[i].n)
                qsort(rm[i].v, rm[i].n, sizeof *rm[i].v, cmp_metric);
            attach(&rm[i], &rf[i]);
            st = fn(ctx, &runs[lo + i], rm[i].v, rm[i].n, err);
        }
        etp_arena_free(&a);
    }
    etp_db_rollback(s->db); /* a read: nothing to keep */
    etp_arena_free(&runs_arena);
    return st;
}
