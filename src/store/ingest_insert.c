/* ingest_insert.c - a loaded bundle stored in one transaction
 * (etp_store_insert): the run row first (ON CONFLICT on the manifest digest:
 * a bundle stored before, or by a concurrent writer, changes nothing), then
 * each table's rows in multi-row INSERTs of bound parameters (a handful of
 * round trips per bundle, whatever the engine), then COMMIT. Dictionary
 * rows (metric kinds, entity keys) are shared by runs: looked up in this
 * connection's cache, else inserted ON CONFLICT DO NOTHING in a fixed
 * order (no deadlock between writers) and read back. */
#include "store/store_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/utc_time.h"

/* Most parameters one statement binds (SQLite allows 32766). */
#define MAX_PARAMS 30000

/* ---- multi-row INSERT ----------------------------------------------------- */

typedef void (*bind_row_fn)(void *ctx, uint32_t row, etp_db_query *q, int first);

/* "INSERT INTO @p table (@p cols) VALUES ($1, ...), ... @p suffix" for
 * @p rows rows of @p ncols: text from constants and counts only. */
static char *insert_sql(const char *table, const char *cols, int ncols, uint32_t rows,
                        const char *suffix)
{
    size_t cap = strlen(table) + strlen(cols) + strlen(suffix) + 64 + (size_t)rows * ncols * 10;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t k = (size_t)snprintf(s, cap, "INSERT INTO %s (%s) VALUES ", table, cols);
    int p = 1;
    for (uint32_t r = 0; r < rows; r++) {
        s[k++] = r ? ',' : ' ';
        s[k++] = '(';
        for (int c = 0; c < ncols; c++)
            k += (size_t)snprintf(s + k, cap - k, "%s$%d", c ? "," : "", p++);
        s[k++] = ')';
    }
    snprintf(s + k, cap - k, "%s", suffix);
    return s;
}

/* Insert @p rows rows through @p bind, as few statements as the parameter
 * limit (and the engine's etp_db_insert_rows_max) allows; a statement is
 * prepared once for each run of chunks of one size and reset between them.
 * *@p written grows by the rows the engine reports done. */
static etp_status insert_rows(etp_store *s, const char *table, const char *cols, int ncols,
                              uint32_t rows, bind_row_fn bind, void *ctx, const char *suffix,
                              uint64_t *written, etp_error *err)
{
    uint32_t per = (uint32_t)(MAX_PARAMS / ncols), most = etp_db_insert_rows_max(s->db);
    if (most && per > most)
        per = most;
    etp_db_query *q = NULL;
    uint32_t q_rows = 0;
    etp_status st = ETP_OK;
    for (uint32_t lo = 0; !st && lo < rows; lo += per) {
        uint32_t n = rows - lo < per ? rows - lo : per;
        if (q && q_rows != n) {
            etp_db_finalize(q);
            q = NULL;
        }
        if (q)
            etp_db_reset(q);
        else if ((st = etp_store_prepare_text(s, insert_sql(table, cols, ncols, n, suffix), &q, err)))
            break;
        q_rows = n;
        for (uint32_t r = 0; r < n; r++)
            bind(ctx, lo + r, q, 1 + (int)r * ncols);
        int row;
        st = etp_db_step(q, &row, err);
        if (!st && written)
            *written += n;
    }
    if (q)
        etp_db_finalize(q);
    return st;
}

/* ---- identities of dictionary rows -------------------------------------- */

/* Fields joined, each followed by a NUL (fields hold no NUL themselves). */
typedef struct ident {
    char *p;
    size_t len, cap;
} ident;

static int ident_add(ident *id, const char *f, size_t n)
{
    if (id->len + n + 1 > id->cap) {
        size_t cap = (id->len + n + 1) * 2;
        char *p = realloc(id->p, cap);
        if (!p)
            return -1;
        id->p = p;
        id->cap = cap;
    }
    memcpy(id->p + id->len, f, n);
    id->p[id->len + n] = '\0';
    id->len += n + 1;
    return 0;
}

/* ---- the per-table row binders -------------------------------------------- */

typedef struct ingest {
    etp_store *s;
    const etp_store_bundle *b;
    int64_t run;
    const etp_bundle_metric *metrics;
    uint32_t metric_count;
    int64_t *metric_kind;         /* per metric */
    int64_t *entity_key;          /* per entity row */
    int64_t head;                 /* the run's run_heads row */
} ingest;

static const char *or_empty(const char *s) { return s ? s : ""; }

static void bind_label(void *ctx, uint32_t i, etp_db_query *q, int p)
{
    const ingest *g = ctx;
    const etp_history_label *l = &g->b->run.labels[i];
    etp_db_bind_int(q, p, g->run);
    etp_db_bind_text(q, p + 1, l->key);
    etp_db_bind_bytes(q, p + 2, l->value, strlen(l->value));
}

static void bind_input(void *ctx, uint32_t i, etp_db_query *q, int p)
{
    const ingest *g = ctx;
    const etp_bundle_input_info *in = &etp_bundle_doc_manifest(g->b->doc)->inputs[i];
    etp_db_bind_int(q, p, g->run);
    etp_db_bind_text(q, p + 1, or_empty(in->role));
    etp_db_bind_text(q, p + 2, or_empty(in->name));
    if (in->has_digest)
        etp_db_bind_int(q, p + 3, (int64_t)in->size);
    else
        etp_db_bind_null(q, p + 3);
    etp_db_bind_text(q, p + 4, in->sha256);
}

static void bind_issue(void *ctx, uint32_t i, etp_db_query *q, int p)
{
    const ingest *g = ctx;
    const etp_bundle_issue *is = &etp_bundle_doc_manifest(g->b->doc)->issues[i];
    etp_db_bind_int(q, p, g->run);
    etp_db_bind_text(q, p + 1, or_empty(is->code));
    etp_db_bind_text(q, p + 2, or_empty(is->severity));
    etp_db_bind_text(q, p + 3, or_empty(is->message));
}

static void bind_metric(void *ctx, uint32_t i, etp_db_query *q, int p)
{
    const ingest *g = ctx;
    const etp_bundle_metric *m = &g->metrics[i];
    etp_db_bind_int(q, p, g->run);
    etp_db_bind_int(q, p + 1, g->metric_kind[i]);
    if (m->available)
        etp_db_bind_double(q, p + 2, m->value); /* NaN (not finite) binds NULL */
    else
        etp_db_bind_null(q, p + 2);
    etp_db_bind_int(q, p + 3, (int64_t)m->samples);
    etp_db_bind_text(q, p + 4, m->reason);
}

/* A cell bound as its column's type: numbers and flags, NULL when empty. */
static void bind_cell(etp_db_query *q, int p, const etp_bundle_table *t, uint32_t row, int col,
                      etp_column_id id)
{
    const etp_bundle_cell *c = col >= 0 ? etp_bundle_table_cell(t, row, (uint32_t)col) : NULL;
    etp_column_type type = etp_column_get(id)->type;
    if (c && c->type == ETP_CELL_BOOL)
        etp_db_bind_int(q, p, c->boolean);
    else if (c && c->type == ETP_CELL_NUMBER && (type == ETP_COLT_NUM))
        etp_db_bind_double(q, p, c->number);
    else if (c && c->type == ETP_CELL_NUMBER && fabs(c->number) < 9.2e18)
        etp_db_bind_int(q, p, (int64_t)c->number);
    else
        etp_db_bind_null(q, p);
}

static void bind_cell_bytes(etp_db_query *q, int p, const etp_bundle_table *t, uint32_t row, int col)
{
    const etp_bundle_cell *c = col >= 0 ? etp_bundle_table_cell(t, row, (uint32_t)col) : NULL;
    const char *text = c ? c->text : "";
    etp_db_bind_bytes(q, p, text, strlen(text));
}

static void bind_entity(void *ctx, uint32_t i, etp_db_query *q, int p)
{
    const ingest *g = ctx;
    const etp_store_bundle *b = g->b;
    etp_db_bind_int(q, p, g->run);
    etp_db_bind_int(q, p + 1, g->entity_key[i]);
    for (int k = 0; k < ETP_STORE_ENTITY_COLUMNS; k++)
        bind_cell(q, p + 2 + k, b->table, b->entity_rows[i], b->entity_cols[k],
                  etp_store_entity_columns[k]);
}

static void bind_nx(void *ctx, uint32_t i, etp_db_query *q, int p)
{
    const ingest *g = ctx;
    const etp_store_bundle *b = g->b;
    uint32_t row = b->nx_rows[i];
    etp_db_bind_int(q, p, g->run);
    bind_cell_bytes(q, p + 1, b->table, row, b->col_id);
    etp_db_bind_text(q, p + 2, etp_bundle_table_cell(b->table, row, (uint32_t)b->col_kind)->text);
    const etp_bundle_cell *parent =
        b->col_nx_parent >= 0 ? etp_bundle_table_cell(b->table, row, (uint32_t)b->col_nx_parent) : NULL;
    if (parent && parent->type != ETP_CELL_NULL)
        etp_db_bind_bytes(q, p + 3, parent->text, strlen(parent->text));
    else
        etp_db_bind_null(q, p + 3);
    for (int k = 0; k < ETP_STORE_NX_COLUMNS; k++)
        bind_cell(q, p + 4 + k, b->table, row, b->nx_cols[k], etp_store_nx_columns[k]);
}

static void bind_device_figure(void *ctx, uint32_t i, etp_db_query *q, int p)
{
    const ingest *g = ctx;
    const etp_bundle_device_figure *f = &etp_bundle_doc_summary(g->b->doc)->device_figures[i];
    etp_db_bind_int(q, p, g->run);
    etp_db_bind_text(q, p + 1, f->name);
    etp_db_bind_text(q, p + 2, or_empty(f->unit));
    etp_db_bind_text(q, p + 3, or_empty(f->source));
    etp_db_bind_text(q, p + 4, f->log);
    etp_db_bind_int(q, p + 5, f->summable != 0);
    etp_db_bind_int(q, p + 6, f->per_inference != 0);
    etp_db_bind_int(q, p + 7, (int64_t)f->n);
    const double v[5] = {f->total, f->avg, f->p50, f->min, f->max};
    for (int k = 0; k < 5; k++)
        etp_db_bind_double(q, p + 8 + k, v[k]);
}

static void bind_figure_samples(void *ctx, uint32_t i, etp_db_query *q, int p)
{
    const ingest *g = ctx;
    const etp_store_figure_samples *f = &g->b->figures[i];
    /* Little-endian IEEE 754 doubles, whatever this machine's order. */
    size_t n = (size_t)f->count * 8;
    unsigned char *le = malloc(n ? n : 1);
    for (uint32_t k = 0; le && k < f->count; k++) {
        uint64_t bits;
        memcpy(&bits, &f->values[k], 8);
        for (int j = 0; j < 8; j++)
            le[(size_t)k * 8 + (size_t)j] = (unsigned char)(bits >> (8 * j));
    }
    etp_db_bind_int(q, p, g->run);
    etp_db_bind_text(q, p + 1, f->figure);
    etp_db_bind_text(q, p + 2, g->b->run.time_unit);
    etp_db_bind_int(q, p + 3, le ? f->count : 0);
    etp_db_bind_bytes(q, p + 4, le, le ? n : 0);
    free(le);
}

/* ---- dictionaries ---------------------------------------------------------- */

/* A dictionary table (metric_kinds, entity_keys): its columns (the first is
 * what rows are looked up by), how to build an item's identity from the
 * bundle and from a row read back, and how to bind an item. */
typedef struct dict_spec {
    const char *table, *cols, *first_col;
    int ncols;
    const char *conflict;
    int (*item_ident)(const ingest *g, uint32_t item, ident *id);
    int (*row_ident)(etp_db_query *q, ident *id);  /* columns 1..ncols (0 is the id) */
    void (*bind_item)(const ingest *g, uint32_t item, etp_db_query *q, int p);
    void (*bind_first)(const ingest *g, uint32_t item, etp_db_query *q, int p);
} dict_spec;

typedef struct missing_item {
    char *ident;
    size_t len;
    uint32_t item;
} missing_item;

static int cmp_missing(const void *x, const void *y)
{
    const missing_item *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->ident, b->ident, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

typedef struct dict_job {
    const ingest *g;
    const dict_spec *spec;
    const missing_item *missing;
} dict_job;

static void bind_missing(void *ctx, uint32_t r, etp_db_query *q, int p)
{
    const dict_job *j = ctx;
    j->spec->bind_item(j->g, j->missing[r].item, q, p);
}

/* Read back the ids of @p missing (by their first column, 500 at a time)
 * into @p fresh. */
static etp_status read_ids(const dict_job *j, uint32_t n, etp_store_dict *fresh, etp_error *err)
{
    etp_store *s = j->g->s;
    ident id = {0};
    etp_status st = ETP_OK;
    for (uint32_t lo = 0; !st && lo < n; lo += 500) {
        uint32_t k = n - lo < 500 ? n - lo : 500;
        char head[256];
        snprintf(head, sizeof head, "SELECT id, %s FROM %s WHERE %s IN (", j->spec->cols,
                 j->spec->table, j->spec->first_col);
        etp_db_query *q;
        if ((st = etp_store_prepare_text(s, etp_store_in_list_sql(head, k), &q, err)))
            break;
        for (uint32_t i = 0; i < k; i++)
            j->spec->bind_first(j->g, j->missing[lo + i].item, q, (int)i + 1);
        int row;
        while (!(st = etp_db_step(q, &row, err)) && row) {
            if (j->spec->row_ident(q, &id)) {
                st = etp_store_nomem(s, err);
                break;
            }
            /* fresh holds every identity still waiting for its id (rows
             * that only share the first column are not among them) */
            int64_t *slot = etp_store_dict_find(fresh, id.p, id.len);
            if (slot)
                *slot = etp_db_col_int(q, 0);
        }
        etp_db_finalize(q);
    }
    free(id.p);
    return st;
}

/* The ids of items [0, @p n) into @p ids: from the store's cache, else
 * inserted (ON CONFLICT DO NOTHING, in identity order so that two writers
 * never wait on each other's rows crosswise) and read back. @p fresh
 * receives the identities new to the cache, remembered once the
 * transaction commits. */
static etp_status resolve(const ingest *g, const dict_spec *spec, const etp_store_dict *cache,
                          uint32_t n, int64_t *ids, etp_store_dict *fresh, etp_error *err)
{
    etp_store *s = g->s;
    ident id = {0};
    missing_item *missing = NULL;
    uint32_t nmissing = 0;
    etp_status st = ETP_OK;
    for (uint32_t i = 0; !st && i < n; i++) {
        if (spec->item_ident(g, i, &id)) {
            st = etp_store_nomem(s, err);
            break;
        }
        if ((ids[i] = etp_store_dict_get(cache, id.p, id.len)) || etp_store_dict_get(fresh, id.p, id.len))
            continue;
        if (!missing && !(missing = malloc(((size_t)n - i) * sizeof *missing))) {
            st = etp_store_nomem(s, err);
            break;
        }
        int64_t *slot = etp_store_dict_slot(fresh, id.p, id.len, NULL);
        char *copy = slot ? malloc(id.len) : NULL;
        if (!copy) {
            st = etp_store_nomem(s, err);
            break;
        }
        *slot = -1; /* until read back */
        memcpy(copy, id.p, id.len);
        missing[nmissing++] = (missing_item){copy, id.len, i};
    }
    if (!st && nmissing) {
        qsort(missing, nmissing, sizeof *missing, cmp_missing);
        dict_job j = {g, spec, missing};
        st = insert_rows(s, spec->table, spec->cols, spec->ncols, nmissing, bind_missing, &j,
                         spec->conflict, NULL, err);
        if (!st)
            st = read_ids(&j, nmissing, fresh, err);
    }
    for (uint32_t i = 0; !st && i < n; i++) {
        if (ids[i])
            continue;
        if (spec->item_ident(g, i, &id)) {
            st = etp_store_nomem(s, err);
            break;
        }
        if ((ids[i] = etp_store_dict_get(fresh, id.p, id.len)) <= 0)
            st = etp_error_set(err, ETP_E_INTERNAL, etp_db_shown(s->db), ETP_NO_OFFSET,
                               "a %s row was not found after it was inserted", spec->table);
    }
    for (uint32_t i = 0; i < nmissing; i++)
        free(missing[i].ident);
    free(missing);
    free(id.p);
    return st;
}

/* metric_kinds: name, unit, aggregation, additive. */
static int kind_ident(ident *id, const char *name, const char *unit, const char *agg, int additive)
{
    id->len = 0;
    return ident_add(id, name, strlen(name)) || ident_add(id, unit, strlen(unit)) ||
           ident_add(id, agg, strlen(agg)) || ident_add(id, additive ? "1" : "0", 1);
}

static int metric_item_ident(const ingest *g, uint32_t i, ident *id)
{
    const etp_bundle_metric *m = &g->metrics[i];
    return kind_ident(id, m->name, or_empty(m->unit), or_empty(m->aggregation), m->additive != 0);
}

static int metric_row_ident(etp_db_query *q, ident *id)
{
    return kind_ident(id, etp_db_col_bytes(q, 1, NULL), etp_db_col_bytes(q, 2, NULL),
                      etp_db_col_bytes(q, 3, NULL), etp_db_col_int(q, 4) != 0);
}

static void metric_bind_first(const ingest *g, uint32_t i, etp_db_query *q, int p)
{
    etp_db_bind_text(q, p, g->metrics[i].name);
}

static void metric_bind_item(const ingest *g, uint32_t i, etp_db_query *q, int p)
{
    const etp_bundle_metric *m = &g->metrics[i];
    metric_bind_first(g, i, q, p);
    etp_db_bind_text(q, p + 1, or_empty(m->unit));
    etp_db_bind_text(q, p + 2, or_empty(m->aggregation));
    etp_db_bind_int(q, p + 3, m->additive != 0);
}

static const dict_spec metric_kinds = {
    .table = "metric_kinds",
    .cols = "name, unit, aggregation, additive",
    .first_col = "name",
    .ncols = 4,
    .conflict = " ON CONFLICT (name, unit, aggregation, additive) DO NOTHING",
    .item_ident = metric_item_ident,
    .row_ident = metric_row_ident,
    .bind_item = metric_bind_item,
    .bind_first = metric_bind_first,
};

/* entity_keys: key, kind, name, op_type, backend (operators table cells). */
static const char *entity_text(const ingest *g, uint32_t i, int col, size_t *len)
{
    const etp_store_bundle *b = g->b;
    const char *t = col >= 0 ? etp_bundle_table_cell(b->table, b->entity_rows[i], (uint32_t)col)->text : "";
    *len = strlen(t);
    return t;
}

static int entity_item_ident(const ingest *g, uint32_t i, ident *id)
{
    const etp_store_bundle *b = g->b;
    const int cols[5] = {b->col_id, b->col_kind, b->col_name, b->col_op_type, b->col_backend};
    id->len = 0;
    for (int k = 0; k < 5; k++) {
        size_t n;
        const char *t = entity_text(g, i, cols[k], &n);
        if (ident_add(id, t, n))
            return -1;
    }
    return 0;
}

/* The identity of a row read back: its columns 1..@p ncols. */
static int columns_ident(etp_db_query *q, int ncols, ident *id)
{
    id->len = 0;
    for (int k = 1; k <= ncols; k++) {
        size_t n;
        const char *t = etp_db_col_bytes(q, k, &n);
        if (ident_add(id, t, n))
            return -1;
    }
    return 0;
}

static int entity_row_ident(etp_db_query *q, ident *id) { return columns_ident(q, 5, id); }

static void entity_bind_first(const ingest *g, uint32_t i, etp_db_query *q, int p)
{
    size_t n;
    const char *t = entity_text(g, i, g->b->col_id, &n);
    etp_db_bind_bytes(q, p, t, n);
}

static void entity_bind_item(const ingest *g, uint32_t i, etp_db_query *q, int p)
{
    const etp_store_bundle *b = g->b;
    const int cols[4] = {b->col_kind, b->col_name, b->col_op_type, b->col_backend};
    entity_bind_first(g, i, q, p);
    for (int k = 0; k < 4; k++) {
        size_t n;
        const char *t = entity_text(g, i, cols[k], &n);
        if (k == 0)
            etp_db_bind_text(q, p + 1, t);
        else
            etp_db_bind_bytes(q, p + 1 + k, t, n);
    }
}

static const dict_spec entity_keys = {
    .table = "entity_keys",
    .cols = "key, kind, name, op_type, backend",
    .first_col = "key",
    .ncols = 5,
    .conflict = " ON CONFLICT (key, kind, name, op_type, backend) DO NOTHING",
    .item_ident = entity_item_ident,
    .row_ident = entity_row_ident,
    .bind_item = entity_bind_item,
    .bind_first = entity_bind_first,
};

/* run_heads: the run's fields a series groups or filters by (one item). */
static const char *head_field(const ingest *g, int k)
{
    const etp_history_run *r = &g->b->run;
    const char *f[6] = {r->program_sha256, g->b->etrecord_sha256, r->method,
                        r->time_unit,      r->validity,           r->tool_version};
    return or_empty(f[k]);
}

static int head_item_ident(const ingest *g, uint32_t i, ident *id)
{
    (void)i;
    id->len = 0;
    for (int k = 0; k < 6; k++)
        if (ident_add(id, head_field(g, k), strlen(head_field(g, k))))
            return -1;
    return 0;
}

static int head_row_ident(etp_db_query *q, ident *id) { return columns_ident(q, 6, id); }

static void head_bind_first(const ingest *g, uint32_t i, etp_db_query *q, int p)
{
    (void)i;
    etp_db_bind_text(q, p, head_field(g, 0));
}

static void head_bind_item(const ingest *g, uint32_t i, etp_db_query *q, int p)
{
    (void)i;
    for (int k = 0; k < 6; k++)
        etp_db_bind_text(q, p + k, head_field(g, k));
}

static const dict_spec run_heads = {
    .table = "run_heads",
    .cols = "program_sha256, etrecord_sha256, method, time_unit, validity, tool_version",
    .first_col = "program_sha256",
    .ncols = 6,
    .conflict = " ON CONFLICT (program_sha256, etrecord_sha256, method, time_unit, validity, "
                "tool_version) DO NOTHING",
    .item_ident = head_item_ident,
    .row_ident = head_row_ident,
    .bind_item = head_bind_item,
    .bind_first = head_bind_first,
};

/* Keep what @p fresh learnt (after COMMIT: the rows are there for good). */
static void remember(etp_store_dict *cache, const etp_store_dict *fresh)
{
    for (uint32_t i = 0; i < fresh->count; i++) {
        int64_t *slot = fresh->values[i] > 0 ? etp_store_dict_slot(cache, fresh->texts[i], fresh->lens[i], NULL)
                                              : NULL;
        if (slot)
            *slot = fresh->values[i]; /* out of memory: the cache only saves round trips */
    }
}

/* ---- the transaction ----------------------------------------------------- */

#define RUN_COLUMNS                                                                                \
    "manifest_sha256, run_id, published_ms, timestamp, tool_version, status, validity, method, "  \
    "time_unit, executions, program_sha256, etrecord_sha256, etdump_sha256, bundle, detailed, "  \
    "labels, ingested_ms"

/* The run row; *@p run 0 when the manifest digest is already stored. */
static etp_status insert_run(ingest *g, int64_t *run, etp_error *err)
{
    const etp_store_bundle *b = g->b;
    const etp_history_run *r = &b->run;
    etp_db_query *q;
    etp_status st = etp_db_prepare(g->s->db,
                                   "INSERT INTO runs (" RUN_COLUMNS ") VALUES ($1, $2, $3, $4, $5, "
                                   "$6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) "
                                   "ON CONFLICT (manifest_sha256) DO NOTHING RETURNING id",
                                   &q, err);
    if (st)
        return st;
    etp_db_bind_text(q, 1, r->manifest_sha256);
    etp_db_bind_text(q, 2, r->run_id);
    etp_db_bind_int(q, 3, r->published_ms);
    etp_db_bind_text(q, 4, b->timestamp);
    etp_db_bind_text(q, 5, r->tool_version);
    etp_db_bind_text(q, 6, b->status);
    etp_db_bind_text(q, 7, r->validity);
    etp_db_bind_text(q, 8, r->method);
    etp_db_bind_text(q, 9, r->time_unit);
    etp_db_bind_int(q, 10, r->executions);
    etp_db_bind_text(q, 11, r->program_sha256);
    etp_db_bind_text(q, 12, b->etrecord_sha256);
    etp_db_bind_text(q, 13, b->etdump_sha256);
    etp_db_bind_bytes(q, 14, r->bundle, strlen(r->bundle));
    etp_db_bind_int(q, 15, r->detailed);
    etp_db_bind_bytes(q, 16, b->labels_blob, b->labels_blob_len);
    etp_db_bind_int(q, 17, etp_utc_now_ms());
    int row = 0;
    st = etp_db_step(q, &row, err);
    *run = !st && row ? etp_db_col_int(q, 0) : 0;
    etp_db_finalize(q);
    return st;
}

/* The run id already stored under @p sha. */
static etp_status existing_run(etp_store *s, const char *sha, int64_t *run, etp_error *err)
{
    etp_db_query *q;
    etp_status st = etp_db_prepare(s->db, "SELECT id FROM runs WHERE manifest_sha256 = $1", &q, err);
    if (st)
        return st;
    etp_db_bind_text(q, 1, sha);
    int row = 0;
    st = etp_db_step(q, &row, err);
    *run = !st && row ? etp_db_col_int(q, 0) : 0;
    etp_db_finalize(q);
    return st;
}

/* The dictionary ids the run's rows refer to (these may read). */
static etp_status resolve_all(ingest *g, etp_store_dict fresh[3], etp_error *err)
{
    etp_store *s = g->s;
    etp_status st = resolve(g, &metric_kinds, &s->metric_kinds, g->metric_count, g->metric_kind,
                            &fresh[0], err);
    if (!st)
        st = resolve(g, &entity_keys, &s->entity_keys, g->b->entity_count, g->entity_key, &fresh[1],
                     err);
    if (!st)
        st = resolve(g, &run_heads, &s->run_heads, 1, &g->head, &fresh[2], err);
    return st;
}

static void bind_series_run(void *ctx, uint32_t i, etp_db_query *q, int p)
{
    (void)i;
    const ingest *g = ctx;
    const etp_history_run *r = &g->b->run;
    etp_store_point pt = {g->run, r->published_ms, r->detailed, r->run_id, g->b->labels_blob,
                          strlen(r->run_id), g->b->labels_blob_len};
    etp_store_point_bind(q, p, &pt, g->head);
}

/* Every row of the run but its own: statements without results (batched). */
static etp_status insert_rows_of_run(ingest *g, uint64_t *rows, etp_error *err)
{
    etp_store *s = g->s;
    const etp_store_bundle *b = g->b;
    const etp_bundle_manifest *m = etp_bundle_doc_manifest(b->doc);
    const etp_bundle_summary_info *si = etp_bundle_doc_summary(b->doc);
    etp_status st = insert_rows(s, "series_runs", ETP_STORE_SERIES_RUNS_COLUMNS, 4, 1, bind_series_run,
                                g, "", rows, err);
    if (!st)
        st = insert_rows(s, "labels", "run, key, value", 3, b->run.label_count, bind_label, g, "",
                         rows, err);
    if (!st)
        st = insert_rows(s, "inputs", "run, role, name, size_bytes, sha256", 5, m->input_count,
                         bind_input, g, "", rows, err);
    if (!st)
        st = insert_rows(s, "issues", "run, code, severity, message", 4, m->issue_count, bind_issue,
                         g, "", rows, err);
    if (!st)
        st = insert_rows(s, "metrics", "run, kind, value, samples, reason", 5, g->metric_count,
                         bind_metric, g, "", rows, err);
    if (!st)
        st = insert_rows(s, "entities",
                         "run, entity, executions, events, avg, p10, p50, p90, min, max, additive, "
                         "shared, kernel_avg, dispatch_avg",
                         2 + ETP_STORE_ENTITY_COLUMNS, b->entity_count, bind_entity, g, "", rows, err);
    if (!st)
        st = insert_rows(s, "nx_groups",
                         "run, group_id, kind, parent, executions, total_cycles_avg, op_cycles_avg, "
                         "total_cycles_min, total_cycles_median, total_cycles_max, full_coverage, "
                         "segment, stripes",
                         4 + ETP_STORE_NX_COLUMNS, b->nx_count, bind_nx, g, "", rows, err);
    if (!st)
        st = insert_rows(s, "device_figures",
                         "run, name, unit, source, log, summable, per_inference, n, total, avg, p50, "
                         "min, max",
                         13, si->device_figure_count, bind_device_figure, g, "", rows, err);
    if (!st)
        st = insert_rows(s, "figure_samples", "run, figure, unit, count, value_le", 5, b->figure_count,
                         bind_figure_samples, g, "", rows, err);
    return st;
}

/* Tests: ETPROF_TEST_INGEST_SLOW_MS=N waits N ms inside each transaction,
 * after its rows are written and before COMMIT, so that a test can kill
 * the process there. */
static void test_pause(void)
{
    const char *v = getenv("ETPROF_TEST_INGEST_SLOW_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    if (ms <= 0 || ms > 60000)
        return;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

etp_status etp_store_insert(etp_store *s, const etp_store_bundle *b, etp_store_ingest_result *res,
                            etp_error *err)
{
    memset(res, 0, sizeof *res);
    ingest g = {.s = s, .b = b};
    g.metrics = etp_bundle_doc_metrics(b->doc, &g.metric_count);
    g.metric_kind = calloc(g.metric_count + 1, sizeof *g.metric_kind);
    g.entity_key = calloc(b->entity_count + 1, sizeof *g.entity_key);
    etp_store_dict fresh[3]; /* metric kinds, entity keys, run heads */
    for (int i = 0; i < 3; i++)
        etp_store_dict_init(&fresh[i]);
    etp_status st = g.metric_kind && g.entity_key ? etp_db_begin_write(s->db, err) : etp_store_nomem(s, err);
    int open = !st;
    if (!st)
        st = insert_run(&g, &g.run, err);
    if (!st && !g.run) {
        /* Stored before (or by a writer that just committed it). */
        etp_db_rollback(s->db);
        open = 0;
        st = existing_run(s, b->run.manifest_sha256, &res->run, err);
    } else if (!st) {
        /* The rows and COMMIT in one batch: on PostgreSQL, one round trip. */
        res->rows = 1;
        st = resolve_all(&g, fresh, err);
        etp_status sent = st ? st : etp_db_batch_begin(s->db, err);
        if (!sent)
            sent = insert_rows_of_run(&g, &res->rows, err);
        if (!sent)
            test_pause();
        if (!sent)
            sent = etp_db_commit(s->db, err);
        if (!st) {
            etp_error berr;
            etp_error_clear(&berr);
            etp_status ended = etp_db_batch_end(s->db, sent ? &berr : err);
            st = sent ? sent : ended;
        }
        if (!st) {
            open = 0;
            res->run = g.run;
            res->added = 1;
            remember(&s->metric_kinds, &fresh[0]);
            remember(&s->entity_keys, &fresh[1]);
            remember(&s->run_heads, &fresh[2]);
        }
    }
    if (st && open)
        etp_db_rollback(s->db);
    if (st)
        memset(res, 0, sizeof *res);
    for (int i = 0; i < 3; i++)
        etp_store_dict_free(&fresh[i]);
    free(g.metric_kind);
    free(g.entity_key);
    return st;
}

etp_status etp_store_ingest(etp_store *s, const char *dir, const etp_history_label *extra,
                            uint32_t extra_count, etp_store_ingest_result *res, etp_error *err)
{
    etp_store_bundle *b;
    memset(res, 0, sizeof *res);
    etp_status st = etp_store_bundle_load(dir, extra, extra_count, &b, err);
    if (st)
        return st;
    st = etp_store_insert(s, b, res, err);
    etp_store_bundle_free(b);
    return st;
}
