/*
 * etprof/inspect.h - the Inspector's profiling table, done right.
 *
 * Runs (RunData blocks) whose events carry the same set of event signatures
 * (name, chain, instruction, delegate id) form one block, exactly as the
 * Python Inspector groups them, but:
 *   - every sample is kept: an event that repeats at one instruction within
 *     one run contributes all of its occurrences (the Inspector keeps only
 *     the last one);
 *   - allocation and empty events are counted, not fatal;
 *   - 32-bit tick wraparound is computed exactly (2^32 - start + end);
 *   - with a program, each instruction is named from the .pte and the method
 *     is inferred per block (or given), inconsistencies are errors.
 *
 * An etp_inspect owns everything it points to (blocks, rows, samples, run
 * lists) except the ETDump and program it was built from, which must
 * outlive it; strings in rows point into those. Its storage is allocated
 * behind the public struct (inspect.c), so only etp_inspect_run() makes one
 * that etp_inspect_free() can release.
 *
 * Thread safety: etp_inspect_run() may run on several threads at once, on
 * one dump or several, once the dump is verified (etp_etdump_verified());
 * on a dump opened deferred the first call must run alone (it marks the
 * dump verified, see etdump.h). It starts helper threads of its own
 * (opt->threads) and joins them before returning. A finished etp_inspect
 * is immutable and may be read by any number of threads; etp_inspect_free()
 * must not run beside any other use of it.
 */
#ifndef ETPROF_INSPECT_H
#define ETPROF_INSPECT_H

#include "etprof/error.h"
#include "etprof/etdump.h"
#include "etprof/program.h"
#include "etprof/stats.h"
#include "etprof/units.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etp_inspect_options {
    etp_unit source_unit;  /**< unit of the ETDump ticks (default ns) */
    etp_unit target_unit;  /**< unit of reported statistics (default ms) */
    double cpu_hz;              /**< > 0: convert cycles to time at this rate */
    const etp_program *program; /**< optional: names instructions, selects methods */
    const char *method;         /**< optional: method for every Execute block */
    int lenient_methods;        /**< ambiguous blocks keep every candidate (plan NULL)
                                     instead of failing */
    int skip_row_stats;         /**< leave each row's `stats` zeroed (callers that only need
                                     the samples, such as the analysis, save the work) */
    int threads;                /**< decoding threads: 0 automatic (two for large dumps),
                                     1 one, 2 two whenever there are two blocks; the
                                     result is the same either way */
} etp_inspect_options;

/** Defaults: ns -> ms, no program, automatic threads. */
void etp_inspect_options_init(etp_inspect_options *o);

/** One event signature within a block, with all its samples. */
typedef struct etp_inspect_row {
    const char *name;           /**< event name; for delegate events the delegate id text */
    const char *event_name;     /**< ProfileEvent.name as logged (NULL for delegate events) */
    int32_t chain_index;        /**< -1 for framework events */
    int32_t instruction_id;
    int32_t delegate_id_int;    /**< -1 when unset */
    const char *delegate_id_str;
    int is_delegated;           /**< a delegate-internal event (it has a delegate id) */
    int is_framework;           /**< chain_index == -1 */
    int64_t first_offset;       /**< file offset of its first occurrence (Event table) */
    /* From the program, when the block's method is known and this is an instruction event. */
    int has_instruction;
    etp_instr_kind instr_kind;
    const char *op_name;        /**< "aten::add.out", or the delegate's backend id */
    /* Samples, in run order; per_run[r] occurrences belong to the block's run r. */
    uint64_t sample_count;
    uint64_t *ticks;            /**< duration of every occurrence, in source ticks */
    const uint32_t *per_run;    /**< occurrences per run (run_count entries; may be shared) */
    uint32_t max_per_run;       /**< 1 for events that occur once per run */
    etp_stats stats;            /**< over every occurrence, in the target unit */
} etp_inspect_row;

/** Per-execution totals of a block (each a stat over the block's runs). */
typedef struct etp_block_summary {
    int has_execute;            /**< every run has exactly one Method::execute */
    etp_stats execute;          /**< Method::execute per execution */
    etp_stats operator_calls;   /**< sum of OPERATOR_CALL per execution */
    etp_stats delegate_calls;   /**< sum of DELEGATE_CALL per execution */
    etp_stats other_calls;      /**< sum of JF_CALL / MOVE_CALL / FREE_CALL per execution */
    etp_stats native_kernels;   /**< sum of native_call_* per execution */
    etp_stats dispatch;         /**< OPERATOR_CALL minus its native_call, summed per execution,
                                     over instructions that have both */
    etp_stats execute_overhead; /**< execute minus all instruction events, per execution */
    uint32_t operator_calls_without_kernel; /**< OPERATOR_CALL rows with no native_call row */
    uint32_t instructions_observed;         /**< distinct (chain, instruction) with events */
} etp_block_summary;

typedef struct etp_inspect_block {
    const char *name;           /**< RunData name ("Default", "Execute") */
    int32_t bundled_input_index;
    uint32_t run_count;         /**< executions in this block */
    uint32_t *runs;             /**< RunData indices */
    /* Method (program given and the block has instruction events or --method). */
    const etp_plan *plan;       /**< NULL when unknown */
    uint32_t candidate_count;   /**< > 1 with a plan: structurally identical methods, which the
                                     ETDump cannot tell apart; > 1 without a plan (lenient
                                     mode only): different methods that all fit */
    const etp_plan **candidates;
    uint32_t row_count;
    etp_inspect_row *rows;      /**< in first-occurrence order */
    etp_block_summary summary;
    uint64_t debug_events;      /**< over all runs */
    uint64_t program_outputs;
    uint64_t allocation_events;
    uint64_t allocation_bytes;
    uint64_t empty_events;      /**< events with no member set */
    uint64_t wrapped_intervals; /**< durations computed across a 32-bit wraparound */
    uint64_t metadata_events;   /**< profile events carrying delegate debug metadata */
} etp_inspect_block;

typedef struct etp_inspect {
    etp_unit source_unit, target_unit;
    double divisor;             /**< ticks / divisor = target unit */
    double cpu_hz;
    uint32_t block_count;
    etp_inspect_block *blocks;
    uint32_t runs_without_events; /**< RunData with a null events vector (skipped) */
} etp_inspect;

/**
 * Group the ETDump's runs into blocks and compute statistics. With a program,
 * infer each block's method (or use opt->method) and check the ETDump against
 * it: an event at an instruction that does not exist, a native_call name that
 * disagrees with the instruction's operator, or an event kind that does not
 * fit the instruction kind is an ETP_E_MISMATCH error naming both files.
 * @p opt may be NULL (defaults). On success *out is a new result the caller
 * owns: release it with etp_inspect_free(); on failure *out is NULL.
 */
etp_status etp_inspect_run(const etp_etdump *d, const etp_inspect_options *opt, etp_inspect **out,
                           etp_error *err);

/** Release the result: its blocks, rows, samples and run lists (not the
 *  ETDump or program). Safe on NULL. */
void etp_inspect_free(etp_inspect *in);

/** Duration of an event in ticks into *@p ticks, handling 32-bit
 * wraparound. Not a failure status but a classification: 0 for an ordinary
 * interval, 1 when a 32-bit counter wrapped (still a valid duration), -1
 * when the interval is invalid (it ends before it starts beyond a wrap;
 * *@p ticks is then unspecified). Pure; safe from any thread. */
int etp_event_duration(uint64_t start, uint64_t end, uint64_t *ticks);

#ifdef __cplusplus
}
#endif
#endif
