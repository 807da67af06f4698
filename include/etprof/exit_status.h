/*
 * etprof/exit_status.h - the exit statuses of the etprof command, and what
 * each means.
 *
 * Every command exits with one of these, and the library's decisions that
 * end a command say which (a failed CI gate, etp_diff_gate_decide(); a failed
 * call, etp_exit_status_of()), so a program that runs etprof, or that calls
 * the library in its place (the Python package), reads one set of numbers.
 *
 * Thread safety: pure; callable from any thread. The texts are static.
 */
#ifndef ETPROF_EXIT_STATUS_H
#define ETPROF_EXIT_STATUS_H

#include "etprof/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etp_exit_status {
    ETP_EXIT_OK = 0,    /**< success (and every gate asked for passed) */
    ETP_EXIT_INPUT = 1, /**< bad or inconsistent input, or a failed analysis */
    ETP_EXIT_USAGE = 2, /**< the command line asked for something impossible */
    ETP_EXIT_GATE = 3   /**< a CI gate failed (analyze --fail-on, diff --fail-if-slower);
                             the outputs are written all the same */
} etp_exit_status;

/** What exit status @p status means, in a few words ("success", "bad or
 *  inconsistent input", "usage error", "a CI gate failed"); NULL for a
 *  number that is not an etprof exit status. */
const char *etp_exit_status_meaning(int status);

/** The exit status of a command whose library call returned @p s:
 *  ETP_EXIT_OK for ETP_OK, ETP_EXIT_USAGE for ETP_E_USAGE, ETP_EXIT_INPUT
 *  for every other failure. */
etp_exit_status etp_exit_status_of(etp_status s);

#ifdef __cplusplus
}
#endif
#endif
