/* tensors.c - `etprof tensors`: every value a run logged (program outputs,
 * intermediate outputs), read from its debug buffer, attributed like a
 * timing, with its statistics; a bundled program's expected outputs
 * checked. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_logs.h"
#include "cli/cli_numerics.h"
#include "etprof/analysis.h"
#include "etprof/inputs.h"
#include "etprof/tensors.h"
#include "outputs/tensors/tensors_write.h"
#include "util/csvw.h"
#include "util/jsonw.h"

static void help(void)
{
    printf("usage: etprof tensors RUN.etdp [PROGRAM] [ETRECORD] [--debug-buffer FILE | --log LOG]\n"
           "                      [--method NAME] [--source-unit U] [--testset N] [--rtol X] [--atol X]\n"
           "                      [--json | --csv] [--values N]\n\n"
           "List every value the run logged (ETDump debug events: --dump_outputs,\n"
           "--dump_intermediate_outputs, delegate intermediate outputs), read from the debug\n"
           "buffer the runner wrote beside the ETDump (example_runner's --debug_output_path).\n"
           "Each value: where it came from (run, execution, instruction, delegate id, debug\n"
           "handles, source operators through the ETRecord), element type, shape, and in one\n"
           "pass over its bytes min, max, mean, std, largest magnitude, NaN, Inf and zero\n"
           "counts (NaN and Inf counted apart, never mixed into the other figures).\n"
           "With a bundled program (.bpte) whose outputs were logged, they are checked\n"
           "against the expected outputs of the test case that ran. Needs a PROGRAM or an\n"
           "ETRECORD (or both), as analyze does.\n\n"
           "  --debug-buffer FILE the debug buffer (required, unless a --log carries one)\n"
           "  --log FILE         the runner's output (repeatable): its --testset_idx, or a\n"
           "                     carried ETDump and debug buffer\n"
           "  --method NAME      the method that ran (inferred when possible)\n"
           "  --source-unit U    unit of the ETDump's ticks (for the attribution only)\n"
           CLI_NUMERICS_HELP
           "  --json             the etprof.tensors document (columns with units, values)\n"
           "  --csv              one row per value, the columns of detailed/tensors.csv\n"
           "  --values N         also the first N elements of each value (storage order)\n"
           "Exit status: 0; 1 bad input, or a bundled-program mismatch; 2 usage.\n");
}

int cmd_tensors(int argc, char **argv)
{
    static const struct option opts[] = {
        {"etdump", required_argument, NULL, 'e'},   {"pte", required_argument, NULL, 'p'},
        {"etrecord", required_argument, NULL, 'r'}, {"log", required_argument, NULL, 'l'},
        {"debug-buffer", required_argument, NULL, 'B'}, {"method", required_argument, NULL, 'm'},
        {"source-unit", required_argument, NULL, 's'}, {"json", no_argument, NULL, 'j'},
        {"csv", no_argument, NULL, 'C'},             {"values", required_argument, NULL, 'V'},
        CLI_NUMERICS_LONG_OPTIONS,
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
    };
    etp_analysis_options opt;
    etp_analysis_options_init(&opt);
    cli_units units = {(int)opt.source_unit, (int)opt.target_unit, 0, 0};
    const char *etdump = NULL, *pte = NULL, *etrecord_opt = NULL, *debug_opt = NULL;
    int json = 0, csv = 0, c;
    long long values = 0;
    cli_logs logs;
    memset(&logs, 0, sizeof logs);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'e': etdump = optarg; break;
        case 'p': pte = optarg; break;
        case 'r': etrecord_opt = optarg; break;
        case 'l':
            if (cli_logs_add(&logs, optarg))
                return ETP_EXIT_USAGE;
            break;
        case 'B': debug_opt = optarg; break;
        case 'm': opt.method = optarg; break;
        case 's':
            if (cli_units_option("tensors", &units, "source-unit", optarg))
                return ETP_EXIT_USAGE;
            break;
        case 'j': json = 1; break;
        case 'C': csv = 1; break;
        case 'V':
            values = cli_parse_count(optarg);
            if (values < 0)
                return cli_usage("tensors", "--values needs a count from 0, got '%s'", optarg);
            break;
        case CLI_OPT_TESTSET:
        case CLI_OPT_RTOL:
        case CLI_OPT_ATOL:
            if (cli_numerics_option("tensors", c, optarg, &opt))
                return ETP_EXIT_USAGE;
            break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("tensors", argv);
        }
    }
    if (json && csv)
        return cli_usage("tensors", "--json and --csv: choose one");
    cli_inputs ins;
    memset(&ins, 0, sizeof ins);
    int bad = ETP_EXIT_OK;
    if (etdump)
        bad = cli_inputs_set("tensors", &ins, CLI_IN_ETDUMP, etdump);
    if (!bad && pte)
        bad = cli_inputs_set("tensors", &ins, CLI_IN_PTE, pte);
    if (!bad && etrecord_opt)
        bad = cli_inputs_set("tensors", &ins, CLI_IN_ETRECORD, etrecord_opt);
    if (!bad && logs.n)
        bad = cli_inputs_set("tensors", &ins, CLI_IN_LOG, logs.paths[0]);
    for (; !bad && optind < argc; optind++)
        bad = cli_inputs_add("tensors", &ins, argv[optind],
                             CLI_ACCEPT(CLI_IN_ETDUMP) | CLI_ACCEPT(CLI_IN_PTE) | CLI_ACCEPT(CLI_IN_ETRECORD) |
                                 CLI_ACCEPT(CLI_IN_LOG));
    if (bad)
        return bad;
    etdump = ins.path[CLI_IN_ETDUMP];
    pte = ins.path[CLI_IN_PTE];
    const char *etrecord = ins.path[CLI_IN_ETRECORD];
    if (ins.path[CLI_IN_LOG] && (!logs.n || strcmp(ins.path[CLI_IN_LOG], logs.paths[0])) &&
        cli_logs_add(&logs, ins.path[CLI_IN_LOG]))
        return ETP_EXIT_USAGE;
    if (!logs.n && !etdump)
        return cli_inputs_require("tensors", &ins, CLI_IN_ETDUMP, "RUN.etdp, or --etdump RUN.etdp");
    if (!pte && !etrecord)
        return cli_usage("tensors", "give a PROGRAM (.pte/.bpte), an ETRECORD, or both");
    int rc = ETP_EXIT_OK;
    const char *logpath = NULL;
    if (logs.n) {
        rc = cli_logs_load(&logs, &etdump, &units, 0);
        if (!rc && !etdump)
            rc = cli_usage("tensors", "--etdump RUN.etdp is required (no --log carries an ETDump)");
        if (rc) {
            cli_logs_free(&logs);
            return rc;
        }
        logpath = logs.runner;
        opt.device_logs = (const etp_device_log *const *)logs.logs;
        opt.device_log_count = logs.nloaded;
    }
    cli_debug_buffer dbg;
    rc = cli_logs_debug_buffer(&logs, debug_opt, &dbg);
    if (!rc && !dbg.path)
        rc = cli_usage("tensors", "no debug buffer: give --debug-buffer FILE (the runner's --debug_output_path) "
                                  "or a --log that carries one");
    if (rc) {
        cli_logs_free(&logs);
        return rc;
    }
    opt.has_debug_buffer = 1;
    opt.debug_buffer_size = dbg.size;
    opt.debug_buffer_name = dbg.name;
    opt.debug_buffer_data = dbg.data;
    opt.source_unit = (etp_unit)units.source;
    opt.source_unit_given = units.source_given;
    etp_inputs_spec spec = {.etdump = etdump, .pte = pte, .etrecord = etrecord, .log = logpath,
                            .log_name = cli_log_shown_name(logpath), .prepare = &opt};
    etp_inputs *in = NULL;
    etp_analysis *a = NULL;
    etp_error err;
    etp_error_clear(&err);
    etp_status s = etp_inputs_open(&spec, &in, &err);
    if (!s) {
        opt.runner_log = etp_inputs_runner_log(in);
        s = etp_analyze_prepared(etp_inputs_etdump(in), etp_inputs_take_prepared(in), etp_inputs_program(in),
                                 etp_inputs_etrecord(in), &opt, &a, &err);
    }
    if (s) {
        rc = cli_fail_status(s, &err);
        goto done;
    }
    const etp_tensor_set *ts = a->tensors;
    if (json) {
        etp_jw w;
        etp_jw_init_file(&w, stdout, 1);
        etp_tensors_json(&w, a, ts, (uint64_t)values);
        if (etp_jw_finish(&w) || fputc('\n', stdout) == EOF)
            rc = cli_error("write error on standard output");
    } else if (csv) {
        etp_csvw w;
        etp_csvw_init_file(&w, stdout);
        etp_tensors_csv(&w, ts);
        if (etp_csvw_finish(&w))
            rc = cli_error("write error on standard output");
    } else {
        etp_tensors_text(stdout, ts, (uint64_t)values);
    }
    if (!rc && fflush(stdout))
        rc = cli_error("write error on standard output");
    if (!rc && ts->bundled.done && ts->bundled.mismatched)
        rc = ETP_EXIT_INPUT; /* the run's outputs are wrong: said above, and in the exit status */
done:
    etp_analysis_free(a);
    etp_inputs_free(in);
    cli_logs_free(&logs);
    return rc;
}
