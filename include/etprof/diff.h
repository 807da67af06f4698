/*
 * etprof/diff.h - compare two runs: which rows can be matched, by how much
 * each changed, and whether the change is larger than the noise.
 *
 * A run is described by an etp_diff_side: who it is (program digest,
 * method, units, source graph) and what it measured (model-level figures and
 * per-entity rows, each with its statistics and, when known, its
 * per-execution samples). A side is built from an analysis in memory
 * (etp_diff_side_from_analysis()), from a published bundle (etprof/diff_io.h)
 * or entry by entry (etp_diff_side_add()).
 *
 * etp_diff_compute() then decides how the two sides can be matched, said out
 * loud in etp_diff.level:
 *   - same program digest and method: per instruction, delegate event and
 *     source operator (rows matched by entity id);
 *   - same source graph (the same ETRecord, or the same set of source
 *     operators by name and type): per source operator;
 *   - otherwise per operator type and backend (instructions summed per
 *     execution within each group).
 * Model-level figures (Method::execute, native kernels, each delegate
 * backend, dispatch, framework overhead, load) are always compared.
 * Sides that cannot be compared honestly (different method, cycles against
 * time, an invalid or incomplete run) are refused with the reason.
 *
 * Statistics: every row compares one statistic (etp_diff_options.statistic:
 * the mean or the median over executions) in the base side's time unit:
 * delta = new - base, ratio = new / base (> 1: slower), speedup = base / new.
 * Sums over entities (operator-type groups) exist for the mean only, or for
 * any statistic when every member has per-execution samples of the same
 * executions (then the statistic is taken over the per-execution sums);
 * medians, minima and maxima are never added.
 *
 * Confidence intervals: when both sides have per-execution samples (ETDumps
 * analysed in memory, or --detailed bundles), the ratio's interval is a
 * percentile bootstrap: each side is resampled with replacement
 * (etp_diff_options.resamples times, independently), the statistic taken
 * on each resample and the ratio of the two recorded; the interval is the
 * (1 - confidence) / 2 and (1 + confidence) / 2 linear percentiles of those
 * ratios. The random numbers come from splitmix64 (state += 0x9e3779b97f4a7c15,
 * then the usual mix) seeded with etp_diff_options.seed XOR the FNV-1a-64
 * hash of "KIND:KEY" (e.g. "instruction:forward_0_7"), so the output is the
 * same on every run and does not depend on row order. Each resample draws
 * the base side's n indices, then the new side's, each index being
 * ((x >> 11) * n) >> 53 of the next 64-bit draw x. The median of an even
 * count is the mean of the two middle values (as numpy's). A row is
 * significant when its interval does not contain 1.
 *
 * Ownership: a side copies everything it is given and owns it; a diff owns
 * its rows and strings and keeps no pointer into the sides, which may be
 * freed after etp_diff_compute(). Thread safety: no global state; distinct
 * objects may be used from different threads, one object from one thread
 * at a time (a finished etp_diff is immutable and may be read by many).
 */
#ifndef ETPROF_DIFF_H
#define ETPROF_DIFF_H

#include <stdint.h>

#include "etprof/analysis.h"
#include "etprof/error.h"
#include "etprof/issues.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One run, as the diff sees it. Opaque. */
typedef struct etp_diff_side etp_diff_side;

/** What a row (or a side's entry) describes. */
typedef enum etp_diff_kind {
    ETP_DIFF_MODEL = 0,          /**< a model-level figure ("method_execute", ...) */
    ETP_DIFF_INSTRUCTION,        /**< an instruction, by id ("forward_0_3") */
    ETP_DIFF_DELEGATE_EVENT,     /**< events of one delegate id ("forward_0_3/delegate/1") */
    ETP_DIFF_OPERATOR,           /**< a source-graph node, by name */
    ETP_DIFF_OP_TYPE             /**< instructions of one operator type and backend, summed */
} etp_diff_kind;

/** The finest level at which the two sides were matched. */
typedef enum etp_diff_level {
    ETP_DIFF_LEVEL_MODEL = 0,        /**< model-level figures only */
    ETP_DIFF_LEVEL_OP_TYPE,          /**< + per operator type and backend */
    ETP_DIFF_LEVEL_SOURCE_OPERATOR,  /**< + per source operator (same source graph) */
    ETP_DIFF_LEVEL_INSTRUCTION       /**< + per instruction and delegate event (same program) */
} etp_diff_level;

/** Who a side is: what decides whether and how it can be compared. Every
 *  string may be NULL (unknown). */
typedef struct etp_diff_identity {
    const char *label;           /**< how outputs name the side (a path) */
    const char *origin;          /**< "bundle" or "etdump" */
    const char *program_sha256;  /**< SHA-256 of the program that ran */
    const char *etrecord_sha256; /**< SHA-256 of the ETRecord, when one was given */
    const char *method;          /**< the method that ran */
    etp_unit time_unit;          /**< unit of the times: a tick unit (etp_unit_is_tick(): ns, us,
                                      ms, s or cycles) */
    int has_tick_unit;           /**< 0: the unit of the ETDump's ticks is unknown */
    etp_unit tick_unit;          /**< unit of the ETDump's ticks (ns, cycles, ...) */
    int ticks_assumed;           /**< 1: the tick unit was assumed, not given */
    double cpu_hz;               /**< > 0: cycles were converted at this rate */
    const char *status;          /**< bundle status ("complete", ...) */
    const char *validity;        /**< "valid", "degraded" or "invalid" */
    uint32_t executions;         /**< executions of the method */
    int has_findings;            /**< 1: the side's findings are known (those added with
                                      etp_diff_side_add_finding(), maybe none); 0: not recorded
                                      (a bundle written before etprof had findings) */
} etp_diff_identity;

/** One measured quantity of a side: a figure or an entity. */
typedef struct etp_diff_entry {
    etp_diff_kind kind;          /**< ETP_DIFF_MODEL, _INSTRUCTION, _DELEGATE_EVENT or _OPERATOR */
    const char *id;              /**< figure name or entity id (required, unique per kind) */
    const char *name;            /**< display name (NULL: the id) */
    const char *op_type;         /**< entities: operator type (or delegate id) */
    const char *backend;         /**< delegated entities, and delegate_time figures */
    const char *unit;            /**< NULL: the side's time unit; else e.g. "bytes", "count" */
    const char *basis;           /**< figures: "per execution", "per occurrence", "runner reported" */
    int available;               /**< 0: no value (@p reason says why) */
    const char *reason;
    int additive;                /**< its mean may be added to other additive entries' */
    int shared;                  /**< its time is shared with co-attributed entities */
    uint64_t n;                  /**< executions (or occurrences) the statistics are over */
    double avg, p50, min, max;
    const double *samples;       /**< per-execution values in the entry's unit, or NULL */
    uint32_t sample_count;
} etp_diff_entry;

/**
 * A new, empty side described by @p id (copied). Release with
 * etp_diff_side_free(). @return ETP_OK or ETP_E_NOMEM.
 */
etp_status etp_diff_side_new(const etp_diff_identity *id, etp_diff_side **out, etp_error *err);

/**
 * Add @p e to @p s (copied, samples too). @return ETP_OK; ETP_E_USAGE for a
 * missing id, a kind that is not a side's (ETP_DIFF_OP_TYPE) or an id given
 * twice for one kind; ETP_E_NOMEM.
 */
etp_status etp_diff_side_add(etp_diff_side *s, const etp_diff_entry *e, etp_error *err);

/** A finding of a side (etprof/findings.h; in a bundle, summary.json's
 *  "findings"): what the comparison of findings reads. */
typedef struct etp_diff_side_finding {
    const char *code;            /**< registry code (required) */
    const char *severity;        /**< "info" / "warning", or NULL */
    const char *status;          /**< "fired" or "withheld" (required) */
    const char *message;         /**< or NULL */
    uint32_t entity_count;
    const char *const *entity_ids; /**< the affected entities' ids */
} etp_diff_side_finding;

/**
 * Add finding @p f to @p s (copied). A side records its findings in the
 * order given. @return ETP_OK; ETP_E_USAGE without a code or with a status
 * other than "fired" / "withheld"; ETP_E_NOMEM.
 */
etp_status etp_diff_side_add_finding(etp_diff_side *s, const etp_diff_side_finding *f, etp_error *err);

/** Release a side. Safe on NULL. */
void etp_diff_side_free(etp_diff_side *s);

/** The side's identity (strings owned by the side). */
const etp_diff_identity *etp_diff_side_identity(const etp_diff_side *s);

/**
 * A side from an analysis in memory: its figures and entities with their
 * per-execution samples (model-level figures included: each execution's
 * Method::execute and totals, as the analysis formed them with the figures,
 * etp_figure.series). @p label names the side in outputs;
 * @p etrecord_sha256 may be NULL. The analysis may be freed afterwards.
 * @return ETP_OK or ETP_E_NOMEM.
 */
etp_status etp_diff_side_from_analysis(const etp_analysis *a, const char *label,
                                       const char *etrecord_sha256, etp_diff_side **out,
                                       etp_error *err);

/** Per-execution values of one model-level figure. */
typedef struct etp_diff_figure_samples {
    uint32_t count;              /**< 0: the figure has none (unavailable, per occurrence, ...) */
    double *values;              /**< in the analysis' target unit */
    uint32_t *executions;        /**< the execution (index into a->executions) of each value */
} etp_diff_figure_samples;

/**
 * Each execution's value of every figure of @p a (the samples
 * etp_diff_side_from_analysis() gives its model rows): *@p out receives
 * a->figure_count entries in figure order (release with
 * etp_diff_figure_samples_free()): the values of etp_figure.series its
 * statistics are over. A figure without them (unavailable, not per
 * execution) has count 0.
 * @return ETP_OK or ETP_E_NOMEM.
 */
etp_status etp_diff_figure_values(const etp_analysis *a, etp_diff_figure_samples **out,
                                   etp_error *err);

/** Release @p n entries from etp_diff_figure_values(). Safe on NULL. */
void etp_diff_figure_samples_free(etp_diff_figure_samples *fs, uint32_t n);

/** Which statistic rows compare. */
typedef enum etp_diff_statistic {
    ETP_DIFF_STAT_AVG = 0,       /**< mean over executions (additive where the entries are) */
    ETP_DIFF_STAT_P50            /**< median over executions (never added) */
} etp_diff_statistic;

typedef struct etp_diff_options {
    etp_diff_statistic statistic; /**< default ETP_DIFF_STAT_AVG */
    double confidence;            /**< of the intervals, in (0, 1); default 0.95 */
    uint32_t resamples;           /**< bootstrap resamples per row; default 2000; 0: no intervals */
    uint64_t seed;                /**< bootstrap seed; default 0x6574707266646966 */
    int compare_methods;          /**< 1: allow different method names (with a warning) */
    /** Entity rows that get an interval: the first N by |delta| (default
     *  200; 0: every row). Model rows always get one; so does the row keyed
     *  @p interval_key (the gated row). Bounds the cost: a bootstrap draws
     *  resamples x (base + new samples) indices per row. */
    uint32_t interval_rows;
    const char *interval_key;     /**< NULL: none */
} etp_diff_options;

/** Defaults as documented in etp_diff_options. */
void etp_diff_options_init(etp_diff_options *o);

/** One side of a row. */
typedef struct etp_diff_value {
    int present;                 /**< the side has this row at all */
    int available;               /**< it has a value (else @p reason) */
    const char *reason;
    double value;                /**< the compared statistic, in the diff's unit */
    double avg, p50, min, max;   /**< in the diff's unit; @p has_p50 etc. say which exist */
    int has_avg, has_p50, has_min, has_max;
    uint64_t n;                  /**< executions or occurrences */
    uint32_t sample_count;       /**< per-execution samples it had (0: none) */
    int additive, shared;
    int has_share;
    double share;                /**< avg / Method::execute avg of this side (0..1+) */
    uint32_t members;            /**< ETP_DIFF_OP_TYPE: instructions summed */
} etp_diff_value;

/** One compared row. */
typedef struct etp_diff_row {
    etp_diff_kind kind;
    const char *key;             /**< figure name, entity id, or "BACKEND/OP_TYPE" */
    const char *name, *op_type, *backend;
    const char *unit;            /**< the diff's time unit, or the figure's own unit */
    const char *basis;           /**< figures: what the statistics are over; else NULL */
    etp_diff_value base, new_;
    int matched;                 /**< present on both sides */
    int has_delta;
    double delta;                /**< new - base */
    int has_ratio;
    double ratio;                /**< new / base (> 1: the new run is slower) */
    double speedup;              /**< base / new, when both are non-zero */
    int has_ci;
    double ci_low, ci_high;      /**< of the ratio */
    int significant;             /**< has_ci and the interval does not contain 1 */
    const char *note;            /**< why a figure is missing ("only in base", "no samples"...) */
} etp_diff_row;

/** A warning that did not prevent the comparison. */
typedef struct etp_diff_warning {
    const char *code;            /**< a registry code of scope diff, e.g. "units.converted" */
    const char *message;
    const etp_issue_code *issue; /**< its registry entry (severity, meaning, guidance) */
} etp_diff_warning;

/** How a finding's code moved between the sides. */
typedef enum etp_diff_finding_change {
    ETP_DIFF_FINDING_APPEARED = 0, /**< only the new side has the code */
    ETP_DIFF_FINDING_DISAPPEARED,  /**< only the base side has it */
    ETP_DIFF_FINDING_KEPT          /**< both sides have it */
} etp_diff_finding_change;

/** "appeared", "disappeared", "kept". */
const char *etp_diff_finding_change_name(etp_diff_finding_change c);

/** Bits of etp_diff_finding.entity_in: which sides name an entity. */
#define ETP_DIFF_IN_BASE 1u
#define ETP_DIFF_IN_NEW 2u

/** One finding code compared: the findings with that code on each side
 *  (one code may occur several times on a side, e.g. one hotspot per
 *  operator type) and the entities they name. */
typedef struct etp_diff_finding {
    etp_diff_finding_change change;
    const char *code;
    const char *severity;        /**< as a side gives it (the new side's when both), or NULL */
    uint32_t base_count, new_count; /**< findings with the code on each side */
    const char *base_status, *new_status; /**< "fired" when one of the side's fired, else
                                               "withheld"; NULL when the side has none */
    const char *base_message, *new_message; /**< the side's first such finding's, or NULL */
    uint32_t entity_count;
    const char *const *entity_ids; /**< every entity either side names: the base side's
                                        in their order, then the new side's others */
    const uint8_t *entity_in;    /**< per entity: ETP_DIFF_IN_BASE | ETP_DIFF_IN_NEW */
} etp_diff_finding;

/** The comparison. Immutable once computed; release with etp_diff_free(). */
typedef struct etp_diff {
    etp_diff_level level;
    const char *level_name;      /**< "instruction", "source_operator", "op_type", "model" */
    const char *level_reason;    /**< why this level ("same program digest ...") */
    etp_diff_statistic statistic;
    const char *statistic_name;  /**< "avg" or "p50" */
    const char *unit;            /**< time unit of the rows (the base side's) */
    double confidence;
    uint32_t resamples;
    uint64_t seed;
    etp_diff_identity base, new_; /**< copies of the sides' identities (owned) */
    uint32_t row_count;
    etp_diff_row *rows;          /**< model figures first (base's order, then new-only), then
                                      entity rows by kind and key */
    uint32_t warning_count;
    etp_diff_warning *warnings;
    void *arena_;                /**< private */
    int findings_compared;       /**< 1: both sides' findings are known (has_findings) */
    uint32_t finding_count;
    etp_diff_finding *findings;  /**< appeared, then disappeared, then kept; by code within each */
} etp_diff;

/**
 * Compare @p base with @p new_side.
 * @return ETP_OK (*out set); ETP_E_MISMATCH when the sides cannot be
 *         compared, the message saying why ("base is in cycles, new in ms:
 *         analyse both with --cpu-hz"...); ETP_E_USAGE for bad options;
 *         ETP_E_NOMEM.
 */
etp_status etp_diff_compute(const etp_diff_side *base, const etp_diff_side *new_side,
                            const etp_diff_options *opt, etp_diff **out, etp_error *err);

/** Release a diff. Safe on NULL. */
void etp_diff_free(etp_diff *d);

/** The row with @p kind and @p key, or NULL. Linear search. */
const etp_diff_row *etp_diff_find(const etp_diff *d, etp_diff_kind kind, const char *key);

/** "model", "instruction", "delegate_event", "operator", "op_type". */
const char *etp_diff_kind_name(etp_diff_kind k);

/**
 * The CI gate: whether row @p r is slower than allowed. Slower means
 * ratio > 1 + @p pct / 100; it fails the gate when it is also significant,
 * or, when the row has no interval, when @p without_significance is 1.
 * @return 1 fails, 0 passes; *@p why (optional) receives a static phrase
 * ("slower and significant", "slower, not significant", "no interval
 * (samples absent)", "within the threshold", "no ratio").
 */
int etp_diff_gate(const etp_diff_row *r, double pct, int without_significance, const char **why);

/** The CI gate's decision on a comparison (etp_diff_gate_decide()). Its
 *  strings are static or the caller's, its row is in the diff decided on:
 *  valid while that diff and @p metric live. */
typedef struct etp_diff_gate_outcome {
    const char *metric;          /**< the gated row's name, as asked */
    const etp_diff_row *row;     /**< the gated row */
    double threshold_pct;        /**< slower means ratio > 1 + threshold_pct / 100 */
    int no_significance;         /**< a row without an interval is gated on its ratio */
    int failed;                  /**< 1: the gate fails */
    const char *reason;          /**< why, a static phrase (etp_diff_gate()) */
    int exit_status;             /**< ETP_EXIT_GATE when failed, else ETP_EXIT_OK
                                      (etprof/exit_status.h) */
} etp_diff_gate_outcome;

/**
 * The CI gate of `etprof diff --fail-if-slower PCT --metric METRIC`, the one
 * decision the CLI and the Python package take: the gated row is the model
 * figure named @p metric, else the first row keyed @p metric (an
 * instruction id, an operator name, "BACKEND/OP_TYPE"); etp_diff_gate()
 * decides on it with @p threshold_pct and @p no_significance. Compute the
 * diff with etp_diff_options.interval_key = @p metric so that the row has
 * its interval whatever interval_rows says.
 * @return ETP_OK (*@p out filled); ETP_E_USAGE when no row is named
 *         @p metric (the message lists the model figures' names) or when
 *         @p threshold_pct is not a number >= 0.
 */
etp_status etp_diff_gate_decide(const etp_diff *d, const char *metric, double threshold_pct,
                                int no_significance, etp_diff_gate_outcome *out, etp_error *err);

/**
 * A side from the published bundle in @p dir, verified first
 * (etp_bundle_open() with verification: a bundle whose manifest, sizes or
 * digests do not hold is refused, ETP_E_FORMAT naming the file). Read:
 * summary.json's method, units and metrics (model-level figures), the
 * operators table (entities), the program digest from the provenance, and,
 * in a --detailed bundle, detailed/executions.csv and detailed/figures.csv
 * (per-execution samples of the entities and of the model-level figures;
 * their bytes are checked against the manifest's SHA-256 as they are read). @return ETP_OK; ETP_E_IO; ETP_E_FORMAT; ETP_E_NOMEM.
 */
etp_status etp_diff_side_from_bundle(const char *dir, etp_diff_side **out, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
