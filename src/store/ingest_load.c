/* ingest_load.c - a published bundle read for storing (etp_store_bundle_load):
 * verified through the bundle reader, its run identity and labels taken
 * out, and where each stored value sits in its tables found through the
 * column table (etprof/columns.h), so that the store keeps what the bundle
 * means without deciding it again. Touches no database: thread-safe. */
#include "store/store_internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/units.h"
#include "util/str.h"
#include "util/utc_time.h"

const etp_column_id etp_store_entity_columns[ETP_STORE_ENTITY_COLUMNS] = {
    ETP_COL_EXECUTIONS, ETP_COL_EVENTS, ETP_COL_AVG,      ETP_COL_P10,    ETP_COL_P50,
    ETP_COL_P90,        ETP_COL_MIN,    ETP_COL_MAX,      ETP_COL_ADDITIVE, ETP_COL_SHARED,
    ETP_COL_KERNEL_AVG, ETP_COL_DISPATCH_AVG,
};

const etp_column_id etp_store_nx_columns[ETP_STORE_NX_COLUMNS] = {
    ETP_COL_NX_EXECUTIONS,   ETP_COL_NX_TOTAL_AVG, ETP_COL_NX_OP_AVG,
    ETP_COL_NX_TOTAL_MIN,    ETP_COL_NX_TOTAL_MEDIAN, ETP_COL_NX_TOTAL_MAX,
    ETP_COL_NX_FULL_COVERAGE, ETP_COL_NX_SEGMENT,  ETP_COL_NX_STRIPES,
};

/* What the store cannot take from the bundle in @p dir, one line. */
#define BAD(dir, ...) etp_error_set(err, ETP_E_FORMAT, (dir), ETP_NO_OFFSET, __VA_ARGS__)

void etp_store_bundle_free(etp_store_bundle *b)
{
    if (!b)
        return;
    etp_bundle_close(b->doc);
    free(b->labels);
    free(b->labels_blob);
    free(b->bundle_path);
    free(b->entity_rows);
    free(b->nx_rows);
    for (uint32_t i = 0; i < b->figure_count; i++)
        free(b->figures[i].values);
    free(b->figures);
    for (uint32_t i = 0; i < b->owned_count; i++)
        free(b->owned[i]);
    free(b->owned);
    free(b);
}

const etp_history_run *etp_store_bundle_run(const etp_store_bundle *b) { return &b->run; }

static const char *input_sha(const etp_bundle_manifest *m, const char *role)
{
    for (uint32_t i = 0; i < m->input_count; i++)
        if (m->inputs[i].role && !strcmp(m->inputs[i].role, role) && m->inputs[i].sha256)
            return m->inputs[i].sha256;
    return "";
}

static int cmp_label(const void *x, const void *y)
{
    return strcmp(((const etp_history_label *)x)->key, ((const etp_history_label *)y)->key);
}

/* The bundle's labels, then @p extra over them; sorted, and as the blob
 * runs.labels stores. */
static etp_status merge_labels(etp_store_bundle *b, const etp_history_label *extra, uint32_t n,
                               etp_error *err)
{
    const etp_bundle_run_metadata *md = etp_bundle_doc_run_metadata(b->doc);
    uint32_t total = md->label_count + n;
    b->labels = calloc(total ? total : 1, sizeof *b->labels);
    b->owned = calloc(2 * (size_t)n + 1, sizeof *b->owned);
    if (!b->labels || !b->owned)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    uint32_t k = 0;
    for (uint32_t i = 0; i < md->label_count; i++)
        b->labels[k++] = (etp_history_label){md->labels[i].key, md->labels[i].value};
    for (uint32_t i = 0; i < n; i++) {
        const char *why = etp_label_key_problem(extra[i].key);
        if (!why)
            why = etp_label_value_problem(extra[i].value);
        if (why)
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "--label %.64s: %s",
                                 extra[i].key ? extra[i].key : "", why);
        char *key = etp_strdup(extra[i].key), *value = etp_strdup(extra[i].value);
        b->owned[b->owned_count++] = key;
        b->owned[b->owned_count++] = value;
        if (!key || !value)
            return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        uint32_t j;
        for (j = 0; j < k && strcmp(b->labels[j].key, key); j++)
            ;
        b->labels[j] = (etp_history_label){key, value};
        if (j == k)
            k++;
    }
    qsort(b->labels, k, sizeof *b->labels, cmp_label);
    size_t len = 0;
    for (uint32_t i = 0; i < k; i++)
        len += strlen(b->labels[i].key) + strlen(b->labels[i].value) + 2;
    if (!(b->labels_blob = malloc(len + 1)))
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    char *p = b->labels_blob;
    for (uint32_t i = 0; i < k; i++) {
        size_t kl = strlen(b->labels[i].key) + 1, vl = strlen(b->labels[i].value) + 1;
        memcpy(p, b->labels[i].key, kl);
        memcpy(p + kl, b->labels[i].value, vl);
        p += kl + vl;
    }
    b->labels_blob_len = len;
    b->run.label_count = k;
    b->run.labels = b->labels;
    return ETP_OK;
}

/* Where column @p id of the table is: operators.csv's header ("avg_ms") or
 * operators.json's flattened member ("timing.avg"); -1 when absent. */
static int find_column(const etp_bundle_table *t, etp_column_id id, etp_unit unit)
{
    const etp_column *c = etp_column_get(id);
    char name[128];
    etp_column_header(c, unit, name, sizeof name);
    int k = etp_bundle_table_column(t, name);
    if (k >= 0)
        return k;
    const char *group = etp_column_group_key(c->group);
    snprintf(name, sizeof name, "%s%s%s", group ? group : "", group ? "." : "", c->key);
    return etp_bundle_table_column(t, name);
}

static const char *cell_text(const etp_bundle_table *t, uint32_t row, int col)
{
    if (col < 0)
        return NULL;
    const etp_bundle_cell *c = etp_bundle_table_cell(t, row, (uint32_t)col);
    return c->type == ETP_CELL_NULL ? NULL : c->text;
}

static etp_status locate_rows(etp_store_bundle *b, const char *dir, etp_unit unit, etp_error *err)
{
    const etp_bundle_table *t = etp_bundle_doc_operators(b->doc);
    b->table = t;
    if (!t->source)
        return ETP_OK;
    b->col_id = find_column(t, ETP_COL_ID, unit);
    b->col_kind = find_column(t, ETP_COL_KIND, unit);
    b->col_name = find_column(t, ETP_COL_NAME, unit);
    b->col_op_type = find_column(t, ETP_COL_OP_TYPE, unit);
    b->col_backend = find_column(t, ETP_COL_BACKEND, unit);
    b->col_nx_parent = find_column(t, ETP_COL_NX_PARENT, unit);
    for (int k = 0; k < ETP_STORE_ENTITY_COLUMNS; k++)
        b->entity_cols[k] = find_column(t, etp_store_entity_columns[k], unit);
    for (int k = 0; k < ETP_STORE_NX_COLUMNS; k++)
        b->nx_cols[k] = find_column(t, etp_store_nx_columns[k], unit);
    if (b->col_id < 0 || b->col_kind < 0)
        return BAD(dir, "%s: no entity id or kind column", t->source);
    b->entity_rows = malloc((t->row_count ? t->row_count : 1) * sizeof *b->entity_rows);
    b->nx_rows = malloc((t->row_count ? t->row_count : 1) * sizeof *b->nx_rows);
    if (!b->entity_rows || !b->nx_rows)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    for (uint32_t r = 0; r < t->row_count; r++) {
        const char *id = cell_text(t, r, b->col_id), *kind = cell_text(t, r, b->col_kind);
        if (!id || !kind)
            return BAD(dir, "%s: row %u has no entity id or kind", t->source, r + 1);
        /* NX cycle groups are group measurements, kept apart (nx_groups). */
        if (!strncmp(kind, "nx_", 3))
            b->nx_rows[b->nx_count++] = r;
        else
            b->entity_rows[b->entity_count++] = r;
    }
    return ETP_OK;
}

static int cmp_figure(const void *x, const void *y)
{
    return strcmp(((const etp_store_figure_samples *)x)->figure,
                  ((const etp_store_figure_samples *)y)->figure);
}

/* detailed/figures.csv: the rows of each figure together, in execution
 * order, as many as summary.json's "FIGURE.avg" says it is over. */
static etp_status read_figure_samples(etp_store_bundle *b, const char *dir, const char *time_unit,
                                      etp_error *err)
{
    const etp_bundle_table *t = etp_bundle_doc_figure_samples(b->doc);
    if (!t->source)
        return ETP_OK;
    const char *where = t->source;
    char value_col[64];
    snprintf(value_col, sizeof value_col, "value_%s", time_unit);
    int cf = etp_bundle_table_column(t, "figure"), cx = etp_bundle_table_column(t, "execution");
    int cv = etp_bundle_table_column(t, value_col);
    if (cf < 0 || cx < 0 || cv < 0)
        return BAD(dir, "%s: expected the columns figure, execution, run_index, %s", where, value_col);
    b->figures = calloc(t->row_count ? t->row_count : 1, sizeof *b->figures);
    if (!b->figures)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    double last_exec = -1;
    for (uint32_t r = 0; r < t->row_count; r++) {
        const etp_bundle_cell *f = etp_bundle_table_cell(t, r, (uint32_t)cf);
        const etp_bundle_cell *x = etp_bundle_table_cell(t, r, (uint32_t)cx);
        const etp_bundle_cell *v = etp_bundle_table_cell(t, r, (uint32_t)cv);
        if (f->type == ETP_CELL_NULL || x->type != ETP_CELL_NUMBER || v->type != ETP_CELL_NUMBER)
            return BAD(dir, "%s: line %u: not figure, execution, run_index, value", where, r + 2);
        etp_store_figure_samples *cur = b->figure_count ? &b->figures[b->figure_count - 1] : NULL;
        if (!cur || strcmp(cur->figure, f->text)) {
            for (uint32_t i = 0; i + 1 < b->figure_count; i++)
                if (!strcmp(b->figures[i].figure, f->text))
                    return BAD(dir, "%s: line %u: the rows of a figure are not together", where, r + 2);
            cur = &b->figures[b->figure_count++];
            cur->figure = f->text;
            cur->values = malloc((t->row_count - r) * sizeof *cur->values);
            if (!cur->values)
                return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        } else if (x->number <= last_exec) {
            return BAD(dir, "%s: line %u: executions out of order", where, r + 2);
        }
        last_exec = x->number;
        cur->values[cur->count++] = v->number;
    }
    for (uint32_t i = 0; i < b->figure_count; i++) {
        char name[300];
        snprintf(name, sizeof name, "%s.avg", b->figures[i].figure);
        const etp_bundle_metric *m = etp_bundle_doc_metric(b->doc, name);
        if (m && m->available && m->samples != b->figures[i].count)
            return BAD(dir, "%s has %u values of %s, summary.json says %llu", where, b->figures[i].count,
                       b->figures[i].figure, (unsigned long long)m->samples);
    }
    qsort(b->figures, b->figure_count, sizeof *b->figures, cmp_figure);
    return ETP_OK;
}

etp_status etp_store_bundle_load(const char *dir, const etp_history_label *extra,
                                 uint32_t extra_count, etp_store_bundle **out, etp_error *err)
{
    *out = NULL;
    etp_store_bundle *b = calloc(1, sizeof *b);
    if (!b)
        return etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory");
    etp_status s = etp_bundle_open(dir, 1, &b->doc, err);
    if (s) {
        etp_store_bundle_free(b);
        return s;
    }
    const etp_bundle_manifest *m = etp_bundle_doc_manifest(b->doc);
    const etp_bundle_summary_info *si = etp_bundle_doc_summary(b->doc);
    etp_history_run *r = &b->run;
    int64_t ms = 0;
    etp_unit unit = ETP_UNIT_MS;
    if (m->bundle_type && strcmp(m->bundle_type, "profile"))
        s = BAD(dir, "a '%s' bundle, not a profile: only profile bundles are stored", m->bundle_type);
    else if (!etp_bundle_doc_artifact(b->doc, "summary.json"))
        s = BAD(dir, "the bundle declares no summary.json: not a profile bundle");
    else if (!si->time_unit || etp_unit_parse(si->time_unit, &unit))
        s = BAD(dir, "summary.json: no units.time this etprof knows");
    else if (!m->run_id || !m->timestamp || etp_utc_parse_ms(m->timestamp, &ms))
        s = BAD(dir, "result_manifest.json: no run_id or no valid timestamp");
    if (s) {
        etp_store_bundle_free(b);
        return s;
    }
    char *abs = realpath(dir, NULL);
    b->bundle_path = abs ? abs : etp_strdup(dir);
    const etp_bundle_metric *ex = etp_bundle_doc_metric(b->doc, "executions");
    r->run_id = m->run_id;
    r->manifest_sha256 = m->manifest_sha256;
    r->published_ms = ms;
    r->tool_version = m->tool_version ? m->tool_version : "";
    r->validity = m->validity ? m->validity : "";
    r->method = si->method ? si->method : "";
    r->program_sha256 = input_sha(m, "pte");
    r->time_unit = si->time_unit;
    r->executions = ex && ex->available && ex->value >= 0 && ex->value < 4e9 ? (uint32_t)ex->value : 0;
    r->detailed = etp_bundle_doc_artifact(b->doc, "detailed/figures.csv") != NULL;
    r->bundle = b->bundle_path;
    b->timestamp = m->timestamp;
    b->status = m->status ? m->status : "";
    b->etrecord_sha256 = input_sha(m, "etrecord");
    b->etdump_sha256 = input_sha(m, "etdump");
    if (!b->bundle_path)
        s = etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory");
    if (!s)
        s = merge_labels(b, extra, extra_count, err);
    if (!s)
        s = locate_rows(b, dir, unit, err);
    if (!s)
        s = read_figure_samples(b, dir, si->time_unit, err);
    if (s) {
        etp_store_bundle_free(b);
        return s;
    }
    *out = b;
    return ETP_OK;
}
