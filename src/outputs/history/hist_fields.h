/* hist_fields.h - the fields of a run history's outputs, defined once.
 *
 * Each list of fields (a run's, a metric's, a trend point's) is one function
 * that hands every field, in order, to a sink. A JSON sink writes members, a
 * CSV sink writes cells, the header sink writes the names: so the CSV header,
 * the CSV rows, the JSON objects and the exports cannot disagree. */
#ifndef ETP_HIST_FIELDS_H
#define ETP_HIST_FIELDS_H

#include <stdint.h>
#include <stdio.h>

#include "etprof/history.h"
#include "util/csvw.h"
#include "util/jsonw.h"

/* Where fields go. A NULL string is absent: JSON null, an empty CSV cell. */
typedef struct hist_sink hist_sink;
struct hist_sink {
    void (*str)(hist_sink *k, const char *name, const char *v);
    /* A label value: bytes that may not be UTF-8 (JSON: a string, or
     * {"base64": ...} as run_metadata.json writes them; CSV: the bytes). */
    void (*bytes)(hist_sink *k, const char *name, const char *v);
    void (*i64)(hist_sink *k, const char *name, int64_t v);
    void (*dbl)(hist_sink *k, const char *name, double v);
    void (*flag)(hist_sink *k, const char *name, int v);
    /* Labels as one value: a JSON object; in CSV the same object as text. */
    void (*labels)(hist_sink *k, const char *name, const etp_history_label *l, uint32_t n);
    /* Numbers as one value: a JSON array; in CSV the same array as text. */
    void (*doubles)(hist_sink *k, const char *name, const double *v, uint32_t n);
    etp_jw *jw;
    etp_csvw *csv;
};

/* Sinks: JSON members of the object @p w is in; CSV cells of the row @p w
 * is writing; CSV header cells (names only) into @p w. */
hist_sink hist_json_sink(etp_jw *w);
hist_sink hist_csv_sink(etp_csvw *w);
hist_sink hist_header_sink(etp_csvw *w);

/* How much of the labels a field list spells out. */
enum {
    HIST_LABELS_OBJECT = 0, /* "labels" only */
    HIST_LABELS_FLAT = 1    /* label_<key> columns for the conventional keys, then "labels" */
};

/* run, run_id, manifest_sha256, published, published_ms, tool_version,
 * validity, method, program_sha256, time_unit, executions, detailed,
 * bundle, [label_device .. label_seq], labels. */
void hist_run_fields(hist_sink *k, const etp_history_run *r, int labels);
/* metric, value, unit, aggregation, additive, samples, sample_count,
 * execution_values. */
void hist_metric_fields(hist_sink *k, const etp_history_metric *m);
/* run, run_id, published, published_ms, order, value, samples,
 * sample_count, [label_device .. label_seq], labels. */
void hist_point_fields(hist_sink *k, const etp_history_point *p, int labels);
/* series, metric, entity, unit, lower_is_better, group. */
void hist_series_fields(hist_sink *k, const etp_history_series *s);

/* @p s on a terminal line: control bytes (C0, DEL, C1) and bytes that are
 * not part of well-formed UTF-8 as \xNN, the rest as it is; returns the
 * characters written. */
size_t hist_text_put(FILE *fp, const char *s);
/* hist_text_put, then spaces up to @p width characters. */
void hist_text_cell(FILE *fp, const char *s, size_t width);
/* Labels as a JSON object's text (malloc'd; NULL when out of memory). */
char *hist_labels_text(const etp_history_label *l, uint32_t n);
/* The value of label @p key, or NULL. */
const char *hist_label(const etp_history_label *l, uint32_t n, const char *key);
/* @p ms since 1970 as "YYYY-MM-DDTHH:MM:SS.mmmZ" into @p out (>= 32 bytes). */
void hist_iso_time(int64_t ms, char out[32]);
/* The verdict on @p s as a JSON object: verdict, reason, baseline and new
 * values, change, z, confidence, interval, and the change point's run. */
void hist_verdict_json(etp_jw *w, const etp_history_series *s, const etp_regression *r);

#endif
