/* runs.c - which runs a query looks at (labels and the run's own fields,
 * publication time) and the run records listings and exports hand out. */
#include "store/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

/* Filter and group keys that name the run's own fields, and their columns. */
static const char *const run_fields[][2] = {
    {"program", "program_sha256"}, {"etrecord", "etrecord_sha256"}, {"method", "method"},
    {"unit", "time_unit"},         {"validity", "validity"},        {"tool_version", "tool_version"},
    {"run_id", "run_id"},
};

const char *etp_store_run_field(const char *key)
{
    for (size_t i = 0; i < sizeof run_fields / sizeof run_fields[0]; i++)
        if (!strcmp(key, run_fields[i][0]))
            return run_fields[i][1];
    return NULL;
}

char *etp_store_filter_sql(const etp_store_filter *f, const char *alias, int narrow, int *next)
{
    size_t cap = 64 + (f ? (size_t)f->where_count * 200 : 0), k = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    if (!f)
        return s;
    const char *id = narrow ? "run" : "id";
    if (f->has_since)
        k += (size_t)snprintf(s + k, cap - k, " AND %s.published_ms >= $%d", alias, (*next)++);
    for (uint32_t i = 0; i < f->where_count; i++) {
        const char *field = etp_store_run_field(f->where[i].key);
        if (field && narrow && strcmp(field, "run_id")) { /* series_runs has run_id */
            k += (size_t)snprintf(s + k, cap - k,
                                  " AND %s.head IN (SELECT id FROM run_heads WHERE %s = $%d)", alias,
                                  field, (*next)++);
        } else if (field) {
            k += (size_t)snprintf(s + k, cap - k, " AND %s.%s = $%d", alias, field, (*next)++);
        } else {
            k += (size_t)snprintf(s + k, cap - k,
                                  " AND %s.%s IN (SELECT run FROM labels WHERE key = $%d AND "
                                  "value = $%d)",
                                  alias, id, *next, *next + 1);
            *next += 2;
        }
    }
    return s;
}

void etp_store_filter_bind(const etp_store_filter *f, etp_db_query *q, int first)
{
    if (!f)
        return;
    int p = first;
    if (f->has_since)
        etp_db_bind_int(q, p++, f->since_ms);
    for (uint32_t i = 0; i < f->where_count; i++) {
        const char *v = f->where[i].value ? f->where[i].value : "";
        if (etp_store_run_field(f->where[i].key)) {
            etp_db_bind_text(q, p++, v);
        } else {
            etp_db_bind_text(q, p++, f->where[i].key);
            etp_db_bind_bytes(q, p++, v, strlen(v));
        }
    }
}

uint32_t etp_store_labels_parse(const char *blob, size_t len, etp_history_label *out, uint32_t max)
{
    /* Byte loops rather than strnlen: keys and values are a few bytes each,
     * shorter than a library call's set-up (a series parses one set a run). */
    uint32_t n = 0;
    for (const char *p = blob, *end = blob + len; p < end; p++) {
        const char *key = p;
        while (p < end && *p)
            p++;
        if (end - p < 2) /* a key without its value: the blob ends here */
            break;
        const char *value = ++p;
        while (p < end && *p)
            p++;
        if (p == end)
            break;
        if (n < max)
            out[n] = (etp_history_label){key, value};
        n++;
    }
    return n;
}

etp_status etp_store_read_run(etp_db_query *q, int c, etp_arena *a, etp_history_run *r,
                              etp_error *err)
{
    (void)err;
    size_t len;
    memset(r, 0, sizeof *r);
    r->run = etp_db_col_int(q, c);
    r->run_id = etp_arena_strdup(a, etp_db_col_bytes(q, c + 1, NULL));
    r->manifest_sha256 = etp_arena_strdup(a, etp_db_col_bytes(q, c + 2, NULL));
    r->published_ms = etp_db_col_int(q, c + 3);
    r->tool_version = etp_arena_strdup(a, etp_db_col_bytes(q, c + 4, NULL));
    r->validity = etp_arena_strdup(a, etp_db_col_bytes(q, c + 5, NULL));
    r->method = etp_arena_strdup(a, etp_db_col_bytes(q, c + 6, NULL));
    r->program_sha256 = etp_arena_strdup(a, etp_db_col_bytes(q, c + 7, NULL));
    r->time_unit = etp_arena_strdup(a, etp_db_col_bytes(q, c + 8, NULL));
    int64_t ex = etp_db_col_int(q, c + 9);
    r->executions = ex > 0 && ex <= UINT32_MAX ? (uint32_t)ex : 0;
    r->detailed = etp_db_col_int(q, c + 10) != 0;
    const char *blob = etp_db_col_bytes(q, c + 11, &len);
    r->bundle = etp_arena_strndup(a, blob, len);
    if (etp_store_read_run_labels(q, c + 12, a, r) || !r->run_id || !r->manifest_sha256 ||
        !r->tool_version || !r->validity || !r->method || !r->program_sha256 || !r->time_unit ||
        !r->bundle)
        return ETP_E_NOMEM;
    return ETP_OK;
}

etp_status etp_store_read_run_labels(etp_db_query *q, int c, etp_arena *a, etp_history_run *r)
{
    size_t len;
    const char *blob = etp_db_col_bytes(q, c, &len);
    return etp_store_labels_read(blob, len, a, r);
}

etp_status etp_store_labels_in(char *copy, size_t len, etp_arena *a, etp_history_run *r)
{
    /* A run has a few labels: parsed once onto the stack, then copied to
     * an array of exactly their number (parsed again only past 16). */
    etp_history_label few[16];
    uint32_t n = etp_store_labels_parse(copy, len, few, 16);
    etp_history_label *labels = n ? etp_arena_alloc(a, n * sizeof *labels) : NULL;
    if (n && !labels)
        return ETP_E_NOMEM;
    if (n > 16)
        (void)etp_store_labels_parse(copy, len, labels, n);
    else if (n)
        memcpy(labels, few, n * sizeof *labels);
    r->label_count = n;
    r->labels = labels;
    return ETP_OK;
}

etp_status etp_store_labels_read(const char *blob, size_t len, etp_arena *a, etp_history_run *r)
{
    /* The labels' strings point into one copy of the blob. */
    char *copy = etp_arena_strndup(a, blob, len);
    return copy ? etp_store_labels_in(copy, len, a, r) : ETP_E_NOMEM;
}

etp_status etp_store_select_runs(etp_store *s, const etp_store_filter *f, etp_arena *a,
                                 etp_history_run **runs, uint32_t *count, etp_error *err)
{
    *runs = NULL;
    *count = 0;
    int next = 1;
    char *cond = etp_store_filter_sql(f, "r", 0, &next);
    etp_db_query *q;
    etp_status st = etp_store_prepare_text(
        s, cond ? etp_strprintf("SELECT " ETP_STORE_RUN_COLUMNS " FROM runs r WHERE 1 = 1%s "
                                "ORDER BY r.published_ms, r.id", cond) : NULL,
        &q, err);
    free(cond);
    if (st)
        return st;
    etp_store_filter_bind(f, q, 1);
    etp_history_run *v = NULL;
    uint32_t n = 0, cap = 0;
    int row;
    while (!(st = etp_db_step(q, &row, err)) && row) {
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            etp_history_run *nv = realloc(v, cap * sizeof *nv);
            if (!nv) {
                st = etp_store_nomem(s, err);
                break;
            }
            v = nv;
        }
        if (etp_store_read_run(q, 0, a, &v[n], err)) {
            st = etp_store_nomem(s, err);
            break;
        }
        n++;
    }
    etp_db_finalize(q);
    etp_history_run *out = !st && n ? etp_arena_alloc(a, n * sizeof *out) : NULL;
    if (!st && n && !out)
        st = etp_store_nomem(s, err);
    if (!st && n)
        memcpy(out, v, n * sizeof *out);
    free(v);
    if (st)
        return st;
    *runs = out;
    *count = n;
    return ETP_OK;
}

typedef struct runs_result {
    etp_store_runs pub;           /* first: the pointer handed out */
    etp_arena arena;
} runs_result;

etp_status etp_store_list_runs(etp_store *s, const etp_store_filter *f, etp_store_runs **out,
                               etp_error *err)
{
    *out = NULL;
    runs_result *r = calloc(1, sizeof *r);
    if (!r)
        return etp_store_nomem(s, err);
    etp_history_run *runs;
    etp_status st = etp_store_select_runs(s, f, &r->arena, &runs, &r->pub.count, err);
    if (st) {
        etp_arena_free(&r->arena);
        free(r);
        return st;
    }
    r->pub.runs = runs;
    *out = &r->pub;
    return ETP_OK;
}

void etp_store_runs_free(etp_store_runs *runs)
{
    if (!runs)
        return;
    runs_result *r = (runs_result *)runs;
    etp_arena_free(&r->arena);
    free(r);
}
