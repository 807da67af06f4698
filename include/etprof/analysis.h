/*
 * etprof/analysis.h - attribute measured time to instructions, delegate
 * events and source operators, without inventing numbers.
 *
 * Rules (each tested):
 *  1. An execution is one Execute block of the selected method. Events that
 *     belong to one entity are summed within each execution first; statistics
 *     (avg, p10, p50, p90, min, max) are over those per-execution sums.
 *     `executions` counts executions with at least one event, `events` counts
 *     the event records that contributed.
 *  2. An event mapped to several source operators gives each of them the full
 *     timing, marked shared and non-additive, with the co-attributed list; it
 *     is never divided. Handles that match no node are listed as unresolved.
 *  3. Detailed delegate events (through the delegate map) take precedence over
 *     the enclosing DELEGATE_CALL interval; that interval is only the fallback
 *     for operators of the delegate without detail, never split, never added
 *     on top of detail.
 *  4. For a KernelCall, OPERATOR_CALL is the instruction's time, native_call_*
 *     its kernel time, the difference dispatch overhead; nested events are
 *     never double counted.
 *  5. Sums across entities exist only when they cover the same executions.
 *     P50/min/max are never summed.
 *  6. Mixed dumps: the runtime events (DELEGATE_CALL, delegate events) of an
 *     instruction that carries VGF_NEURAL_STATISTICS are left out of the
 *     ordinary runtime result (instructions, operators, the *_total and
 *     delegate_time figures; issue vgf.runtime_excluded): that instruction is
 *     measured as NX cycles (etp_analysis.nx). Its DELEGATE_CALL time stays
 *     visible apart, as figure vgf_excluded_runtime; Method::execute is as
 *     measured.
 * Every figure carries its unit and whether its average may be added.
 *
 * Ownership: an etp_analysis owns everything it points to except its inputs
 * (etdump, program, etrecord, runner_log: borrowed, and they must outlive
 * it); strings and arrays in entities and figures live until
 * etp_analysis_free().
 *
 * Thread safety: etp_analyze() and etp_analyze_prepared() use up to one
 * helper thread of their own and share no state with other calls, so
 * analyses of different inputs may run at once. Reading the same ETDump
 * from two analyses at once needs an ETDump that is verified (see
 * etprof/etdump.h: a deferred open is verified by its first decode). A
 * finished etp_analysis is immutable: any number of threads may read it and
 * call the lookups below; etp_analysis_free() must not run beside them.
 */
#ifndef ETPROF_ANALYSIS_H
#define ETPROF_ANALYSIS_H

#include "etprof/error.h"
#include "etprof/etdump.h"
#include "etprof/findings.h"
#include "etprof/inspect.h"
#include "etprof/issues.h"
#include "etprof/program.h"
#include "etprof/stats.h"
#include "etprof/units.h"

#ifdef __cplusplus
extern "C" {
#endif

struct etp_etrecord;
struct etp_runner_log;
struct etp_device_log;
struct etp_device_report;
struct etp_npu_call_site;

/**
 * A wall time per iteration that a source other than the ETDump reported for
 * the run's executions: the evidence the tick unit is tested against. The
 * analysis takes one itself from a runner log's "Iteration i of N: X ms"
 * lines; readers of other logs (GNU time, device consoles) pass theirs in
 * etp_analysis_options.wall_evidence. Strings are borrowed for the call.
 */
typedef struct etp_wall_evidence {
    const char *source;           /**< what reported it: "runner log", "GNU time -v", ... */
    const char *path;             /**< the file it came from (may be NULL) */
    uint32_t iterations;          /**< how many iterations the figure averages (>= 1) */
    double ms_per_iteration;      /**< average wall time of one iteration, milliseconds */
    int includes_other_work;      /**< 1: the time spans more than Method::execute (a whole
                                       process, pre/post-processing): it only bounds the
                                       execution time from above, never from below */
} etp_wall_evidence;

/** What the top lists are ordered by (per-execution statistics). */
typedef enum etp_rank_key { ETP_RANK_AVG = 0, ETP_RANK_P50, ETP_RANK_MAX } etp_rank_key;

/** "avg", "p50" or "max" (static). */
const char *etp_rank_key_name(etp_rank_key k);

typedef struct etp_analysis_options {
    etp_unit source_unit;
    int source_unit_given;        /**< 0: ns assumed (an issue is recorded) */
    etp_unit target_unit;
    double cpu_hz;                /**< > 0: cycles -> time */
    const char *method;           /**< NULL: infer */
    const struct etp_runner_log *runner_log; /**< optional: the runner's own report */
    int hash_program;             /**< record the program's SHA-256 (for publishing: the
                                       companion-program gate compares it later) */
    uint32_t skip_executions;     /**< leave the method's first N executions (warm-up) out
                                       of every statistic; they still count for the cold
                                       start figure and the tick-unit test */
    etp_rank_key rank_by;         /**< order of etp_analysis_top() (default avg) */
    const etp_wall_evidence *wall_evidence; /**< extra wall times (borrowed), may be NULL */
    uint32_t wall_evidence_count;
    /** optional: device logs (etprof/device_log.h), borrowed like runner_log;
     *  their figures go to etp_analysis.device, apart from the ETDump's */
    const struct etp_device_log *const *device_logs;
    uint32_t device_log_count;
    const struct etp_nx_options *nx_options; /**< VGF statistics decoder choices; NULL: defaults */
    /** optional: the debug buffer the runtime wrote beside the ETDump
     *  (intermediate-output logging). Every tensor a debug event logged
     *  must lie inside its debug_buffer_size bytes, else the analysis fails
     *  with ETP_E_MISMATCH (etp_etdump_check_debug_buffer()). */
    int has_debug_buffer;
    uint64_t debug_buffer_size;
    const char *debug_buffer_name; /**< how errors and outputs name it (copied) */
    /** the findings' thresholds the user changed (--finding); all zero: defaults */
    etp_finding_settings findings;
    /** optional, with has_debug_buffer: the buffer's bytes (borrowed for the
     *  call, and for the life of the analysis: etp_analysis.tensors points into
     *  them). When set, every logged value is read and attributed
     *  (etprof/tensors.h) and a bundled program's expected outputs checked. */
    const uint8_t *debug_buffer_data;
    int32_t testset;              /**< the bundled test case that ran (-1: from the ETDump or log) */
    const char *testset_basis;    /**< how testset is known, for the outputs (NULL: "--testset") */
    int tolerance_given;          /**< 1: tolerance below, else ExecuTorch's rtol 1e-5 / atol 1e-8 */
    double rtol, atol;
} etp_analysis_options;

void etp_analysis_options_init(etp_analysis_options *o);

/** The debug buffer an analysis checked the ETDump's debug events against. */
typedef struct etp_debug_buffer_info {
    int checked;                  /**< 0: no debug buffer was given */
    char *name;                   /**< etp_analysis_options.debug_buffer_name (owned) */
    uint64_t size;                /**< bytes */
    etp_debug_buffer_check check; /**< what was found: every tensor inside the buffer */
} etp_debug_buffer_info;

/** Per-execution sums of one entity over the analysis' executions. */
typedef struct etp_series {
    uint64_t *ticks;              /**< per execution (0 where absent) */
    uint8_t *present;             /**< 1 where the entity had events in that execution */
    uint32_t executions;          /**< executions with events */
    uint64_t events;              /**< contributing event records */
    etp_stats stats;              /**< over present executions, target unit */
} etp_series;

typedef enum etp_entity_kind {
    ETP_ENTITY_INSTRUCTION = 0,   /**< one instruction of the method's chain */
    ETP_ENTITY_DELEGATE_EVENT,    /**< events of one delegate id inside a DelegateCall */
    ETP_ENTITY_OPERATOR           /**< a node of the exported (source) graph */
} etp_entity_kind;

/** Where an entity's time comes from. */
typedef enum etp_timing_source {
    ETP_SRC_NONE = 0,             /**< no timing */
    ETP_SRC_OPERATOR_CALL,        /**< OPERATOR_CALL of a KernelCall */
    ETP_SRC_DELEGATE_CALL,        /**< DELEGATE_CALL interval */
    ETP_SRC_OTHER_CALL,           /**< JF_CALL / MOVE_CALL / FREE_CALL */
    ETP_SRC_DELEGATE_EVENTS,      /**< detailed delegate-internal events */
    ETP_SRC_DELEGATE_FALLBACK,    /**< enclosing DELEGATE_CALL, no detail for this operator */
    ETP_SRC_MIXED,                /**< several kinds of source */
    ETP_SRC_VGF_NX                /**< an instruction with VGF_NEURAL_STATISTICS: measured as NX
                                       cycles (etp_analysis.nx); its runtime events are left out
                                       of the ordinary runtime result (no time series, not
                                       additive), their DELEGATE_CALL time is figure
                                       "vgf_excluded_runtime" */
} etp_timing_source;

typedef struct etp_entity {
    etp_entity_kind kind;
    char *id;                     /**< stable id: "forward_0_3", "forward_0_3/delegate/1", node name */
    char *name;                   /**< display name */
    char *op_type;                /**< "aten::convolution.out" | "aten.convolution.default" | delegate id */
    const char *backend;          /**< delegate backend id, when delegated */
    int32_t chain, instruction;   /**< -1 for operators */
    int32_t delegate_id_int;      /**< delegate events: the int id (-1 for string ids) */
    int delegate_id_is_int;
    etp_instr_kind instr_kind;    /**< instructions only (NONE when unknown) */
    uint32_t handle_count;
    int64_t *handles;             /**< debug handles (instructions: from the map; operators: own) */
    etp_series time;              /**< the entity's time */
    etp_timing_source source;
    int additive;                 /**< its avg may be added to other additive entities' */
    int shared;                   /**< shares an event with co-attributed entities */
    uint32_t co_count;
    char **co_attributed;         /**< ids of entities sharing this timing (owned) */
    uint32_t unresolved_count;
    int64_t *unresolved;          /**< handles of its events that match no node */
    /* Instructions that are KernelCalls: */
    int has_kernel;
    etp_series kernel;            /**< native_call_* time */
    etp_stats dispatch;           /**< OPERATOR_CALL - kernel, per execution where both exist */
    /* Operators (source graph nodes): */
    const char *module_path;      /**< innermost nn.Module path, e.g. "layer1.0.conv1" */
    const char *module_type;
    const char *stack_trace;
    const char *source_fn;
    uint32_t instruction_count;
    char **instructions;          /**< ids of the instructions that ran it (owned) */
    /* DelegateCall instructions: how much of the interval their delegate
     * events explain (detailed/delegates.json). The events may nest or leave
     * out delegate overhead, so this is not necessarily comparable with it. */
    uint32_t detail_events;       /**< delegate-event entities inside it (0: no detail) */
    double detail_total_avg;      /**< their per-execution totals over its executions: the sum
                                       of their avg x executions, divided by its executions
                                       (target unit; 0 without them or without executions) */
    /* DelegateCall instructions with EthosUBackend events: */
    const struct etp_npu_call_site *npu; /**< its Ethos-U split (an element of
                                              device->npu.sites, etprof/device_report.h);
                                              NULL for every other entity */
} etp_entity;

/** What a figure's statistics are over. */
typedef enum etp_figure_basis {
    ETP_FIGURE_PER_EXECUTION = 0, /**< per-execution totals, summarised across executions */
    ETP_FIGURE_PER_OCCURRENCE,    /**< every occurrence of a framework event (load, init) */
    ETP_FIGURE_RUNNER_REPORTED    /**< the values the runner printed in its log */
} etp_figure_basis;

/**
 * Which figure it is. Outputs select figures by id, never by name; the name
 * (etp_figure_id_name()) is what files and reports print.
 */
typedef enum etp_figure_id {
    ETP_FIG_METHOD_EXECUTE = 0,      /**< "method_execute": Method::execute per execution */
    ETP_FIG_PROGRAM_LOAD_METHOD,     /**< "program_load_method" (per occurrence) */
    ETP_FIG_METHOD_INIT,             /**< "method_init" (per occurrence) */
    ETP_FIG_INSTRUCTIONS_TOTAL,      /**< "instructions_total" */
    ETP_FIG_OPERATOR_CALLS_TOTAL,    /**< "operator_calls_total": OPERATOR_CALL intervals */
    ETP_FIG_DELEGATE_CALLS_TOTAL,    /**< "delegate_calls_total": DELEGATE_CALL intervals */
    ETP_FIG_NATIVE_KERNELS_TOTAL,    /**< "native_kernels_total": native_call_* time */
    ETP_FIG_DISPATCH_OVERHEAD_TOTAL, /**< "dispatch_overhead_total" */
    ETP_FIG_OTHER_CALLS_TOTAL,       /**< "other_calls_total": move / jump / free calls */
    ETP_FIG_FRAMEWORK_OVERHEAD,      /**< "framework_overhead": execute outside instructions */
    ETP_FIG_DELEGATE_TIME,           /**< "delegate_time:<backend>": one per backend */
    ETP_FIG_RUNNER_ITERATION,        /**< "runner_iteration" (ms, runner-reported) */
    ETP_FIG_RUNNER_LOAD,             /**< "runner_load" (ms, runner-reported) */
    ETP_FIG_RUNNER_PLANNED_MEMORY,   /**< "runner_planned_memory" (bytes, runner-reported) */
    ETP_FIG_VGF_EXCLUDED_RUNTIME,    /**< "vgf_excluded_runtime": DELEGATE_CALL intervals of the
                                          instructions measured as VGF NX cycles, left out of every
                                          runtime total above (never added to them, nor to cycles) */
    ETP_FIG_COUNT
} etp_figure_id;

/** Name prefix of the per-backend figures: "delegate_time:" + backend id. */
#define ETP_FIG_DELEGATE_TIME_PREFIX "delegate_time:"

/**
 * Each execution's value of a per-execution figure, formed once by the
 * analysis from the same events as the figure's statistics. Outputs that
 * show or compare executions (the page's executions table, the diff's
 * samples, detailed/figures.csv) read these; none sums events again.
 */
typedef struct etp_figure_series {
    int64_t *ticks;               /**< a->execution_count values in source ticks (value in the
                                       target unit: ticks / a->divisor); 0 where absent. Signed:
                                       dispatch and framework overhead may be negative */
    uint8_t *present;             /**< 1 where the execution had the events the value is made of
                                       (framework overhead: where it had Method::execute) */
    int absent_is_zero;           /**< 1: the statistics count an execution without such events
                                       as 0 (the totals over instructions, which are all measured
                                       in the same executions); 0: they are over the present
                                       executions only */
} etp_figure_series;

/** A model-level figure: per-execution statistics of some total. */
typedef struct etp_figure {
    etp_figure_id id;
    etp_figure_basis basis;       /**< what its statistics are over (follows from id) */
    const char *backend;          /**< ETP_FIG_DELEGATE_TIME: the backend id (points into
                                       name); NULL for every other figure */
    const char *name;             /**< e.g. "method_execute", "delegate_time:XnnpackBackend" */
    etp_unit unit;                /**< the unit of its statistics: the analysis' target unit for
                                       the ETDump's figures; the runner's own figures keep theirs
                                       (ms, bytes) */
    const char *source;           /**< NULL: the ETDump; "runner log" for the runner's own numbers */
    char *owned_name;
    int available;
    char *reason;                 /**< why unavailable (owned) */
    int additive;                 /**< its avg may be added to other additive figures */
    etp_stats stats;              /**< target unit; n = executions covered */
    uint64_t events;
    etp_figure_series series;     /**< ETP_FIGURE_PER_EXECUTION figures: each execution's value
                                       (formed even when the figure is unavailable because the
                                       instructions' coverage differs); ticks NULL otherwise */
} etp_figure;

/**
 * Totals over the entities of one operator type. Averages are added only
 * where they may be: the shared or non-additive ones are counted, never
 * added.
 */
typedef struct etp_op_type_total {
    const char *op_type;          /**< the type (points into the entities); NULL: none known */
    uint32_t members;             /**< entities of the type */
    uint32_t timed;               /**< of them, those with a timing */
    uint32_t not_summed;          /**< timed, but shared, non-additive or measured in fewer
                                       executions than the analysis: never added */
    double sum_avg;               /**< sum of the other timed members' averages (target unit),
                                       added in the order of their ids; meaningful when
                                       timed > not_summed */
    double largest_not_summed;    /**< the largest average among the not-summed (0: none) */
    int has_share;                /**< Method::execute has a positive average */
    double share_pct;             /**< 100 * sum_avg / Method::execute's average */
} etp_op_type_total;

/** The instructions that ran in one place: a delegate backend (its
 *  DELEGATE_CALL instructions) or the portable kernels (KernelCall
 *  instructions, OPERATOR_CALL). Their time per execution is a figure, with
 *  its additivity and coverage. */
typedef struct etp_backend_total {
    const char *backend;          /**< the backend id (the figure's); NULL: the portable kernels */
    const etp_figure *figure;     /**< delegate_time:<backend>, or operator_calls_total for the
                                       kernels (NULL when not computed) */
    uint32_t instructions;        /**< its instructions that have a timing */
} etp_backend_total;

/** How the ticks' unit is known. */
typedef enum etp_unit_check {
    ETP_UNIT_UNTESTED = 0,        /**< no wall times to test it against */
    ETP_UNIT_CONFIRMED,           /**< the wall times fit it */
    ETP_UNIT_CONTRADICTED,        /**< the wall times do not fit it */
    ETP_UNIT_UNCHECKABLE          /**< cycles without a clock rate: cannot be tested */
} etp_unit_check;

/** The tick unit and the evidence for it (see units.* issue codes). */
typedef struct etp_tick_evidence {
    etp_unit_check check;
    int assumed;                  /**< 1: the unit was not given and no wall time told it: ns
                                       were assumed (issue units.assumed) */
    const char *source;           /**< evidence used (static or the options'), NULL if none */
    const char *path;             /**< its file (borrowed from the inputs), may be NULL */
    uint32_t iterations;          /**< iterations the wall time averages */
    uint32_t executions;          /**< executions the Method::execute average is over */
    double wall_ms;               /**< reported wall time per iteration, ms */
    double execute_ticks;         /**< Method::execute ticks per execution (average) */
    double ratio;                 /**< wall_ms / Method::execute in ms under the unit used
                                       (0 for cycles without a clock rate) */
    double implied_hz;            /**< ticks per second the wall time implies */
    char fits[96];                /**< units the wall time fits, e.g. "ns" or "ns, cycles@1e+09" */
} etp_tick_evidence;

/** The first execution against the rest (a cold first run), over all of the
 *  method's executions including skipped ones; Method::execute in the target
 *  unit, the runner's iterations in ms. */
typedef struct etp_cold_start {
    int available;                /**< at least two executions with Method::execute */
    uint32_t rest_count;
    double first, rest_avg, rest_p50;
    double ratio;                 /**< first / rest_avg (0 when rest_avg is 0) */
    int log_available;            /**< the runner log has at least two iterations */
    uint32_t log_rest_count;
    double log_first_ms, log_rest_avg_ms;
} etp_cold_start;

typedef struct etp_analysis {
    const etp_etdump *etdump;
    const etp_program *program;       /**< may be NULL */
    const struct etp_etrecord *etrecord; /**< may be NULL */
    const struct etp_runner_log *runner_log; /**< may be NULL */
    const etp_plan *plan;             /**< selected method's plan, when a program was given */
    char program_sha256[65];          /**< SHA-256 of the program bytes analysed ("" without one);
                                           views re-check the file against it before drawing */
    const char *method;
    const char *method_basis;         /**< "given", "only method", "inferred from the program", ... */
    etp_unit source_unit, target_unit;
    double divisor, cpu_hz;
    uint32_t execution_count;
    uint32_t *executions;             /**< RunData indices, ascending */
    uint32_t entity_count;
    etp_entity *entities;             /**< instructions, delegate events, operators (in that order) */
    uint32_t figure_count;
    etp_figure *figures;
    uint32_t unresolved_count;
    int64_t *unresolved_handles;      /**< runtime_unresolved_debug_handles, ascending */
    etp_issue_list issues;
    etp_validity validity;
    etp_inspect *inspect;             /**< the grouping it was built from (owned) */
    uint32_t method_executions;       /**< the method's executions before skipping */
    uint32_t skipped_executions;      /**< the first ones left out (--skip-executions) */
    etp_rank_key rank_by;
    etp_tick_evidence tick_unit;
    etp_cold_start cold_start;
    uint32_t instructions_never_ran;  /**< of the selected method (0 without instruction events) */
    uint32_t instructions_some_executions; /**< ran in some executions but not all */
    struct etp_device_report *device; /**< device figures, memory, Ethos-U split
                                           (etprof/device_report.h; owned) */
    struct etp_nx_result *nx;         /**< VGF NX cycles (etprof/nx_stats.h), NULL when the
                                           ETDump has no VGF_NEURAL_STATISTICS (owned) */
    etp_debug_buffer_info debug_buffer; /**< the debug buffer checked, if one was given */
    struct etp_tensor_set *tensors;   /**< the logged values read from the debug buffer's bytes
                                           (etprof/tensors.h), NULL unless
                                           etp_analysis_options.debug_buffer_data was given (owned) */
    struct etp_nx_row *nx_rows;       /**< the operators table's NX rows (etprof/columns.h):
                                           segments, cascades, chains of nx, in its order (owned) */
    uint32_t nx_row_count;
    /** Method::execute of every execution of the method, skipped (warm-up)
     *  ones included: method_executions values in source ticks, 0 where
     *  absent (the figure's series holds the analysed ones). Owned. */
    uint64_t *method_execute_ticks;
    uint8_t *method_execute_present;
    /** Totals per operator type, by type name (strcmp; no type first): over
     *  the source operators when any of them is timed, else over the
     *  instructions (op_type_kind says which). Owned. */
    etp_entity_kind op_type_kind;
    uint32_t op_type_total_count;
    etp_op_type_total *op_type_totals;
    /** The instructions of each delegate backend, in the order of the
     *  delegate_time figures (owned), and the KernelCall instructions. */
    uint32_t backend_total_count;
    etp_backend_total *backend_totals;
    etp_backend_total native_total;
    /** The findings read from the results above (etprof/findings.h), with the
     *  thresholds of etp_analysis_options.findings. Owned. */
    etp_finding_list findings;
} etp_analysis;

/**
 * Analyse @p d with an optional program and ETRecord (at least one). Errors:
 * ETP_E_MISMATCH when the inputs disagree (naming the files and where),
 * ETP_E_USAGE for impossible requests. Release with etp_analysis_free().
 */
etp_status etp_analyze(const etp_etdump *d, const etp_program *p, const struct etp_etrecord *r,
                       const etp_analysis_options *opt, etp_analysis **out, etp_error *err);

/**
 * The part of etp_analyze() that needs only the ETDump: decoding and grouping
 * its events (with @p opt's units). Callers that load the program and the
 * ETRecord meanwhile pass the result to etp_analyze_prepared(). Release an
 * unused result with etp_inspect_free().
 */
etp_status etp_analyze_prepare(const etp_etdump *d, const etp_analysis_options *opt,
                               etp_inspect **out, etp_error *err);

/**
 * etp_analyze() from a grouping made by etp_analyze_prepare() with the same
 * units. @p in is consumed, on failure too (a successful analysis owns it).
 */
etp_status etp_analyze_prepared(const etp_etdump *d, etp_inspect *in, const etp_program *p,
                                const struct etp_etrecord *r, const etp_analysis_options *opt,
                                etp_analysis **out, etp_error *err);

/**
 * Release @p a and everything it owns, including the grouping it was built
 * from (etp_analysis.inspect); not its inputs. NULL is allowed.
 */
void etp_analysis_free(etp_analysis *a);

/** The index in @p a->executions of RunData @p run (a binary search over
 *  the ascending list), or UINT32_MAX when that run is not one of the
 *  analysis' executions. Pure; thread-safe. */
uint32_t etp_analysis_execution_of_run(const etp_analysis *a, uint32_t run);

/** Figure named @p name (as written in the outputs), or NULL; a lookup that
 * compares names: outputs select figures by id (etp_analysis_figure_by_id). */
const etp_figure *etp_analysis_figure(const etp_analysis *a, const char *name);

/**
 * The figure @p id of @p a, or NULL when the analysis did not compute it.
 * For ETP_FIG_DELEGATE_TIME (one figure per backend) the first; iterate over
 * a->figures for all of them. Pure lookup: safe from any thread while @p a
 * is not being freed.
 */
const etp_figure *etp_analysis_figure_by_id(const etp_analysis *a, etp_figure_id id);

/**
 * The name written for figure @p id ("method_execute", ...); for
 * ETP_FIG_DELEGATE_TIME the prefix "delegate_time:" without a backend.
 * A static string; NULL for an id out of range.
 */
const char *etp_figure_id_name(etp_figure_id id);

/**
 * The entities to show as "top operators": the timed source operators when
 * there are any, else the timed instructions; by a->rank_by (average by
 * default; p50 or max), descending (ties by id). Returns a malloc'd array of *@p count pointers into
 * a->entities (the caller frees the array, not the entities), NULL with
 * *@p count = 0 when out of memory.
 */
const etp_entity **etp_analysis_top(const etp_analysis *a, uint32_t *count);

const char *etp_entity_kind_name(etp_entity_kind k);
const char *etp_timing_source_name(etp_timing_source s);

#ifdef __cplusplus
}
#endif
#endif
