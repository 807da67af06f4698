/* hist_fields.c - the fields of a run history's outputs (hist_fields.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "outputs/history/hist_fields.h"
#include "util/jsonw_bytes.h"
#include "util/utc_time.h"

/* The labels flattened into columns of their own: the conventional keys
 * `analyze --label` and `--labels-from-ci` record. */
static const char *const FLAT_LABELS[] = {"device", "commit", "branch", "model", "backend", "seq"};

const char *hist_label(const etp_history_label *l, uint32_t n, const char *key)
{
    for (uint32_t i = 0; i < n; i++)
        if (l[i].key && !strcmp(l[i].key, key))
            return l[i].value;
    return NULL;
}

void hist_iso_time(int64_t ms, char out[32])
{
    if (etp_utc_format_ms(ms, out, 32))
        out[0] = '\0'; /* before year 0 or after 9999: no text for it */
}

/* ---- sinks ------------------------------------------------------------------ */

/* A field's name: always one of this file's constants (plain ASCII, nothing
 * to escape), so it is copied without the scan etp_jw_key makes; a trend
 * writes some 15 of them per point. Label keys, which are data, go through
 * etp_jw_key (labels_object). */
static void field_key(etp_jw *w, const char *name) { etp_jw_key_plain_inline(w, name, strlen(name)); }

static void js_str(hist_sink *k, const char *name, const char *v)
{
    field_key(k->jw, name);
    if (v)
        etp_jw_str(k->jw, v);
    else
        etp_jw_null(k->jw);
}
static void js_bytes(hist_sink *k, const char *name, const char *v)
{
    field_key(k->jw, name);
    if (v)
        etp_jw_bytes(k->jw, v);
    else
        etp_jw_null(k->jw);
}
static void js_i64(hist_sink *k, const char *name, int64_t v)
{
    field_key(k->jw, name);
    etp_jw_int(k->jw, v);
}
static void js_dbl(hist_sink *k, const char *name, double v)
{
    field_key(k->jw, name);
    etp_jw_double(k->jw, v);
}
static void js_flag(hist_sink *k, const char *name, int v)
{
    field_key(k->jw, name);
    etp_jw_bool(k->jw, v);
}

static void labels_object(etp_jw *w, const etp_history_label *l, uint32_t n)
{
    etp_jw_obj_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        etp_jw_key(w, l[i].key ? l[i].key : "");
        etp_jw_bytes(w, l[i].value ? l[i].value : "");
    }
    etp_jw_obj_end(w);
}

static void doubles_array(etp_jw *w, const double *v, uint32_t n)
{
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        etp_jw_double(w, v[i]);
    etp_jw_arr_end(w);
}

static void js_labels(hist_sink *k, const char *name, const etp_history_label *l, uint32_t n)
{
    field_key(k->jw, name);
    labels_object(k->jw, l, n);
}

static void js_doubles(hist_sink *k, const char *name, const double *v, uint32_t n)
{
    field_key(k->jw, name);
    doubles_array(k->jw, v, n);
}

hist_sink hist_json_sink(etp_jw *w)
{
    return (hist_sink){js_str, js_bytes, js_i64, js_dbl, js_flag, js_labels, js_doubles, w, NULL};
}

static void cs_str(hist_sink *k, const char *name, const char *v) { etp_csvw_str(k->csv, v); }
static void cs_i64(hist_sink *k, const char *name, int64_t v) { etp_csvw_int(k->csv, v); }
static void cs_dbl(hist_sink *k, const char *name, double v)
{
    if (isfinite(v))
        etp_csvw_double(k->csv, v);
    else
        etp_csvw_empty(k->csv); /* NaN or infinite: no number */
}
static void cs_flag(hist_sink *k, const char *name, int v) { etp_csvw_str(k->csv, v ? "true" : "false"); }

char *hist_labels_text(const etp_history_label *l, uint32_t n)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    labels_object(&w, l, n);
    size_t len;
    return etp_jw_take(&w, &len);
}

static char *doubles_text(const double *v, uint32_t n)
{
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    doubles_array(&w, v, n);
    size_t len;
    return etp_jw_take(&w, &len);
}

/* JSON text (NULL: out of memory) as one CSV cell. */
static void cs_text(hist_sink *k, char *t)
{
    if (!t) {
        k->csv->failed = 1;
        return;
    }
    etp_csvw_str(k->csv, t);
    free(t);
}
static void cs_labels(hist_sink *k, const char *name, const etp_history_label *l, uint32_t n)
{
    cs_text(k, hist_labels_text(l, n));
}
static void cs_doubles(hist_sink *k, const char *name, const double *v, uint32_t n)
{
    cs_text(k, doubles_text(v, n));
}

hist_sink hist_csv_sink(etp_csvw *w)
{
    return (hist_sink){cs_str, cs_str, cs_i64, cs_dbl, cs_flag, cs_labels, cs_doubles, NULL, w};
}

static void hd_name(hist_sink *k, const char *name) { etp_csvw_str(k->csv, name); }
static void hd_str(hist_sink *k, const char *name, const char *v) { hd_name(k, name); }
static void hd_i64(hist_sink *k, const char *name, int64_t v) { hd_name(k, name); }
static void hd_dbl(hist_sink *k, const char *name, double v) { hd_name(k, name); }
static void hd_flag(hist_sink *k, const char *name, int v) { hd_name(k, name); }
static void hd_labels(hist_sink *k, const char *name, const etp_history_label *l, uint32_t n)
{
    hd_name(k, name);
}
static void hd_doubles(hist_sink *k, const char *name, const double *v, uint32_t n) { hd_name(k, name); }

hist_sink hist_header_sink(etp_csvw *w)
{
    return (hist_sink){hd_str, hd_str, hd_i64, hd_dbl, hd_flag, hd_labels, hd_doubles, NULL, w};
}

/* ---- field lists ------------------------------------------------------------ */

static void time_fields(hist_sink *k, int64_t ms)
{
    char iso[32];
    hist_iso_time(ms, iso);
    k->str(k, "published", iso);
    k->i64(k, "published_ms", ms);
}

static void label_fields(hist_sink *k, const etp_history_label *l, uint32_t n, int labels)
{
    if (labels == HIST_LABELS_FLAT)
        for (size_t i = 0; i < sizeof FLAT_LABELS / sizeof FLAT_LABELS[0]; i++) {
            char name[32];
            snprintf(name, sizeof name, "label_%s", FLAT_LABELS[i]);
            k->bytes(k, name, hist_label(l, n, FLAT_LABELS[i]));
        }
    k->labels(k, "labels", l, n);
}

void hist_run_fields(hist_sink *k, const etp_history_run *r, int labels)
{
    k->i64(k, "run", r->run);
    k->str(k, "run_id", r->run_id);
    k->str(k, "manifest_sha256", r->manifest_sha256);
    time_fields(k, r->published_ms);
    k->str(k, "tool_version", r->tool_version);
    k->str(k, "validity", r->validity);
    k->str(k, "method", r->method);
    k->str(k, "program_sha256", r->program_sha256);
    k->str(k, "time_unit", r->time_unit);
    k->i64(k, "executions", r->executions);
    k->flag(k, "detailed", r->detailed);
    k->bytes(k, "bundle", r->bundle); /* a path: any bytes */
    label_fields(k, r->labels, r->label_count, labels);
}

void hist_metric_fields(hist_sink *k, const etp_history_metric *m)
{
    k->str(k, "metric", m->name);
    k->dbl(k, "value", m->value);
    k->str(k, "unit", m->unit);
    k->str(k, "aggregation", m->aggregation);
    k->flag(k, "additive", m->additive);
    k->i64(k, "samples", m->samples);
    k->i64(k, "sample_count", m->execution_values ? m->sample_count : 0);
    k->doubles(k, "execution_values", m->execution_values, m->execution_values ? m->sample_count : 0);
}

void hist_point_fields(hist_sink *k, const etp_history_point *p, int labels)
{
    k->i64(k, "run", p->run);
    k->str(k, "run_id", p->run_id);
    time_fields(k, p->published_ms);
    k->dbl(k, "order", p->order);
    k->dbl(k, "value", p->value);
    k->i64(k, "samples", p->samples);
    k->i64(k, "sample_count", p->execution_values ? p->sample_count : 0);
    label_fields(k, p->labels, p->label_count, labels);
}

void hist_series_fields(hist_sink *k, const etp_history_series *s)
{
    k->str(k, "series", s->key);
    k->str(k, "metric", s->metric);
    k->str(k, "entity", s->entity);
    k->str(k, "unit", s->unit);
    k->flag(k, "lower_is_better", s->lower_is_better);
    k->labels(k, "group", s->group, s->group_count);
}

/* ---- text ------------------------------------------------------------------ */

size_t hist_text_put(FILE *fp, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t width = 0;
    while (*p) {
        unsigned char c = *p;
        size_t need = (c >= 0xf0 && c <= 0xf4) ? 3 : (c >= 0xe0 && c < 0xf0) ? 2 : (c >= 0xc2 && c < 0xe0) ? 1 : 0;
        int ok = c >= 0x20 && c != 0x7f && (c < 0x80 || need);
        for (size_t i = 1; ok && i <= need; i++)
            ok = (p[i] & 0xc0) == 0x80;
        if (ok && c == 0xc2 && p[1] < 0xa0)
            ok = 0; /* a C1 control character */
        if (!ok) {
            fprintf(fp, "\\x%02x", c);
            p++;
            width += 4;
            continue;
        }
        fwrite(p, 1, need + 1, fp);
        p += need + 1;
        width++;
    }
    return width;
}

void hist_text_cell(FILE *fp, const char *s, size_t width)
{
    for (size_t w = hist_text_put(fp, s); w < width; w++)
        fputc(' ', fp);
}

/* ---- a verdict -------------------------------------------------------------- */

void hist_verdict_json(etp_jw *w, const etp_history_series *s, const etp_regression *r)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "verdict", etp_regression_class_name(r->verdict));
    etp_jw_kstr(w, "reason", r->reason ? r->reason : "");
    etp_jw_kuint(w, "baseline_points", r->baseline_points);
    etp_jw_kdouble(w, "baseline_value", r->baseline_value);
    etp_jw_kdouble(w, "baseline_spread", r->baseline_spread);
    etp_jw_kdouble(w, "new_value", r->new_value);
    etp_jw_kdouble(w, "change_pct", r->change_pct);
    etp_jw_kdouble(w, "z", r->z);
    etp_jw_kdouble(w, "confidence", r->confidence);
    etp_jw_key(w, "ratio_interval");
    if (r->has_interval) {
        double iv[2] = {r->ratio_lo, r->ratio_hi};
        doubles_array(w, iv, 2);
    } else {
        etp_jw_null(w);
    }
    etp_jw_kuint(w, "violations", r->violations);
    etp_jw_key(w, "change");
    if (r->change_index >= 0 && (uint64_t)r->change_index < s->point_count) {
        const etp_history_point *p = &s->points[r->change_index];
        etp_jw_obj_begin(w);
        etp_jw_kint(w, "index", r->change_index);
        hist_sink k = hist_json_sink(w);
        hist_point_fields(&k, p, HIST_LABELS_OBJECT);
        etp_jw_obj_end(w);
    } else {
        etp_jw_null(w);
    }
    etp_jw_obj_end(w);
}
