/* diff_numerics.h - `etprof diff --numerics`: the options, the two runs'
 * analyses kept with their debug buffers, and the numerics written out
 * (diff_numerics.c). */
#ifndef ETP_CLI_DIFF_NUMERICS_H
#define ETP_CLI_DIFF_NUMERICS_H

#include <getopt.h>
#include <stdio.h>

#include "cli/cli_logs.h"
#include "etprof/analysis.h"
#include "etprof/inputs.h"
#include "etprof/numeric_diff.h"

/* getopt codes (above diff's own). */
enum { CLI_DIFF_NUMERICS = 1301, CLI_DIFF_BASE_DEBUG, CLI_DIFF_NEW_DEBUG, CLI_DIFF_RTOL, CLI_DIFF_ATOL,
       CLI_DIFF_SNR_BELOW, CLI_DIFF_EXECUTION };

#define CLI_DIFF_NUMERICS_LONG_OPTIONS                                                              \
    {"numerics", no_argument, NULL, CLI_DIFF_NUMERICS},                                             \
        {"base-debug-buffer", required_argument, NULL, CLI_DIFF_BASE_DEBUG},                        \
        {"new-debug-buffer", required_argument, NULL, CLI_DIFF_NEW_DEBUG},                          \
        {"rtol", required_argument, NULL, CLI_DIFF_RTOL}, {"atol", required_argument, NULL, CLI_DIFF_ATOL}, \
        {"fail-if-snr-below", required_argument, NULL, CLI_DIFF_SNR_BELOW},                         \
        {"execution", required_argument, NULL, CLI_DIFF_EXECUTION}

#define CLI_DIFF_NUMERICS_HELP                                                                      \
    "  --numerics           also compare the values both runs logged (ETDump sides with\n"           \
    "                       their debug buffers): pairs by key, debug handle or source\n"          \
    "                       operator, MSE, MAE, max abs error, SNR dB, cosine, and the\n"          \
    "                       first divergence in the base run's order\n"                            \
    "  --base-debug-buffer F, --new-debug-buffer F  each run's debug buffer (default\n"            \
    "                       NAME.debug.bin beside the ETDump NAME.etdp)\n"                         \
    "  --rtol X, --atol X   the divergence tolerance (default rtol 1e-5, atol 1e-8;\n"             \
    "                       |new - base| <= atol + rtol * |base|)\n"                               \
    "  --execution N        the execution compared on both sides (default 0)\n"                   \
    "  --fail-if-snr-below DB  exit 3 when a compared pair's SNR is below DB dB\n"

/* What the numerics need, per side and overall. */
typedef struct cli_diff_numerics {
    int on;
    const char *buffer[2];        /* --base-debug-buffer / --new-debug-buffer, or NULL */
    char *guessed[2];             /* NAME.debug.bin found beside an ETDump (owned) */
    etp_numeric_diff_options opt;
    int has_snr_floor;
    double snr_floor;
    cli_logs logs[2];             /* own the debug buffers' bytes */
    etp_analysis *a[2];           /* kept for the numerics (owned) */
    etp_inputs *in[2];
    etp_numeric_diff *nd;
} cli_diff_numerics;

void cli_diff_numerics_init(cli_diff_numerics *n);
/* Option @p c (a CLI_DIFF_* code): 0, or ETP_EXIT_USAGE after saying why. */
int cli_diff_numerics_option(cli_diff_numerics *n, int c, const char *val);
/* Options given without --numerics: ETP_EXIT_USAGE after saying why. */
int cli_diff_numerics_check(const cli_diff_numerics *n);
/* Side @p k (0 base, 1 new) at ETDump @p etdump: read its debug buffer into
 * @p o's debug_buffer_* members. A bundle side (@p is_bundle): usage error.
 * 0 or the exit status after printing why. */
int cli_diff_numerics_side(cli_diff_numerics *n, int k, const char *etdump, int is_bundle, etp_analysis_options *o);
/* Both analyses kept: pair and compare. 0 or the exit status. */
int cli_diff_numerics_build(cli_diff_numerics *n);
/* 1 when --fail-if-snr-below fails. */
int cli_diff_numerics_gate_failed(const cli_diff_numerics *n);
void cli_diff_numerics_free(cli_diff_numerics *n);

#endif
