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
 *  - the usable points are those with a finite value; the newest `window`
 *    of them are judged against the up to `baseline` before them;
 *  - the baseline's level is its median, its noise the run-to-run standard
 *    deviation estimated from successive differences (von Neumann), which a
 *    slow drift inside the baseline does not inflate;
 *  - a point violates when it is worse than the level by more than the
 *    threshold AND more than a critical number of noise units: the
 *    z threshold's normal tail read as Student's t (the noise estimate's
 *    degrees of freedom) and widened for the uncertainty of the median, so
 *    that a short baseline needs a larger deviation; with no noise at all
 *    (a constant baseline) the threshold alone decides;
 *  - two or more trailing violations (with a window of 1: the newest point):
 *    regression; a run of three or more violations that does not reach the
 *    end: suspicious; fewer usable points than window + min_baseline, or a
 *    baseline median that is not positive (a relative change is undefined)
 *    while the window is not all zero: insufficient data; else ok;
 *  - where every point of the deciding run and the min_baseline baseline
 *    points nearest the window carry per-execution samples, the run must
 *    also pass the diff's bootstrap (etprof/diff.h): the run's pooled
 *    executions against those of these baseline points, the ratio's
 *    interval must exclude 1 on the worse side;
 *    a run that fails it is inside the executions' noise and decides nothing
 *    (the next candidate run is tried). The bootstrap's statistic is the
 *    median for a metric named "*.p50", else the mean.
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
    uint32_t window;              /**< newest points judged (default 5, so that a run of three
                                       that ended fits; at least 1) */
    uint32_t baseline;            /**< points before the window forming the baseline
                                       (default 20; fewer available: used down to
                                       min_baseline, below it insufficient data) */
    uint32_t min_baseline;        /**< fewest baseline points accepted (default 5; at least 2) */
    double threshold_pct;         /**< worse than the baseline by more than this many percent
                                       (default 5; >= 0) */
    double z_threshold;           /**< and beyond this many noise units, as a normal tail read
                                       under Student's t (default 3; Conbench's lookback
                                       z-score; 0: the threshold alone) */
    double confidence;            /**< of the bootstrap interval with samples (default 0.95) */
    uint32_t resamples;           /**< bootstrap resamples (default 2000; 0: no bootstrap) */
    uint64_t seed;                /**< bootstrap seed (XORed with a hash of the series' key and
                                       metric): the same verdicts on every run */
} etp_regression_options;

void etp_regression_options_init(etp_regression_options *o);

/** The verdict and its evidence. Strings are static or point into @p s. */
typedef struct etp_regression {
    etp_regression_class verdict;
    const char *reason;           /**< one line: why this verdict (static text with the
                                       numbers in the fields below); NULL only on error */
    uint32_t baseline_points;     /**< points the baseline statistic is over */
    double baseline_value;        /**< the baseline's median, series unit */
    double baseline_spread;       /**< its run-to-run standard deviation (from successive
                                       differences), series unit; 0 for a constant baseline */
    double new_value;             /**< median of the run that decided a regression or
                                       suspicious verdict, else of the window; series unit */
    double change_pct;            /**< (new_value / baseline_value - 1) * 100 (negative: smaller;
                                       worse only where lower_is_better says so) */
    double z;                     /**< (new_value - baseline_value) / baseline_spread;
                                       0 when the spread is 0 */
    int has_interval;             /**< 1 when per-execution samples gave the interval below
                                       (for the deciding run, or for the run it rejected) */
    double ratio_lo, ratio_hi;    /**< bootstrap interval of new/baseline at `confidence` */
    double confidence;            /**< a number in [0, 1]: how sure the verdict is. Regression
                                       or suspicious: the share of bootstrap ratios beyond
                                       1 + threshold (worse side), or without samples the t
                                       probability that the run's level lies beyond the
                                       threshold; ok: one minus that for the window (or for
                                       the run the bootstrap rejected); insufficient data: 0 */
    int64_t change_index;         /**< index in s->points of the first violating point of the
                                       run that decided the verdict; -1 when none */
    uint32_t violations;          /**< violating points in that run (0 for ok) */
} etp_regression;

/**
 * Judge series @p s under @p o (NULL: defaults). Writes *@p out.
 * The series is only read; points need not carry samples. Cost: O(point
 * count) to find the usable points, plus, only for a run that would decide
 * regression or suspicious and has samples on both sides, one bootstrap of
 * resamples x (pooled executions) draws.
 * @return ETP_OK; ETP_E_USAGE for impossible options (window 0, min_baseline
 *         below 2, baseline below min_baseline, a negative or non-finite
 *         threshold or z threshold, confidence outside (0, 1)); ETP_E_NOMEM.
 */
etp_status etp_regression_classify(const etp_history_series *s, const etp_regression_options *o,
                                   etp_regression *out, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
