/* cli_numerics.h - the options every command that reads logged tensors
 * shares: --testset N, --rtol X, --atol X. */
#ifndef ETP_CLI_NUMERICS_H
#define ETP_CLI_NUMERICS_H

#include "etprof/analysis.h"

/* getopt codes of the three options (above every command's own). */
enum { CLI_OPT_TESTSET = 1201, CLI_OPT_RTOL = 1202, CLI_OPT_ATOL = 1203 };

#define CLI_NUMERICS_LONG_OPTIONS                                                                  \
    {"testset", required_argument, NULL, CLI_OPT_TESTSET}, {"rtol", required_argument, NULL, CLI_OPT_RTOL}, \
        {"atol", required_argument, NULL, CLI_OPT_ATOL}

/* The help lines of the three options. */
#define CLI_NUMERICS_HELP                                                                          \
    "  --testset N        the bundled program's test case that ran, when neither the\n"             \
    "                     ETDump (bundled_input_index) nor the runner's log names it\n"            \
    "  --rtol X, --atol X tolerance of the bundled-program check (ExecuTorch's: rtol\n"            \
    "                     1e-5, atol 1e-8; |got - expected| <= atol + rtol * |expected|)\n"

/* A tolerance value (--rtol, --atol: a finite number from 0) of option
 * @p name into *@p out; 0, or ETP_EXIT_USAGE after printing why. */
int cli_parse_tolerance(const char *cmd, const char *name, const char *val, double *out);

/* Handle option @p c (one of the codes above) into @p opt; 0, or
 * ETP_EXIT_USAGE after printing why. */
int cli_numerics_option(const char *cmd, int c, const char *val, etp_analysis_options *opt);

#endif
