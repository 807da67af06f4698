/*
 * etprof/history_io.h - a run history written out: listings of stored runs
 * (text, JSON, CSV), trends (JSON, CSV, a standalone page), regression
 * verdicts (text, JSON) and exports for other tools (CSV and JSON Lines with
 * one documented column schema, and PyTorch's OSS benchmark database record
 * `benchmark.oss_ci_benchmark_v3`). docs/history.md describes every format.
 *
 * Inputs are the typed records of etprof/history.h, from the store
 * (etprof/store.h) or built in memory; nothing here reads a database.
 * Every output is a pure function of its input: the same records give the
 * same bytes. Labels are bytes: JSON carries a value that is well-formed
 * UTF-8 as a string and any other as {"base64": "..."} (run_metadata.json's
 * rule: exact), CSV carries the bytes as stored, text listings show control
 * and stray bytes as \xHH, and the page shows labels as text only (never as
 * markup; a stray byte as the character of its value).
 *
 * Ownership: inputs are only read. Functions returning char * return a
 * malloc'd NUL-terminated text the caller frees (NULL when out of memory).
 * Thread safety: no state is kept; any number of threads may write at once
 * (an etp_history_export is one stream: one thread at a time).
 */
#ifndef ETPROF_HISTORY_IO_H
#define ETPROF_HISTORY_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etprof/error.h"
#include "etprof/history.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- runs (`etprof db runs`) ---------------------------------------------- */

/** The runs as an aligned terminal table (run, published, validity, method,
 *  executions, unit, labels, run id), one line each, oldest first as given.
 *  @return ETP_OK or ETP_E_IO (a failed write). */
etp_status etp_history_runs_text(const etp_history_run *runs, uint32_t n, FILE *fp, etp_error *err);

/** The runs as JSON: {"schema": "etprof.history-runs", "schema_version": 1,
 *  "runs": [{run columns, "labels": {...}}]} (docs/history.md). */
char *etp_history_runs_json(const etp_history_run *runs, uint32_t n, size_t *len);

/** The runs as CSV (RFC 4180, header row): the export's run columns. */
char *etp_history_runs_csv(const etp_history_run *runs, uint32_t n, size_t *len);

/* ---- trends (`etprof db trend`) ------------------------------------------- */

/**
 * Series as JSON: {"schema": "etprof.trend", "schema_version": 1, "series":
 * [{key, metric, entity, unit, lower_is_better, group, points: [...],
 * regression}]}. @p verdicts: NULL, or one per series (its "regression"
 * member; the change point named by run).
 */
char *etp_history_trend_json(const etp_history_series *s, uint32_t n, const etp_regression *verdicts,
                             size_t *len);

/** etp_history_trend_json streamed to @p fp through a 64 KiB buffer (a
 *  trend of 100,000 points is some 25 MB of JSON that need never be held).
 *  @return ETP_OK, ETP_E_IO (a failed write, the system's reason in the
 *  message) or ETP_E_NOMEM. The bytes are those etp_history_trend_json
 *  returns. */
etp_status etp_history_trend_json_write(const etp_history_series *s, uint32_t n,
                                        const etp_regression *verdicts, FILE *fp, etp_error *err);

/** Series as a terminal listing: per series a line with its metric, unit,
 *  key, point count and (with @p verdicts, one per series, or NULL) its
 *  verdict, then one line per point (run, publication time, value, commit,
 *  seq); a count at the end. Stray bytes as \xHH. @return ETP_OK or ETP_E_IO. */
etp_status etp_history_trend_text(const etp_history_series *s, uint32_t n, const etp_regression *verdicts,
                                  FILE *fp, etp_error *err);

/** Series as CSV: one row per point, the series' identity first. */
char *etp_history_trend_csv(const etp_history_series *s, uint32_t n, size_t *len);

/** etp_history_trend_csv streamed to @p fp (the same bytes).
 *  @return ETP_OK or ETP_E_IO. */
etp_status etp_history_trend_csv_write(const etp_history_series *s, uint32_t n, FILE *fp, etp_error *err);

/**
 * The standalone trend page: one chart per metric (metric, entity and unit),
 * a line per series, points in order; hovering a point shows its run id,
 * value with unit, publication time, commit and every other label; series
 * with a regression or suspicious verdict in @p verdicts (NULL: none) are
 * marked at their change point. No network and no library: the data is
 * inline JSON, drawn by etprof's own script. @p title (NULL: "etprof trend")
 * is shown as text.
 */
char *etp_history_trend_html(const etp_history_series *s, uint32_t n, const etp_regression *verdicts,
                             const char *title, size_t *len);

/** etp_history_trend_html streamed to @p fp (the same bytes).
 *  @return ETP_OK, ETP_E_IO or ETP_E_NOMEM. */
etp_status etp_history_trend_html_write(const etp_history_series *s, uint32_t n,
                                        const etp_regression *verdicts, const char *title, FILE *fp,
                                        etp_error *err);

/* ---- regressions (`etprof db regressions`) -------------------------------- */

/** The verdicts, one line per series (regressions first, then suspicious,
 *  insufficient data, ok; ties in input order), then a count per verdict.
 *  @p verdicts has one entry per series. @return ETP_OK or ETP_E_IO. */
etp_status etp_history_regressions_text(const etp_history_series *s, const etp_regression *verdicts,
                                        uint32_t n, FILE *fp, etp_error *err);

/** The verdicts as JSON: {"schema": "etprof.regressions", "schema_version":
 *  1, "options": {...}, "counts": {...}, "series": [...]} in input order;
 *  @p o: the options they were judged with (NULL: defaults). */
char *etp_history_regressions_json(const etp_history_series *s, const etp_regression *verdicts,
                                   uint32_t n, const etp_regression_options *o, size_t *len);

/* ---- exports (`etprof db export`) ----------------------------------------- */

/** The export formats. */
typedef enum etp_history_export_format {
    ETP_HISTORY_EXPORT_CSV = 0,      /**< one row per (run, metric), header row */
    ETP_HISTORY_EXPORT_JSONL,        /**< the same columns, one JSON object a line */
    ETP_HISTORY_EXPORT_PYTORCH_V3    /**< one oss_ci_benchmark_v3 record a line */
} etp_history_export_format;

/** Parse "csv", "jsonl", "pytorch-v3": 0, or -1 when unknown. */
int etp_history_export_format_parse(const char *name, etp_history_export_format *out);

/** An export being written: begin, one call per run, end. */
typedef struct etp_history_export etp_history_export;

/**
 * Start an export of @p format to @p fp (the CSV header is written now).
 * @return ETP_OK; ETP_E_NOMEM; ETP_E_USAGE for an unknown format.
 */
etp_status etp_history_export_begin(FILE *fp, etp_history_export_format format,
                                    etp_history_export **out, etp_error *err);

/** Write run @p run and its @p n metrics (a row or record per metric; a run
 *  without metrics writes nothing). @return ETP_OK; ETP_E_IO; ETP_E_NOMEM. */
etp_status etp_history_export_run(etp_history_export *x, const etp_history_run *run,
                                  const etp_history_metric *metrics, uint32_t n, etp_error *err);

/** Flush, and free @p x (also after a failure; NULL is ignored).
 *  @return ETP_OK or the first failure of the export. */
etp_status etp_history_export_end(etp_history_export *x, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
