/* cli_numerics.c - --testset, --rtol, --atol (cli_numerics.h). */
#include <math.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cli_numerics.h"

int cli_parse_tolerance(const char *cmd, const char *name, const char *val, double *out)
{
    char *end;
    double d = strtod(val, &end);
    if (end == val || *end || !isfinite(d) || d < 0)
        return cli_usage(cmd, "--%s needs a number from 0, got '%s'", name, val);
    *out = d;
    return 0;
}

int cli_numerics_option(const char *cmd, int c, const char *val, etp_analysis_options *opt)
{
    if (c == CLI_OPT_TESTSET) {
        long long v = cli_parse_count(val);
        if (v < 0 || v > INT32_MAX)
            return cli_usage(cmd, "--testset needs a test case index from 0, got '%s'", val);
        opt->testset = (int32_t)v;
        return 0;
    }
    double d;
    if (cli_parse_tolerance(cmd, c == CLI_OPT_RTOL ? "rtol" : "atol", val, &d))
        return ETP_EXIT_USAGE;
    if (!opt->tolerance_given) {
        opt->tolerance_given = 1;
        opt->rtol = 1e-5;
        opt->atol = 1e-8;
    }
    if (c == CLI_OPT_RTOL)
        opt->rtol = d;
    else
        opt->atol = d;
    return 0;
}
