/* diff_numerics.c - `etprof diff --numerics` (diff_numerics.h): the
 * options, each side's debug buffer, the numeric diff of the two kept
 * analyses, and the --fail-if-snr-below gate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_numerics.h"
#include "cli/diff_numerics.h"

void cli_diff_numerics_init(cli_diff_numerics *n)
{
    memset(n, 0, sizeof *n);
    etp_numeric_diff_options_init(&n->opt);
}

static int parse_number(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return end == s || *end || isnan(*out);
}

int cli_diff_numerics_option(cli_diff_numerics *n, int c, const char *val)
{
    double d;
    long long v;
    switch (c) {
    case CLI_DIFF_NUMERICS: n->on = 1; return 0;
    case CLI_DIFF_BASE_DEBUG: n->buffer[0] = val; return 0;
    case CLI_DIFF_NEW_DEBUG: n->buffer[1] = val; return 0;
    case CLI_DIFF_RTOL:
    case CLI_DIFF_ATOL:
        if (cli_parse_tolerance("diff", c == CLI_DIFF_RTOL ? "rtol" : "atol", val, &d))
            return ETP_EXIT_USAGE;
        if (c == CLI_DIFF_RTOL)
            n->opt.tol.rtol = d;
        else
            n->opt.tol.atol = d;
        return 0;
    case CLI_DIFF_SNR_BELOW:
        if (parse_number(val, &d) || !isfinite(d))
            return cli_usage("diff", "--fail-if-snr-below needs a number of dB, got '%s'", val);
        n->has_snr_floor = 1;
        n->snr_floor = d;
        return 0;
    case CLI_DIFF_EXECUTION:
        if ((v = cli_parse_count(val)) < 0 || v > INT32_MAX)
            return cli_usage("diff", "--execution needs an execution index from 0, got '%s'", val);
        n->opt.execution = (int32_t)v;
        return 0;
    }
    return cli_usage("diff", "bad option");
}

int cli_diff_numerics_check(const cli_diff_numerics *n)
{
    if (!n->on && (n->buffer[0] || n->buffer[1] || n->has_snr_floor))
        return cli_usage("diff", "--base-debug-buffer, --new-debug-buffer and --fail-if-snr-below need --numerics");
    return 0;
}

/* NAME.debug.bin beside NAME.etdp (malloc'd) when it exists, else NULL. */
static char *companion_buffer(const char *etdump)
{
    size_t n = strlen(etdump);
    const char *dot = strrchr(etdump, '.');
    const char *slash = strrchr(etdump, '/');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - etdump) : n;
    char *p = malloc(stem + sizeof ".debug.bin");
    if (!p)
        return NULL;
    memcpy(p, etdump, stem);
    strcpy(p + stem, ".debug.bin");
    if (access(p, R_OK) == 0)
        return p;
    free(p);
    return NULL;
}

int cli_diff_numerics_side(cli_diff_numerics *n, int k, const char *etdump, int is_bundle, etp_analysis_options *o)
{
    const char *which = k ? "new" : "base";
    if (is_bundle)
        return cli_usage("diff", "%s is a bundle: --numerics needs the runs' ETDumps and debug buffers (give the "
                                 "%s run's .etdp with --%s-debug-buffer FILE)",
                         etdump, which, which);
    const char *path = n->buffer[k];
    if (!path && (n->guessed[k] = companion_buffer(etdump)))
        path = n->guessed[k];
    if (!path)
        return cli_usage("diff", "--numerics: no debug buffer for the %s run %s: give --%s-debug-buffer FILE (the "
                                 "runner's --debug_output_path)",
                         which, etdump, which);
    cli_debug_buffer dbg;
    int rc = cli_logs_debug_buffer(&n->logs[k], path, &dbg);
    if (rc)
        return rc;
    o->has_debug_buffer = 1;
    o->debug_buffer_size = dbg.size;
    o->debug_buffer_name = dbg.name;
    o->debug_buffer_data = dbg.data;
    return 0;
}

int cli_diff_numerics_build(cli_diff_numerics *n)
{
    etp_error err;
    etp_error_clear(&err);
    etp_status s = etp_numeric_diff_build(n->a[0], n->a[1], &n->opt, &n->nd, &err);
    return s ? cli_fail_status(s, &err) : 0;
}

int cli_diff_numerics_gate_failed(const cli_diff_numerics *n)
{
    return n->nd && n->has_snr_floor && etp_numeric_diff_min_snr(n->nd) < n->snr_floor;
}

void cli_diff_numerics_free(cli_diff_numerics *n)
{
    etp_numeric_diff_free(n->nd);
    for (int k = 0; k < 2; k++) {
        etp_analysis_free(n->a[k]);
        etp_inputs_free(n->in[k]);
        cli_logs_free(&n->logs[k]);
        free(n->guessed[k]);
    }
}
