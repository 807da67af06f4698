/*
 * etprof/inputs.h - open a run's inputs together: the ETDump, the program,
 * the ETRecord and the runner's log.
 *
 * The four files are independent, so they load at once: the program and the
 * runner log on one helper thread, the ETRecord on another, while the calling
 * thread opens the ETDump (its events' tables are checked as they are decoded,
 * one pass over the file instead of two) and, when asked, decodes and groups
 * its events for etp_analyze_prepared(). With a short ETDump the ETRecord's
 * JSON is the longest of them, so it does not wait for the program.
 *
 * Failures are reported in input order, whatever finished first: the ETDump,
 * then the program, the ETRecord, the runner log, then what grouping the
 * events found. A defect in events not decoded yet still counts as the
 * ETDump's. The error is the one the failing reader gave (it names its file).
 *
 * Typical use:
 *
 *     etp_inputs_spec spec = {.etdump = "run.etdp", .pte = "model.pte",
 *                             .prepare = &analysis_options};
 *     etp_inputs *in;
 *     if ((s = etp_inputs_open(&spec, &in, &err))) return fail(s, &err);
 *     s = etp_analyze_prepared(etp_inputs_etdump(in), etp_inputs_take_prepared(in),
 *                              etp_inputs_program(in), etp_inputs_etrecord(in), ...);
 *     ...
 *     etp_analysis_free(a);
 *     etp_inputs_free(in);   // after everything that points into the inputs
 */
#ifndef ETPROF_INPUTS_H
#define ETPROF_INPUTS_H

#include "etprof/analysis.h"
#include "etprof/error.h"
#include "etprof/etdump.h"
#include "etprof/etrecord.h"
#include "etprof/inspect.h"
#include "etprof/program.h"
#include "etprof/runner_log.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which inputs to open, and how. Paths are only read during the call. */
typedef struct etp_inputs_spec {
    const char *etdump;   /**< required */
    const char *pte;      /**< the program (.pte or .bpte), or NULL */
    const char *etrecord; /**< or NULL */
    const char *log;      /**< the runner's output, or NULL */
    /** Non-NULL: decode and group the ETDump's events with these options'
     *  units (etp_analyze_prepare()) while the other inputs load; the result
     *  is taken with etp_inputs_take_prepared(). */
    const etp_analysis_options *prepare;
    /** 1: verify the whole ETDump before returning, as etp_etdump_open()
     *  does, for callers that read its events other than through
     *  etp_inspect_run(). 0: a deferred open (etp_etdump_open_deferred());
     *  @p prepare, or the caller's own first etp_inspect_run(), checks the
     *  events' tables as it decodes them. */
    int verify_etdump;
    /** What @c log is called in messages and records
     *  (etp_runner_log_open_as()); NULL: its path. */
    const char *log_name;
} etp_inputs_spec;

/** The opened inputs. Opaque; owns every input it holds. */
typedef struct etp_inputs etp_inputs;

/**
 * Open the inputs @p spec names (see the top of this file for the threads
 * and the order of errors).
 *
 * Thread safety: the call starts up to two threads and joins them before it
 * returns. It shares no state with other calls, so several may run at once
 * on different threads; other threads may use jansson meanwhile (the
 * ETRecord reader's arena serves only its own thread: etprof/etrecord.h).
 *
 * @param out  receives the inputs on ETP_OK (NULL otherwise); release with
 *             etp_inputs_free()
 * @param err  filled on failure, naming the file at fault
 * @return ETP_OK, or the failing reader's status (ETP_E_IO, ETP_E_FORMAT,
 *         ETP_E_NOMEM, ...); from the grouping also ETP_E_MISMATCH or
 *         ETP_E_USAGE; ETP_E_USAGE when @p spec has no ETDump.
 */
etp_status etp_inputs_open(const etp_inputs_spec *spec, etp_inputs **out, etp_error *err);

/** The ETDump (never NULL). Owned by @p in. After a deferred open, its
 *  events may be read only once etp_inspect_run() (or the preparation) has
 *  succeeded on it. */
const etp_etdump *etp_inputs_etdump(const etp_inputs *in);
/** The program, or NULL when none was asked for. Owned by @p in. */
const etp_program *etp_inputs_program(const etp_inputs *in);
/** The ETRecord, or NULL when none was asked for. Owned by @p in. */
const etp_etrecord *etp_inputs_etrecord(const etp_inputs *in);
/** The runner log, or NULL when none was asked for. Owned by @p in. */
const etp_runner_log *etp_inputs_runner_log(const etp_inputs *in);

/**
 * Hand over the events grouped for etp_analyze_prepared() (which consumes
 * it): the caller owns the result, and a second call returns NULL. NULL when
 * @p spec.prepare was NULL. Whatever is not taken is freed by
 * etp_inputs_free().
 */
etp_inspect *etp_inputs_take_prepared(etp_inputs *in);

/**
 * Release the inputs and whatever of them was not taken. Anything built on
 * them (an analysis, an inspect table) must be released first. Safe on NULL.
 * Not thread safe: no other thread may use @p in meanwhile.
 */
void etp_inputs_free(etp_inputs *in);

#ifdef __cplusplus
}
#endif
#endif
