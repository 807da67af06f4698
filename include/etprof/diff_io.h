/*
 * etprof/diff_io.h - the diff's inputs and outputs: a side read from a
 * published result bundle, and the comparison written as a terminal table,
 * JSON (schema etprof.diff v1), CSV, or a diff bundle with a standalone page.
 *
 * Ownership and thread safety as in etprof/diff.h: the functions keep no
 * state; a finished etp_diff may be written from several threads at once.
 */
#ifndef ETPROF_DIFF_IO_H
#define ETPROF_DIFF_IO_H

#include <stdio.h>

#include "etprof/diff.h"
#include "etprof/error.h"
#include "etprof/numeric_diff.h"

#ifdef __cplusplus
extern "C" {
#endif

struct etp_bundle;

/**
 * Write detailed/figures.csv into bundle @p b (a --detailed analysis
 * bundle): figure, execution, run_index, value_<unit>, one row per
 * execution of every model-level figure that has per-execution values
 * (etp_diff_figure_values()). A CSV without a schema, role "diagnostic".
 * @return ETP_OK; ETP_E_NOMEM; the bundle's write errors.
 */
etp_status etp_diff_publish_figure_samples(struct etp_bundle *b, const etp_analysis *a,
                                           etp_error *err);

/** Which rows a table shows, and in which order. */
typedef enum etp_diff_rank {
    ETP_DIFF_RANK_ABS = 0,       /**< |delta|, largest first (default) */
    ETP_DIFF_RANK_DELTA,         /**< delta, largest regression first */
    ETP_DIFF_RANK_RATIO,         /**< ratio, largest first */
    ETP_DIFF_RANK_BASE,          /**< base value, largest first */
    ETP_DIFF_RANK_NEW            /**< new value, largest first */
} etp_diff_rank;

/** Parse "abs", "delta", "ratio", "base", "new"; 0, or -1 when unknown. */
int etp_diff_rank_parse(const char *s, etp_diff_rank *out);

/**
 * The entity rows of @p d (every row but the model-level ones) in @p rank
 * order, ties by kind and key: a malloc'd array of *@p count indices into
 * d->rows (the caller frees it); NULL with *count 0 when there are none or
 * memory runs out (*@p failed set then).
 */
uint32_t *etp_diff_ranked(const etp_diff *d, etp_diff_rank rank, uint32_t *count, int *failed);

/** Options of the terminal table. */
typedef struct etp_diff_text_style {
    int color;                   /**< ANSI colours */
    uint32_t top;                /**< entity rows shown (0: all) */
    etp_diff_rank rank;
} etp_diff_text_style;

/** The terminal table: sides, level, warnings, model rows, then the top
 *  entity rows. @return ETP_OK or ETP_E_IO (write error). */
etp_status etp_diff_write_text(const etp_diff *d, const etp_diff_text_style *st, FILE *fp,
                               etp_error *err);

/** The whole comparison as JSON (schema "etprof.diff", version 1; rows in
 *  d's order; @p gate_json, a JSON object, as member "gate" when not NULL),
 *  a malloc'd NUL-terminated text; NULL when out of memory. */
char *etp_diff_json(const etp_diff *d, const char *gate_json, size_t *len);

/** As etp_diff_json(), with @p numerics_json (a JSON object,
 *  etp_numeric_diff_json()) as member "numerics" when not NULL. */
char *etp_diff_json_with_numerics(const etp_diff *d, const char *gate_json, const char *numerics_json,
                                  size_t *len);

/** The CI gate's outcome as the JSON object `etprof diff --json` holds
 *  as "gate" and a diff bundle records (pretty, with a final newline):
 *  metric, kind, threshold_pct, no_significance, ratio, has_interval,
 *  failed, reason, exit_status. Give it as @p gate_json to etp_diff_json()
 *  and etp_diff_publish_options. malloc'd; NULL when out of memory. */
char *etp_diff_gate_json(const etp_diff_gate_outcome *g);

/**
 * The options a diff bundle records in its provenance (compact JSON
 * object): @p o's statistic, confidence, resamples, seed, any_method and
 * interval_rows; the table's @p rank and @p top; with @p gate (NULL: no
 * gate), its threshold, metric and no_significance; then the unit and
 * method of the analysis options @p ao that ETDump sides are analysed
 * with (NULL: the defaults, etp_analysis_options_init()). malloc'd; NULL
 * when out of memory.
 */
char *etp_diff_options_json(const etp_diff_options *o, etp_diff_rank rank, uint32_t top,
                            const etp_diff_gate_outcome *gate, const etp_analysis_options *ao);

/** "abs", "delta", "ratio", "base" or "new" (a static string). */
const char *etp_diff_rank_name(etp_diff_rank rank);

/** Every row as CSV (RFC 4180, header row, the unit in the time columns'
 *  headers); NULL when out of memory. */
char *etp_diff_csv(const etp_diff *d, size_t *len);

/** The standalone HTML page (no network, no script needed): the sides,
 *  the level, and side-by-side bars per model figure, per backend and per
 *  top entity row. NULL when out of memory. */
char *etp_diff_html(const etp_diff *d, uint32_t top, size_t *len);

/** As etp_diff_html(), with a numerics table of @p nd (NULL: none). */
char *etp_diff_html_with_numerics(const etp_diff *d, const etp_numeric_diff *nd, uint32_t top, size_t *len);

/* ---- Numerics (etprof/numeric_diff.h) ----------------------------------- */

/**
 * @p nd as the JSON object `etprof diff --numerics --json` holds as
 * "numerics" (pretty): level, level_reason, execution, tolerance, counts
 * (values, pairs, compared, incomparable, diverged), unmatched {base, new},
 * first_divergence and largest (a pair's key, order and figures, or null),
 * pairs (base order). A figure no JSON number can hold is a string: SNR
 * "inf" / "-inf"; NaN is null. malloc'd; NULL when out of memory.
 */
char *etp_numeric_diff_json(const etp_numeric_diff *nd, size_t *len);

/** One row per pair with a header (numerics.csv): key, new_key, level,
 *  order, origin, dtypes, shapes, compared, reason, the figures, diverged,
 *  and whether it is the first divergence / the largest error. SNR as
 *  "inf" / "-inf" when infinite. NULL when out of memory. */
char *etp_numeric_diff_csv(const etp_numeric_diff *nd, size_t *len);

/** The terminal table (key, level, SNR dB, MSE, max abs err, cosine) and
 *  the line naming the first divergence and the largest error.
 *  @return ETP_OK or ETP_E_IO. */
etp_status etp_numeric_diff_write_text(const etp_numeric_diff *nd, FILE *fp, etp_error *err);

/** The SNR value an overlay shows for +Inf (an exact match); -Inf is its
 *  negation. */
#define ETP_NUMERIC_OVERLAY_SNR_CAP 200.0

/**
 * A Model Explorer node-data file colouring the base program's instruction
 * nodes ("forward_0_3", graph = the base method) by SNR dB: each node the
 * lowest SNR of its compared values (+Inf shown as
 * ETP_NUMERIC_OVERLAY_SNR_CAP), red at 0 dB to green at 80 dB and above.
 * *@p out is NULL (no error) when no pair is of an instruction or has no
 * method. @return ETP_OK, ETP_E_NOMEM.
 */
etp_status etp_numeric_diff_overlay(const etp_numeric_diff *nd, char **out, size_t *len, etp_error *err);

/** What etp_diff_publish() records about the run. */
typedef struct etp_diff_publish_options {
    const char *dir;             /**< bundle directory */
    unsigned bundle_flags;       /**< ETP_BUNDLE_FORCE, ETP_BUNDLE_PARENTS */
    const char *base_path, *new_path; /**< the inputs (bundle directories or ETDumps) */
    const char *options_json;    /**< the diff's options, recorded in the provenance */
    const char *gate_json;       /**< the CI gate's outcome (JSON object) or NULL */
    uint32_t top;                /**< rows on the page */
    const etp_numeric_diff *numerics; /**< NULL: none; else numerics.csv, the page's numerics
                                      table, "numerics" in diff_summary.json and
                                      model_explorer/numerics_overlay.json */
} etp_diff_publish_options;

/**
 * Publish a diff bundle (bundle_type "diff") through etprof/bundle.h's
 * staging and manifest: diff_summary.json (schema etprof.diff, the whole
 * comparison), diff_rows.csv and diff.html; the manifest last.
 * @return ETP_OK; ETP_E_IO; ETP_E_USAGE; ETP_E_NOMEM (DIR unchanged on failure).
 */
etp_status etp_diff_publish(const etp_diff *d, const etp_diff_publish_options *o, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
