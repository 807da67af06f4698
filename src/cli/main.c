/* main.c - `etprof <command> ...`: dispatch to one file per subcommand. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "etprof/units.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
    int heavy; /* builds large tables from its inputs: worth huge pages */
} commands[] = {
    {"dump", cmd_dump, "decode an ETDump, .pte or .bpte (outline, or --json like flatc)", 1},
    {"inspect", cmd_inspect, "per-event timing table of an ETDump (the Inspector, done right)", 1},
    {"analyze", cmd_analyze, "attribute measured time to instructions and source operators", 1},
    {"verify", cmd_verify, "check a result bundle's manifest, sizes and SHA-256 digests", 0},
    {"graph", cmd_graph, "write a program's Model Explorer graph", 1},
    {"trace", cmd_trace, "write a Chrome/Perfetto trace of an ETDump", 1},
    {"diff", cmd_diff, "compare two runs (bundles or ETDumps); gate CI on a regression", 1},
    {"gen", cmd_gen, "generate synthetic inputs (large ETDumps, a demo triple)", 0},
    {"run", cmd_run, "run an ExecuTorch runner, measure it, then analyse and publish", 1},
    {"tensors", cmd_tensors, "the tensors a run logged: values, statistics, bundled-output check", 1},
    {"view", cmd_view, "make a light bundle's graph and page later (its inputs checked by SHA-256)", 1},
    {"extract", cmd_extract, "decode the ETDump a device console log carries as base64", 0},
    {"db", cmd_db, "the run history: ingest bundles, list runs, migrate, gc (SQLite, PostgreSQL)", 0},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: etprof <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(fp, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(fp, "\n`etprof help <command>` (or `etprof <command> --help`) describes a command.\n"
                "Input files go in any order: each is recognised by its bytes.\n"
                "Exit status: %d %s, %d %s, %d %s,\n%d %s (analyze --fail-on, diff --fail-if-slower).\n",
            ETP_EXIT_OK, etp_exit_status_meaning(ETP_EXIT_OK), ETP_EXIT_INPUT,
            etp_exit_status_meaning(ETP_EXIT_INPUT), ETP_EXIT_USAGE, etp_exit_status_meaning(ETP_EXIT_USAGE),
            ETP_EXIT_GATE, etp_exit_status_meaning(ETP_EXIT_GATE));
}

int cli_fail(const etp_error *err)
{
    char buf[1200];
    cli_progress_done();
    fprintf(stderr, "etprof: %s\n", etp_error_format(err, buf, sizeof buf));
    return ETP_EXIT_INPUT;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fputs("etprof: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (cmd)
        fprintf(stderr, " (see `etprof %s --help`)\n", cmd);
    else
        fputc('\n', stderr);
    return ETP_EXIT_USAGE;
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    cli_progress_done();
    fputs("etprof: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return ETP_EXIT_INPUT;
}

int cli_bad_option(const char *cmd, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (optopt && strncmp(arg, "--", 2))
        return cli_usage(cmd, "unknown option or missing value: -%c", optopt);
    return cli_usage(cmd, "unknown option or missing value: %s", arg);
}

int cli_units_option(const char *cmd, cli_units *u, const char *opt, const char *val)
{
    etp_unit t;
    if (!strcmp(opt, "cpu-hz")) {
        char *end;
        u->cpu_hz = strtod(val, &end);
        if (*end || !(u->cpu_hz > 0))
            return cli_usage(cmd, "--cpu-hz needs a positive number, got '%s'", val);
        return 0;
    }
    if (etp_unit_parse(val, &t))
        return cli_usage(cmd, "unknown unit '%s' for --%s (ns, us, ms, s or cycles)", val, opt);
    if (!strcmp(opt, "source-unit")) {
        u->source = (int)t;
        u->source_given = 1;
    } else
        u->target = (int)t;
    return 0;
}

int cli_units_check(const char *cmd, const cli_units *u)
{
    etp_error err;
    etp_error_clear(&err);
    if (etp_units_check((etp_unit)u->source, (etp_unit)u->target, u->cpu_hz, &err))
        return cli_usage(cmd, "%s", err.message);
    return 0;
}

long long cli_parse_count(const char *s)
{
    if (!s || !*s)
        return -1;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end || v < 0)
        return -1;
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return ETP_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    opterr = 0; /* commands print one line of their own (cli_bad_option) */
    if (!strcmp(cmd, "help") && argc > 2) {
        /* `etprof help CMD` is `etprof CMD --help`. */
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(argv[2], commands[i].name)) {
                char *hargv[] = {argv[2], "--help", NULL};
                return commands[i].fn(2, hargv);
            }
        return cli_usage(NULL, "unknown command '%s' (see `etprof --help`)", argv[2]);
    }
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return ETP_EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("etprof %s\n", ETP_VERSION);
        return ETP_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name)) {
            if (commands[i].heavy)
                cli_tune_malloc(argv + 2);
            return commands[i].fn(argc - 1, argv + 1);
        }
    return cli_usage(NULL, "unknown command '%s' (see `etprof --help`)", cmd);
}
