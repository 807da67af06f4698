/*
 * etprof/trace.h - an ETDump as a Chrome Trace Event JSON timeline, loadable
 * in ui.perfetto.dev and chrome://tracing.
 *
 * Layout of the document ({"traceEvents": [...], "otherData": {...}}; no
 * "displayTimeUnit", which some Perfetto releases read as the unit of ts):
 *   - one process per method ("M" process_name metadata). The method of each
 *     block comes from etp_inspect_run() with the program (inferred, or
 *     forced with a method name); blocks whose method cannot be told go to a
 *     process named "(method not identified)". Structurally identical
 *     methods that the ETDump cannot tell apart share one process named
 *     "a | b".
 *   - one thread (track) per RunData block: "load_method N" for a "Default"
 *     block, "execute N" for an "Execute" block, N counting per method.
 *   - every ProfileEvent is one complete event ("X") with ts/dur in
 *     microseconds converted from the source unit, printed as exact
 *     decimals; with cycles as the source unit ts/dur are cycles (said in
 *     otherData and in each process's labels), never relabelled as time.
 *   - slices on one track are emitted sorted by start, longer first, and for
 *     equal ranges parent first (load_method/execute, then init, then
 *     OPERATOR_CALL/DELEGATE_CALL/..., then native_call_* and delegate
 *     events), so viewers nest Method::execute > OPERATOR_CALL >
 *     native_call_*. An event that overlaps its neighbour partially (which
 *     no correct runtime writes) is moved to an "overlap K" track of the same
 *     execution instead of breaking the nesting; past 32 such tracks it is
 *     dropped and counted.
 *   - delegate-internal events whose times are not on the host clock
 *     (start_time 0, or not inside their DELEGATE_CALL, or with nothing to
 *     check them against) go on a "delegate, duration only" track of their
 *     execution, laid end to end from their DELEGATE_CALL's start: only the
 *     durations are measured, the positions are not.
 *   - debug events (intermediate and program outputs) carry no time: they
 *     become thread-scoped instant events ("i") at the end of the
 *     instruction they belong to (program outputs at the end of
 *     Method::execute), or are skipped when no such slice exists or when
 *     debug_events is 0.
 *   - allocation events carry no time either: they are skipped and counted
 *     in otherData (no counter track is invented for them).
 *   - with a program, OPERATOR_CALL slices are named after the operator
 *     ("aten::convolution.out") and DELEGATE_CALL slices after the backend
 *     id; args always hold the logged event name, its kind (also the "cat":
 *     framework, instruction, kernel, delegate, other), the RunData index,
 *     chain and instruction ids, delegate ids and metadata, and the raw
 *     start/end ticks; debug handles when a resolver is given.
 *
 * Executions: an execution is a RunData block named "Execute" that holds
 * events, numbered from 1 in the ETDump's order (with one method, the N of
 * its "execute N" track). A selection (first_execution, last_execution)
 * writes only those executions; every other block (load_method, ...) is
 * always written, and tracks keep the names and numbers they have in the
 * whole trace. With a selection, otherData says which executions were
 * written ("executions_selected": "A-B") and how many the ETDump holds.
 *
 * The output is deterministic: the same inputs give byte-identical text.
 *
 * Thread safety: the writers keep no shared state and only read the dump
 * and program, so several traces may be written at once, except that on a
 * dump opened deferred (etdump.h) the first full pass marks it verified:
 * the writers run etp_inspect_run() on the dump, so the same rule applies
 * (the first pass over a deferred dump runs alone). The handle resolver is
 * called on the writing thread only.
 */
#ifndef ETPROF_TRACE_H
#define ETPROF_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "etprof/error.h"
#include "etprof/etdump.h"
#include "etprof/program.h"
#include "etprof/units.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where an instruction-level event happened, as given to a handle resolver. */
typedef struct etp_trace_site {
    const etp_plan *plan;        /**< the block's method, NULL when not identified */
    const char *event_name;      /**< ProfileEvent.name, NULL for delegate-internal events */
    int32_t chain_index;         /**< >= 0 (the resolver is not called for framework events) */
    int32_t instruction_id;
    int is_delegated;            /**< a delegate-internal event (it has a delegate id) */
    int32_t delegate_id_int;     /**< -1 when unset */
    const char *delegate_id_str; /**< NULL when unset (NUL-terminated) */
} etp_trace_site;

/**
 * Optional callback that maps an event to debug handles (e.g. from an
 * ETRecord's debug_handle_map / delegate_map). Set *handles to an array the
 * resolver owns, valid until its next call, and return how many it holds
 * (0: nothing known). The handles are written as args.debug_handles; at
 * most ETP_TRACE_MAX_HANDLES are written. The writer copies what it needs
 * before the next call; it never frees the array.
 */
typedef uint32_t (*etp_trace_handle_fn)(void *ctx, const etp_trace_site *site,
                                        const int64_t **handles);

/** Cap on debug handles written per event. */
#define ETP_TRACE_MAX_HANDLES 4096u

typedef struct etp_trace_options {
    etp_unit source_unit;   /**< unit of the ETDump ticks (default ns) */
    const etp_program *program;  /**< optional: names instructions, selects methods */
    const char *method;          /**< optional (needs program): method of every block */
    int debug_events;            /**< 1 (default): debug events as instants; 0: skip them */
    etp_trace_handle_fn resolve_handles; /**< optional */
    void *resolve_ctx;           /**< passed to resolve_handles */
    /** Executions to write (1-based, inclusive); 0 and 0 (default): all.
     *  first_execution 0 means from the first, last_execution 0 to the last;
     *  a range past the last execution is cut at it. */
    uint32_t first_execution, last_execution;
    /** Optional: called on the writing thread as the trace is written, with
     *  the fraction of the selected events written so far (0..1, rising;
     *  about every 65,536 events and after every block). Not called by
     *  etp_trace_estimate. */
    void (*progress)(void *ctx, double fraction);
    void *progress_ctx;          /**< passed to progress */
} etp_trace_options;

/** Defaults: ns ticks, no program, debug events as instants, every execution. */
void etp_trace_options_init(etp_trace_options *o);

/** What went into a trace (counts over the blocks written, except executions). */
typedef struct etp_trace_counts {
    uint32_t processes;          /**< methods (including "not identified") */
    uint32_t tracks;             /**< threads, including delegate and overlap tracks */
    uint64_t profile_events;     /**< ProfileEvents in the ETDump */
    uint64_t slices;             /**< "X" events written (host and duration-only) */
    uint64_t duration_only;      /**< of which on "delegate, duration only" tracks */
    uint64_t overlap_slices;     /**< of which moved to "overlap K" tracks */
    uint64_t dropped;            /**< ProfileEvents not written (unplaceable) */
    uint64_t wrapped;            /**< intervals computed across a 32-bit wraparound */
    uint64_t instants;           /**< debug events written as "i" events */
    uint64_t debug_skipped;      /**< debug events not written */
    uint64_t allocations_skipped;/**< allocation events (never written) */
    uint64_t empty_events;       /**< events with no member set */
    uint32_t runs_without_events;/**< RunData blocks with no events vector */
    uint32_t executions;         /**< executions in the ETDump (selected or not) */
    uint32_t executions_written; /**< of which written */
} etp_trace_counts;

/**
 * Write the trace of @p d to @p fp. The ETDump is checked against the
 * program exactly as etp_inspect_run() does (method inference, instruction
 * existence and kinds): a mismatch is ETP_E_MISMATCH, an unknown method
 * ETP_E_USAGE, an interval that ends before it starts (beyond a 32-bit
 * wrap) ETP_E_FORMAT; a selection that ends before it starts is
 * ETP_E_USAGE, one that starts past the last execution ETP_E_MISMATCH (the
 * message says how many there are); nothing is written then. A write failure is ETP_E_IO.
 * @p counts (may be NULL) receives what was written. @p input_name, when not
 * NULL, is recorded in otherData (pass a base name to keep the output
 * independent of the directory). @p opt may be NULL (defaults). What was
 * written before a write failure stays written.
 */
etp_status etp_trace_write(const etp_etdump *d, const etp_trace_options *opt,
                           const char *input_name, FILE *fp, etp_trace_counts *counts,
                           etp_error *err);

/**
 * The size in bytes etp_trace_write would write with @p opt (its selection
 * included), estimated without writing it: the blocks other than executions
 * and, per method, the first and last selected execution are formatted and
 * counted in full; the other executions are priced at those two's bytes per
 * event (executions of one method hold the same events, so the estimate is
 * close: within a few percent on generated and real runs). Costs about two
 * executions' worth of writing. @p counts (may be NULL) receives the counts
 * of the formatted blocks; its executions field holds the ETDump's number
 * of executions. Fails as etp_trace_write does (nothing is written).
 */
etp_status etp_trace_estimate(const etp_etdump *d, const etp_trace_options *opt,
                              uint64_t *bytes, etp_trace_counts *counts, etp_error *err);

/**
 * As etp_trace_write, into memory: on success *out is a NUL-terminated
 * malloc'd document of *len bytes that the caller releases with free(); on
 * failure *out is NULL.
 */
etp_status etp_trace_to_string(const etp_etdump *d, const etp_trace_options *opt,
                               const char *input_name, char **out, size_t *len,
                               etp_trace_counts *counts, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
