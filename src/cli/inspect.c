/* inspect.c - `etprof inspect ETDUMP [--pte PROGRAM] ...`: the per-event
 * timing table, grouped like the Python Inspector but keeping every sample. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "etprof/inputs.h"
#include "etprof/inspect.h"
#include "outputs/report/inspect_report.h"

static void help(void)
{
    printf("usage: etprof inspect ETDUMP [PROGRAM] [--method NAME]\n"
           "                      [--source-unit ns|us|ms|s|cycles] [--unit ms|us|ns|s|cycles]\n"
           "                      [--cpu-hz HZ] [--json [--raw]]\n\n"
           "Per-event timing table of an ETDump: runs with the same event signature form one\n"
           "block; per event: samples, avg, p10, p50, p90 (numpy-linear), min, max.\n\n"
           "Files go in any order, recognised by their bytes (or --etdump, --pte).\n\n"
           "  --pte PROGRAM      name instructions from the program (.pte or .bpte); the\n"
           "                     method of each block is inferred from its events\n"
           "  --method NAME      use this method for every block with instruction events\n"
           "  --source-unit U    unit of the ETDump's ticks (default ns; the file does not say)\n"
           "  --unit U           unit of reported times (default ms); cycles only with cycles\n"
           "  --cpu-hz HZ        convert cycle ticks to time at HZ cycles per second\n"
           "  --json             one JSON document (schema etprof.inspect v1) on stdout\n"
           "  --raw              with --json: every sample of every event\n");
}

int cmd_inspect(int argc, char **argv)
{
    static const struct option opts[] = {
        {"pte", required_argument, NULL, 'p'},       {"method", required_argument, NULL, 'm'},
        {"source-unit", required_argument, NULL, 's'}, {"unit", required_argument, NULL, 'u'},
        {"cpu-hz", required_argument, NULL, 'c'},    {"json", no_argument, NULL, 'j'},
        {"raw", no_argument, NULL, 'r'},             {"help", no_argument, NULL, 'h'},
        {"etdump", required_argument, NULL, 'e'},
        {NULL, 0, NULL, 0},
    };
    etp_inspect_options opt;
    etp_inspect_options_init(&opt);
    cli_units units = {(int)opt.source_unit, (int)opt.target_unit, 0, 0};
    const char *pte = NULL, *etdump = NULL;
    int json = 0, raw = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pte = optarg; break;
        case 'e': etdump = optarg; break;
        case 'm': opt.method = optarg; break;
        case 's':
        case 'u':
        case 'c':
            if (cli_units_option("inspect", &units, c == 's' ? "source-unit" : c == 'u' ? "unit" : "cpu-hz",
                                 optarg))
                return ETP_EXIT_USAGE;
            break;
        case 'j': json = 1; break;
        case 'r': raw = 1; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("inspect", argv);
        }
    }
    /* Inputs in any order, sorted by their bytes (cli_inputs.c). */
    cli_inputs ins;
    memset(&ins, 0, sizeof ins);
    int bad_in = etdump ? cli_inputs_set("inspect", &ins, CLI_IN_ETDUMP, etdump) : ETP_EXIT_OK;
    if (!bad_in && pte)
        bad_in = cli_inputs_set("inspect", &ins, CLI_IN_PTE, pte);
    if (!bad_in)
        bad_in = cli_inputs_check(&ins);
    for (; !bad_in && optind < argc; optind++)
        bad_in = cli_inputs_add("inspect", &ins, argv[optind],
                                CLI_ACCEPT(CLI_IN_ETDUMP) | CLI_ACCEPT(CLI_IN_PTE));
    if (bad_in)
        return bad_in;
    etdump = ins.path[CLI_IN_ETDUMP];
    pte = ins.path[CLI_IN_PTE];
    int missing = cli_inputs_require("inspect", &ins, CLI_IN_ETDUMP, "inspect RUN.etdp [PROGRAM]");
    if (missing)
        return missing;
    if (raw && !json)
        return cli_usage("inspect", "--raw only applies with --json");
    if (opt.method && !pte)
        return cli_usage("inspect", "--method needs --pte");
    if (cli_units_check("inspect", &units))
        return ETP_EXIT_USAGE;
    opt.source_unit = (etp_unit)units.source;
    opt.target_unit = (etp_unit)units.target;
    opt.cpu_hz = units.cpu_hz;

    etp_error err;
    etp_error_clear(&err);
    /* The ETDump is opened deferred: its events' tables are checked as
     * etp_inspect_run() decodes them (one pass). A defect of the ETDump is
     * reported before one of the program. */
    etp_inputs_spec spec = {.etdump = etdump, .pte = pte};
    etp_inputs *inputs;
    etp_status s = etp_inputs_open(&spec, &inputs, &err);
    if (s)
        return cli_fail_status(s, &err);
    const etp_etdump *d = etp_inputs_etdump(inputs);
    const etp_program *p = etp_inputs_program(inputs);
    etp_inspect *in = NULL;
    int rc = ETP_EXIT_OK;
    opt.program = p;
    s = etp_inspect_run(d, &opt, &in, &err);
    if (s) {
        rc = cli_fail_status(s, &err);
    } else if (json) {
        if (etp_inspect_write_json(in, d, p, raw, stdout))
            rc = cli_error("write error on standard output");
    } else {
        etp_inspect_write_text(in, d, p, stdout);
        if (fflush(stdout))
            rc = cli_error("write error on standard output");
    }
    if (!cli_free_before_exit())
        return rc; /* exit reclaims it all at once */
    etp_inspect_free(in);
    etp_inputs_free(inputs);
    return rc;
}
