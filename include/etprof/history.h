/*
 * etprof/history.h - runs over time: the typed series a run-history store
 * hands out (etprof/store.h) and the rules that decide whether a series
 * regressed.
 *
 * A series is one measured quantity (a summary metric such as
 * "method_execute.avg", or one statistic of one entity's timing) of one
 * group of runs (by default: the same program digest, method and `device`
 * label), its points in order (publication time, or a numeric label such as
 * `seq`). Each point is one run; where the run's bundle was published with
 * --detailed, the point also carries the per-execution samples behind the
 * value, so a change can be tested against the noise of the executions and
 * not only against the spread of earlier runs.
 *
 * The rules (etp_regression_classify; docs/history.md states them with
 * examples):
 *  - a baseline window of earlier runs against the newest window;
 *  - a point violates when it is worse than the baseline statistic by more
 *    than the threshold AND outside the noise (the baseline's run-to-run
 *    spread, or, with samples on both sides, a bootstrap interval of the
 *    ratio that excludes 1);
 *  - two or more trailing violations: regression; a run of three or more
 *    violations that does not reach the end: suspicious; fewer points than
 *    baseline + window needs: insufficient data; else ok.
 *
 * Ownership: a series and everything it points to belong to whoever built
 * it (the store's results are freed with etp_history_series_free()). The
 * classifier only reads its input and writes a caller-owned result whose
 * strings are static or copied into it (see etp_regression).
 *
 * Thread safety: every function here is pure; any number of threads may
 * classify series at once.
 */
#ifndef ETPROF_HISTORY_H
#define ETPROF_HISTORY_H

#include <stdint.h>

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One KEY=VALUE label of a run (`--label`, `--labels-from-ci`). */
typedef struct etp_history_label {
    const char *key;
    const char *value;            /**< bytes as stored: may be any length and not UTF-8 */
} etp_history_label;

/** One run's value in a series. */
typedef struct etp_history_point {
    int64_t run;                  /**< the store's run id */
    const char *run_id;           /**< the bundle's own run id (its manifest) */
    int64_t published_ms;         /**< publication time, ms since 1970-01-01 UTC */
    double order;                 /**< where the point stands: published_ms, or the value of
                                       the numeric order label (e.g. seq) */
    double value;                 /**< the statistic in the series' unit */
    uint32_t samples;             /**< executions behind value (summary.json's "samples") */
    uint32_t label_count;
    const etp_history_label *labels; /**< every label of the run, sorted by key */
    uint32_t sample_count;        /**< per-execution values stored for the run (detailed
                                       bundles); 0 when it has none */
    const double *execution_values; /**< those values, in the series' unit, execution order */
} etp_history_point;

/** One series: a quantity of one group of runs over time. */
typedef struct etp_history_series {
    const char *key;              /**< the group's identity as text, e.g.
                                       "program=ab12..|method=forward|device=pixel7" */
    uint32_t group_count;
    const etp_history_label *group; /**< the grouping keys and this group's values */
    const char *metric;           /**< "method_execute.avg", or the entity statistic's name */
    const char *entity;           /**< the entity's stable key, or NULL for a model metric */
    const char *unit;             /**< the unit's name as the bundles state it ("ms", "cycles",
                                       "bytes", ...) */
    int lower_is_better;          /**< 1 for times, cycles, bytes (every stored metric so far) */
    uint32_t point_count;
    etp_history_point *points;    /**< ascending by order (ties by run id) */
} etp_history_series;

/** One stored run, as listings and exports show it. */
typedef struct etp_history_run {
    int64_t run;                  /**< the store's run id */
    const char *run_id;           /**< the bundle's run id */
    const char *manifest_sha256;  /**< SHA-256 of its result_manifest.json (unique) */
    int64_t published_ms;         /**< publication time, ms since 1970-01-01 UTC */
    const char *tool_version;     /**< etprof version that published it */
    const char *validity;         /**< "valid", "degraded", "invalid" */
    const char *method;           /**< the method analysed */
    const char *program_sha256;   /**< the program's digest ("" when none was given) */
    const char *time_unit;        /**< the unit of its times ("ms", "cycles", ...) */
    uint32_t executions;          /**< executions the statistics are over */
    int detailed;                 /**< 1: per-execution samples were stored */
    const char *bundle;           /**< the bundle directory it was ingested from */
    uint32_t label_count;
    const etp_history_label *labels; /**< sorted by key */
} etp_history_run;

/** One summary metric of a stored run (summary.json's metrics). */
typedef struct etp_history_metric {
    const char *name;             /**< e.g. "method_execute.avg" */
    double value;
    const char *unit;             /**< its unit's name */
    const char *aggregation;      /**< e.g. "mean over executions" */
    int additive;                 /**< may be summed with other additive metrics */
    uint32_t samples;             /**< executions (or occurrences) behind it */
    uint32_t sample_count;        /**< per-execution values stored (detailed bundles) */
    const double *execution_values;
} etp_history_metric;

/** The verdict on one series. */
typedef enum etp_regression_class {
    ETP_REGRESSION_OK = 0,        /**< no change beyond the threshold and the noise */
    ETP_REGRESSION_REGRESSION,    /**< two or more trailing points violate */
    ETP_REGRESSION_SUSPICIOUS,    /**< three or more consecutive violations not at the end */
    ETP_REGRESSION_INSUFFICIENT_DATA /**< too few points for the baseline and the window */
} etp_regression_class;

/** "ok", "regression", "suspicious", "insufficient_data" (static). */
const char *etp_regression_class_name(etp_regression_class c);

/** How series are judged. Initialise with etp_regression_options_init(). */
typedef struct etp_regression_options {
    uint32_t window;              /**< newest points judged (default 3) */
    uint32_t baseline;            /**< points before the window forming the baseline
                                       (default 10; fewer available: insufficient data
                                       below min_baseline) */
    uint32_t min_baseline;        /**< fewest baseline points accepted (default 3) */
    double threshold_pct;         /**< worse than the baseline by more than this many percent
                                       (default 5) */
    double z_threshold;           /**< and more than this many baseline standard deviations
                                       away (default 3; Conbench's lookback z-score) */
    double confidence;            /**< of the bootstrap interval with samples (default 0.95) */
    uint32_t resamples;           /**< bootstrap resamples (default 2000; 0: no bootstrap) */
    uint64_t seed;                /**< bootstrap seed: the same verdicts on every run */
} etp_regression_options;

void etp_regression_options_init(etp_regression_options *o);

/** The verdict and its evidence. Strings are static or point into @p s. */
typedef struct etp_regression {
    etp_regression_class verdict;
    const char *reason;           /**< one line: why this verdict (static text with the
                                       numbers in the fields below) */
    uint32_t baseline_points;     /**< points the baseline statistic is over */
    double baseline_value;        /**< the baseline's median, series unit */
    double baseline_spread;       /**< its run-to-run standard deviation */
    double new_value;             /**< the window's median */
    double change_pct;            /**< (new_value / baseline_value - 1) * 100 */
    double z;                     /**< (new_value - baseline_value) / baseline_spread;
                                       0 when the spread is 0 */
    int has_interval;             /**< 1 when per-execution samples gave the interval below */
    double ratio_lo, ratio_hi;    /**< bootstrap interval of new/baseline at `confidence` */
    double confidence;            /**< a number in [0, 1]: how sure the verdict is (1 - the
                                       share of bootstrap ratios on the other side of 1 + threshold;
                                       from the z-score's normal tail without samples) */
    int64_t change_index;         /**< index in s->points of the first violating point of the
                                       run that decided the verdict; -1 when none */
    uint32_t violations;          /**< violating points in that run */
} etp_regression;

/**
 * Judge series @p s under @p o (NULL: defaults). Writes *@p out.
 * @return ETP_OK; ETP_E_USAGE for impossible options (window 0, negative
 *         threshold, confidence outside (0, 1)); ETP_E_NOMEM.
 */
etp_status etp_regression_classify(const etp_history_series *s, const etp_regression_options *o,
                                   etp_regression *out, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
