/*
 * etprof/runner_log.h - what ExecuTorch's example runners printed about a run.
 *
 * executor_runner and example_runner log the method they ran, the load time,
 * each iteration's wall time, the planned memory buffers and where the ETDump
 * went. These are the device's own numbers: they sit next to the ETDump's
 * timings (never mixed into them) and can settle which method ran.
 *
 * Ownership: an etp_runner_log owns its strings and arrays (path, method,
 * iteration_ms, buffer_bytes, etdump_name, model_file); etp_runner_log_free() releases
 * them with it. Thread safety: a parsed log is immutable and may be read by
 * any number of threads; parsing is independent per call;
 * etp_runner_log_free() must not run beside any other use of the log.
 */
#ifndef ETPROF_RUNNER_LOG_H
#define ETPROF_RUNNER_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etp_runner_log {
    char *path;
    char *method;                /**< "Using method X" / "Running method X", or NULL */
    int has_load_ms;
    double load_ms;              /**< "Model loaded in X ms." */
    uint32_t iteration_count;
    double *iteration_ms;        /**< "Iteration i of N: X ms", in order */
    uint32_t iterations_declared;/**< N of "Iteration i of N" (0 when absent) */
    int has_total;
    uint32_t total_runs;         /**< "Model executed successfully N time(s) in X ms." */
    double total_ms;
    uint32_t buffer_count;
    uint64_t *buffer_bytes;      /**< "Setting up [CPU ]planned buffer i, size N." by index */
    uint64_t planned_bytes;      /**< sum of the planned buffers */
    char *etdump_name;           /**< "ETDump written to file 'F'." */
    uint32_t lines;
    char *model_file;            /**< "Model file F is loaded." (the path as logged), or NULL */
    uint32_t recognised_lines;   /**< lines in a runner's format (ET_LOG prefix, a known
                                      message or a printed output); 0 makes the file
                                      "not a runner log" */
    /* What the runner printed of the method's outputs. A runner built with
     * logging compiled out (ExecuTorch's Release default) prints these
     * and nothing else. */
    int has_outputs_declared;
    uint32_t outputs_declared;   /**< "N outputs:" */
    uint32_t output_count;       /**< outputs printed: "OutputX i: ..." lines, and the
                                      distinct i of "Output[i][j]: ..." lines */
    uint32_t output_text_count;
    char **output_text;          /**< the first ETP_RUNNER_OUTPUTS_KEPT output lines as
                                      printed (without the line end), each cut at
                                      ETP_RUNNER_OUTPUT_TEXT_MAX bytes */
    uint32_t bundleio_pass;      /**< "TEST: BundleIO index[i] Test_result: PASS" lines */
    uint32_t bundleio_fail;      /**< ... FAIL */
    int verified;                /**< example_runner's "Model verified successfully." */
    int32_t testset_idx;         /**< the bundled test case the runner ran: --testset_idx of a
                                      "$ COMMAND" line heading the log (how etprof's fixtures and
                                      many CI scripts record the command), -1 when not known */
    int example_runner;          /**< lines of example_runner.cpp (its --testset_idx defaults to 0) */
} etp_runner_log;

/** At most this many printed output lines are kept (output_text). */
#define ETP_RUNNER_OUTPUTS_KEPT 16
/** A kept output line is cut at this many bytes. */
#define ETP_RUNNER_OUTPUT_TEXT_MAX 240

/**
 * Whether the log says anything about the run itself (model file, method,
 * load, iteration or total time, planned buffers, the ETDump written), as
 * opposed to only the outputs a no-log build prints. 0 or 1.
 */
int etp_runner_log_has_run_lines(const etp_runner_log *l);

/**
 * Read a runner log (text, at most 64 MiB, lines capped at 64 KiB). Lines it
 * does not recognise are ignored; recognised lines with bad numbers are an
 * error naming the line; a file that cannot be read is ETP_E_IO; a file in
 * which no line is a runner's (empty, another kind of text, random bytes) is
 * ETP_E_FORMAT "not a runner log". A path of "-" reads standard input. On success
 * *out is a new log the caller owns: release it with etp_runner_log_free();
 * on failure *out is NULL.
 */
etp_status etp_runner_log_open(const char *path, etp_runner_log **out, etp_error *err);

/**
 * As etp_runner_log_open(), but the log is called @p name (not @p path) in
 * errors and in l->path: `etprof run` reads its capture from a temporary
 * file that the bundle carries as "logs/runner.log". @p name NULL: @p path.
 */
etp_status etp_runner_log_open_as(const char *path, const char *name, etp_runner_log **out,
                                  etp_error *err);

/** Parse @p size bytes of log text named @p name (tests, fuzzing); @p text
 *  is only read during the call. Ownership of *out as etp_runner_log_open(). */
etp_status etp_runner_log_parse(const char *text, size_t size, const char *name,
                                etp_runner_log **out, etp_error *err);

/** Release a log and everything it points to. Safe on NULL. */
void etp_runner_log_free(etp_runner_log *l);

#ifdef __cplusplus
}
#endif
#endif
