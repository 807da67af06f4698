/* analyze.c - `etprof analyze [ETRECORD] --etdump RUN.etdp [--pte PROGRAM] ...`:
 * attribute measured time to instructions and source operators. */
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etprof/bundle.h"

#include "cli/cli.h"
#include "cli/cli_db.h"
#include "cli/cli_labels.h"
#include "cli/cli_logs.h"
#include "cli/nx_options.h"
#include "outputs/report/nx_output.h"
#include "etprof/analysis.h"
#include "etprof/detect.h"
#include "etprof/inputs.h"
#include "outputs/report/analysis_report.h"
#include "outputs/bundle/publish.h"
#include "cli/cli_numerics.h"

static void help(void)
{
    printf("usage: etprof analyze [RUN.etdp] [PROGRAM] [ETRECORD] [LOG] [--method NAME]\n"
           "                      [--source-unit ns|us|ms|s|cycles] [--unit ms|us|ns|s|cycles]\n"
           "                      [--cpu-hz HZ] [--log FILE|-] [--debug-buffer FILE]\n"
           "                      [--testset N] [--rtol X] [--atol X]\n"
           "                      [--skip-executions N] [--finding CODE.KEY=VALUE]...\n"
           "                      [--rank-by avg|p50|max] [--fail-on warning|error]\n"
           "                      [--json] [--top N] [--quiet]\n"
           "                      [-o DIR [--format csv|json] [--detailed]\n"
           "                              [--model-explorer files|open|overlays|none]\n"
           "                              [--no-model-explorer]\n"
           "                              [--force] [--parents]\n"
           "                              [--label KEY=VALUE]... [--labels-from-ci]\n"
           "                              [--db TARGET]]\n"
           "       etprof analyze --list-issue-codes | --list-finding-codes\n\n"
           "Join what ran (ETDump) with what was deployed (.pte) and what was exported\n"
           "(ETRecord): time per instruction, per delegate event and per source operator,\n"
           "summed per execution first, then summarised across executions. Shared timings\n"
           "are marked non-additive, never divided. At least one of ETRECORD and PROGRAM.\n"
           "Input files go in any order, each recognised by its bytes, or with their options\n"
           "(--etdump, --pte, --etrecord, --log), which check the file is of that kind.\n\n"
           "  --etdump FILE      the runtime's ETDump (required)\n"
           "  --etrecord FILE    the ETRecord saved at export time\n"
           "  --pte PROGRAM      the deployed program (.pte or .bpte); --companion-model\n"
           "                     PROGRAM is the same (MLIA's name): with VGF statistics it\n"
           "                     is the companion program their associations are checked on\n"
           "  --log FILE         the runner's output (executor_runner / example_runner): its\n"
           "                     method, iteration times and planned memory, kept apart;\n"
           "                     checked against the ETDump and the program, and its wall\n"
           "                     times test the tick unit. `-` reads it from standard input.\n"
           "                     Repeatable: also GNU time -v output, Arm runner consoles\n"
           "                     (perf report, PMU counters), RTT Inference lines, VGF\n"
           "                     device time. A log carrying a base64 ETDump stands in for\n"
           "                     --etdump (or is checked against it); an Arm runner's dump\n"
           "                     is read in CPU cycles unless --source-unit says otherwise\n"
           "  --debug-buffer FILE the debug buffer written beside the ETDump (intermediate-\n"
           "                     output logging): every tensor a debug event logged must lie\n"
           "                     inside it; recorded as an input of the bundle. A buffer a\n"
           "                     --log carries stands in for it (or must equal it). Its values\n"
           "                     are read (`etprof tensors`; with --detailed,\n"
           "                     detailed/tensors.csv) and a bundled program's expected\n"
           "                     outputs checked against the logged ones\n"
           CLI_NUMERICS_HELP
           "  --skip-executions N leave the first N executions (warm-up) out of the statistics\n"
           "                     (the cold start, first execution against the rest, is always\n"
           "                     reported)\n"
           "  --rank-by K        order the top lists by avg (default), p50 or max per execution\n"
           "  --fail-on V        exit 3 when the validity is V or worse: warning (degraded or\n"
           "                     invalid) or error (invalid); output is still written\n"
           "  --method NAME      the method that ran (inferred when possible)\n"
           "  --source-unit U    unit of the ETDump's ticks (ns assumed, and reported, if absent)\n"
           "  --unit U           unit of reported times (default ms)\n"
           "  --cpu-hz HZ        convert cycle ticks to time at HZ cycles per second\n"
           "  --json             without -o: the whole analysis as JSON (etprof.analysis v1:\n"
           "                     summary.json's members, same names and values, plus inputs,\n"
           "                     executions, figures and entities);\n"
           "                     with -o: print the bundle's summary.json\n"
           "  -o DIR             publish a result bundle in DIR (check it with `etprof verify\n"
           "                     DIR`): written beside DIR, then swapped into place, so a\n"
           "                     failed or interrupted run leaves DIR as it was. DIR may be\n"
           "                     missing, empty or an earlier bundle (replaced whole)\n"
           "  --force            also replace a non-empty DIR that is not an etprof bundle\n"
           "  --parents          create DIR's missing parent directories\n"
           "  --format F         per-entity table as operators.csv (default) or operators.json\n"
           "  --detailed         add detailed/: per-execution samples, delegate breakdown,\n"
           "                     unresolved handles\n"
           "  --model-explorer M files (default): model_explorer/ graph + overlays + page;\n"
           "                     open: also open the page; overlays: the overlays and\n"
           "                     mapping only, without the per-program graph.json and\n"
           "                     index.html (lighter bundles for CI); none: leave it out\n"
           "  --no-model-explorer  the same as --model-explorer none\n"
           "  --label KEY=VALUE  a label of the run, recorded in run_metadata.json\n"
           "                     (repeatable; conventional keys: device, model, backend,\n"
           "                     commit, branch, seq). Keys: a letter, then letters, digits,\n"
           "                     _ . : - (at most 64); values: any bytes, at most 64 KiB\n"
           "  --labels-from-ci   labels from the CI's environment (GitHub Actions, GitLab\n"
           "                     CI, Jenkins): ci, commit, branch, build, job, ...; a\n"
           "                     --label of the same key wins\n"
           "  --db TARGET        after publishing, store the bundle in the run history\n"
           "                     (a SQLite file or a postgresql:// URL; `etprof db --help`);\n"
           "                     a failed store exits 1, the bundle stays published\n"
           "  --top N            operators in the terminal summary (default 10)\n"
           "  --quiet            print nothing but errors\n"
           "  --list-issue-codes print the issue code registry (Markdown) and exit\n"
           "  --finding CODE.KEY=VALUE\n"
           "                     change a finding's threshold (repeatable), e.g.\n"
           "                     hotspot.op_type.min_share_pct=40\n"
           "  --list-finding-codes print the findings' codes and thresholds (Markdown)\n"
           "  --nx-statistics-mode 0|1, --nx-profiling-device Mali-G1|Mali-G2\n"
           "                     VGF statistics settings for records that do not state them\n"
           "                     (schema v1): default mode 1 on Mali-G2, recorded as assumed\n"
           "  --nx-leading-blocks 0|1  blocks before stripe 0's (default: declared, else 1)\n"
           "  --nx-core-key single|word0  mode-1 core of a task (default single: one core)\n"
           "Exit status: 0 (valid or degraded result), 1 bad or inconsistent input, 2 usage,\n"
           "3 the result is below --fail-on's threshold.\n");
}

/* The files of the bundle, as its manifest lists them. */
static void list_artifacts(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/result_manifest.json", dir);
    json_error_t je;
    json_t *m = json_load_file(path, 0, &je);
    json_t *arts = m ? json_object_get(m, "artifacts") : NULL;
    size_t i;
    json_t *it;
    json_array_foreach(arts, i, it)
    {
        const char *p = json_string_value(json_object_get(it, "path"));
        json_int_t size = json_integer_value(json_object_get(it, "size_bytes"));
        if (p)
            printf("  %-44s %10lld bytes\n", p, (long long)size);
    }
    printf("  %-44s (written last)\n", "result_manifest.json");
    json_decref(m);
}

/* ---- publishing safely: DIR checked up front, signals undo a publication -- */

/* SIGINT/SIGTERM (and SIGHUP/SIGQUIT) while a bundle is being written: the
 * library removes the staging directory (DIR stays as it was) using only
 * async-signal-safe calls, then the signal is raised again with its default
 * action (SA_RESETHAND), so the exit status still says what killed us. */
static void on_terminate(int sig)
{
    etp_bundle_abandon_from_signal();
    raise(sig); /* blocked while this handler runs; delivered on return */
}

static void catch_termination(void)
{
    static const int sigs[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_terminate;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&sa.sa_mask, sigs[i]); /* one cleanup at a time */
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction was;
        /* A signal ignored by whoever started us (nohup) stays ignored. */
        if (sigaction(sigs[i], NULL, &was) == 0 && was.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

/* Refuse a DIR that cannot be published before any input is read (the
 * library checks again when it swaps the bundle in). */
static int check_outdir(const char *outdir, unsigned flags)
{
    etp_error err;
    etp_error_clear(&err);
    etp_bundle_target kind;
    etp_status s = etp_bundle_probe(outdir, flags, &kind, &err);
    if (s && kind == ETP_BUNDLE_TARGET_OTHER)
        return cli_error("%s: not empty and not an etprof bundle; refusing to replace it "
                         "(--force replaces it)",
                         outdir);
    return s ? cli_fail_status(s, &err) : ETP_EXIT_OK;
}

/* What `analyze -o DIR` was asked for: the bundle, the inputs it names, and
 * what to print afterwards. Strings are argv's or cmd_analyze's. */
typedef struct publish_request {
    int argc;
    char **argv;                 /* the command line, recorded in run_metadata.json */
    const char *outdir;
    const char *etdump, *pte, *etrecord, *log; /* input paths (NULL: not given) */
    const char *debug_buffer;    /* the debug buffer checked, or NULL */
    const cli_logs *logs;        /* every --log (the runner's is also .log) */
    const char *format;          /* "csv" or "json" */
    int detailed;
    const char *me_mode;         /* "files", "open", "overlays" or "none" */
    unsigned bundle_flags;       /* ETP_BUNDLE_FORCE, ETP_BUNDLE_PARENTS */
    int json, quiet, top;        /* terminal output: summary.json, nothing, or the text */
    const cli_labels *labels;    /* --label, --labels-from-ci */
} publish_request;

static int publish(const etp_analysis *a, const etp_analysis_options *opt, const publish_request *rq)
{
    etp_error err;
    etp_error_clear(&err);
    const char *outdir = rq->outdir, *me_mode = rq->me_mode;
    char *cmd = cli_join_command("analyze", rq->argc, rq->argv);
    etp_publish_options po;
    memset(&po, 0, sizeof po);
    po.dir = outdir;
    po.bundle_flags = rq->bundle_flags;
    po.operators_csv = !strcmp(rq->format, "csv");
    po.detailed = rq->detailed;
    po.model_explorer = strcmp(me_mode, "none") != 0;
    po.model_explorer_overlays_only = !strcmp(me_mode, "overlays");
    po.command_line = cli_run_command_line ? cli_run_command_line : cmd;
    char *oj = etp_analysis_options_json(opt, &po, !strcmp(me_mode, "open"));
    po.options_json = oj;
    po.etdump_path = rq->etdump;
    po.pte_path = rq->pte;
    po.etrecord_path = rq->etrecord;
    po.log_path = rq->log;
    po.log_name = cli_log_shown_name(rq->log);
    po.runner_json = cli_run_runner_json;
    po.debug_buffer_path = rq->debug_buffer;
    /* Device logs other than the runner log: recorded as inputs too. */
    const char *more[CLI_MAX_LOGS];
    uint32_t nmore = 0;
    for (uint32_t i = 0; rq->logs && i < rq->logs->n; i++)
        if ((!rq->log || strcmp(rq->logs->paths[i], rq->log)) && strcmp(rq->logs->paths[i], "-"))
            more[nmore++] = rq->logs->paths[i];
    po.device_log_paths = more;
    po.device_log_count = nmore;
    po.embed_log_path = cli_run_embed_log; /* set by `etprof run` */
    po.embed_measurements_path = cli_run_embed_measurements;
    po.label_keys = rq->labels->keys;
    po.label_values = rq->labels->values;
    po.label_count = rq->labels->n;
    char *summary = NULL;
    int rc = ETP_EXIT_OK;
    if (!cmd || !oj) {
        etp_error_set(&err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        rc = cli_fail(&err);
    } else if (etp_publish(a, &po, &summary, &err)) {
        rc = cli_fail(&err);
    } else if (rq->json) {
        cli_progress_done();
        fputs(summary, stdout);
    } else if (!rq->quiet) {
        cli_progress_done();
        etp_text_style st = {isatty(STDOUT_FILENO) && !getenv("NO_COLOR"), rq->top};
        etp_analysis_write_text(a, &st, stdout);
        etp_nx_write_text(a->nx, stdout);
        printf("\nPublished %s (check it with `etprof verify %s`):\n", outdir, outdir);
        list_artifacts(outdir);
    }
    if (rc == ETP_EXIT_OK && !strcmp(me_mode, "open"))
        cli_open_page(outdir);
    if (fflush(stdout) && rc == ETP_EXIT_OK)
        rc = cli_error("write error on standard output");
    free(summary);
    free(cmd);
    free(oj);
    return rc;
}

int cmd_analyze(int argc, char **argv)
{
    static const struct option opts[] = {
        {"etdump", required_argument, NULL, 'e'},      {"pte", required_argument, NULL, 'p'},
        {"method", required_argument, NULL, 'm'},      {"source-unit", required_argument, NULL, 's'},
        {"unit", required_argument, NULL, 'u'},        {"cpu-hz", required_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'},              {"top", required_argument, NULL, 't'},
        {"quiet", no_argument, NULL, 'q'},             {"list-issue-codes", no_argument, NULL, 'L'},
        {"output", required_argument, NULL, 'o'},      {"format", required_argument, NULL, 'f'},
        {"detailed", no_argument, NULL, 'D'},          {"model-explorer", required_argument, NULL, 'M'},
        {"log", required_argument, NULL, 'l'},          {"skip-executions", required_argument, NULL, 'S'},
        {"rank-by", required_argument, NULL, 'R'},      {"fail-on", required_argument, NULL, 'G'},
        {"etrecord", required_argument, NULL, 'r'},    {"debug-buffer", required_argument, NULL, 'B'},
        {"companion-model", required_argument, NULL, 'p'}, /* MLIA's name for --pte */
        {"nx-statistics-mode", required_argument, NULL, 1001}, {"nx-profiling-device", required_argument, NULL, 1002},
        {"nx-leading-blocks", required_argument, NULL, 1003},  {"nx-core-key", required_argument, NULL, 1004},
        {"force", no_argument, NULL, 'F'},             {"parents", no_argument, NULL, 'P'},
        {"label", required_argument, NULL, 1101},     {"labels-from-ci", no_argument, NULL, 1102},
        {"db", required_argument, NULL, 1103},        {"finding", required_argument, NULL, 1104},
        {"list-finding-codes", no_argument, NULL, 1105},
        {"no-model-explorer", no_argument, NULL, 1106}, /* seed 003's name for none */
        CLI_NUMERICS_LONG_OPTIONS,
        {"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0},
    };
    etp_analysis_options opt;
    etp_analysis_options_init(&opt);
    etp_nx_options nx;
    etp_nx_options_defaults(&nx);
    cli_units units = {(int)opt.source_unit, (int)opt.target_unit, 0, 0};
    const char *etdump = NULL, *pte = NULL, *logpath = NULL, *etrecord_opt = NULL, *debug_opt = NULL;
    int json = 0, quiet = 0, top = 10, c;
    const char *outdir = NULL, *format = "csv", *me_mode = "files";
    int detailed = 0, fail_on = -1; /* -1: never; else the etp_validity that fails */
    unsigned bundle_flags = 0;
    cli_logs logs;
    memset(&logs, 0, sizeof logs);
    int unit_given = 0;
    cli_labels labels;
    memset(&labels, 0, sizeof labels);
    const char *db = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hqo:", opts, NULL)) != -1) {
        switch (c) {
        case 1101:
            if (cli_labels_add("analyze", "--label", &labels, optarg, 1))
                return ETP_EXIT_USAGE;
            break;
        case 1102: labels.from_ci = 1; break;
        case 1103: db = optarg; break;
        case 1104: {
            etp_error ferr;
            if (etp_finding_settings_parse(&opt.findings, optarg, &ferr))
                return cli_usage("analyze", "%s", ferr.message);
            break;
        }
        case 1105: cli_list_finding_codes(); return ETP_EXIT_OK;
        case 'e': etdump = optarg; break;
        case 'p':
            if (pte && strcmp(pte, optarg))
                return cli_usage("analyze", "--pte/--companion-model given twice: '%s' and '%s'", pte, optarg);
            pte = optarg;
            break;
        case 'l':
            if (cli_logs_add(&logs, optarg))
                return ETP_EXIT_USAGE;
            break;
        case 'r': etrecord_opt = optarg; break;
        case 'B': debug_opt = optarg; break;
        case 'm': opt.method = optarg; break;
        case 'u': unit_given = 1; /* fall through */
        case 's':
        case 'c':
            if (cli_units_option("analyze", &units, c == 's' ? "source-unit" : c == 'u' ? "unit" : "cpu-hz",
                                 optarg))
                return ETP_EXIT_USAGE;
            break;
        case 'j': json = 1; break;
        case 't': {
            long long v = cli_parse_count(optarg);
            if (v < 1 || v > 100000)
                return cli_usage("analyze", "--top needs a count from 1, got '%s'", optarg);
            top = (int)v;
            break;
        }
        case 'q': quiet = 1; break;
        case 'L': cli_list_issue_codes(); return ETP_EXIT_OK;
        case 'o': outdir = optarg; break;
        case 'f':
            if (strcmp(optarg, "csv") && strcmp(optarg, "json"))
                return cli_usage("analyze", "--format is csv or json, got '%s'", optarg);
            format = optarg;
            break;
        case 'S': {
            long long v = cli_parse_count(optarg);
            if (v < 0 || v > 100000000)
                return cli_usage("analyze", "--skip-executions needs a count from 0, got '%s'", optarg);
            opt.skip_executions = (uint32_t)v;
            break;
        }
        case 'R':
            if (!strcmp(optarg, "avg"))
                opt.rank_by = ETP_RANK_AVG;
            else if (!strcmp(optarg, "p50"))
                opt.rank_by = ETP_RANK_P50;
            else if (!strcmp(optarg, "max"))
                opt.rank_by = ETP_RANK_MAX;
            else
                return cli_usage("analyze", "--rank-by is avg, p50 or max, got '%s'", optarg);
            break;
        case 'G':
            if (!strcmp(optarg, "warning"))
                fail_on = ETP_DEGRADED;
            else if (!strcmp(optarg, "error"))
                fail_on = ETP_INVALID;
            else
                return cli_usage("analyze", "--fail-on is warning or error, got '%s'", optarg);
            break;
        case 'D': detailed = 1; break;
        case 'F': bundle_flags |= ETP_BUNDLE_FORCE; break;
        case 'P': bundle_flags |= ETP_BUNDLE_PARENTS; break;
        case 'M':
            if (strcmp(optarg, "files") && strcmp(optarg, "open") && strcmp(optarg, "overlays") &&
                strcmp(optarg, "none"))
                return cli_usage("analyze",
                                 "--model-explorer is files, open, overlays or none, got '%s'",
                                 optarg);
            me_mode = optarg;
            break;
        case 1106: me_mode = "none"; break;
        case CLI_OPT_TESTSET:
        case CLI_OPT_RTOL:
        case CLI_OPT_ATOL:
            if (cli_numerics_option("analyze", c, optarg, &opt))
                return ETP_EXIT_USAGE;
            break;
        case 1001:
        case 1002:
        case 1003:
        case 1004:
            if (cli_nx_option(&nx, c - 1001, optarg))
                return ETP_EXIT_USAGE;
            opt.nx_options = &nx;
            break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("analyze", argv);
        }
    }
    /* Inputs: positional in any order (sorted by their bytes) or with their
     * options (checked to be of that kind). */
    cli_inputs ins;
    memset(&ins, 0, sizeof ins);
    int bad_in = ETP_EXIT_OK;
    if (etdump)
        bad_in = cli_inputs_set("analyze", &ins, CLI_IN_ETDUMP, etdump);
    if (!bad_in && pte)
        bad_in = cli_inputs_set("analyze", &ins, CLI_IN_PTE, pte);
    /* Every --log is read as a device log (cli_logs.h); the first also
     * stands in the inputs' log slot (a positional LOG joins the list). */
    if (!bad_in && logs.n)
        bad_in = cli_inputs_set("analyze", &ins, CLI_IN_LOG, logs.paths[0]);
    if (!bad_in && etrecord_opt)
        bad_in = cli_inputs_set("analyze", &ins, CLI_IN_ETRECORD, etrecord_opt);
    if (!bad_in)
        bad_in = cli_inputs_check(&ins);
    for (; !bad_in && optind < argc; optind++)
        bad_in = cli_inputs_add("analyze", &ins, argv[optind],
                                CLI_ACCEPT(CLI_IN_ETDUMP) | CLI_ACCEPT(CLI_IN_PTE) |
                                    CLI_ACCEPT(CLI_IN_ETRECORD) | CLI_ACCEPT(CLI_IN_LOG));
    if (bad_in)
        return bad_in;
    etdump = ins.path[CLI_IN_ETDUMP];
    pte = ins.path[CLI_IN_PTE];
    if (ins.path[CLI_IN_LOG] && (!logs.n || strcmp(ins.path[CLI_IN_LOG], logs.paths[0])) &&
        cli_logs_add(&logs, ins.path[CLI_IN_LOG]))
        return ETP_EXIT_USAGE;
    const char *etrecord = ins.path[CLI_IN_ETRECORD];
    /* (a log may carry the ETDump: checked once the logs are read) */
    int missing = logs.n ? ETP_EXIT_OK
                         : cli_inputs_require("analyze", &ins, CLI_IN_ETDUMP, "RUN.etdp, or --etdump RUN.etdp");
    if (missing)
        return missing;
    if (outdir && !strcmp(outdir, "-"))
        return cli_usage("analyze", "-o takes a directory (a bundle is several files); for the "
                                    "analysis on standard output use --json without -o");
    if (!outdir && (detailed || strcmp(format, "csv") || strcmp(me_mode, "files") || bundle_flags))
        return cli_usage("analyze",
                         "--format, --detailed, --model-explorer, --force and --parents need -o DIR");
    if (!outdir && (labels.n || labels.from_ci || db))
        return cli_usage("analyze", "--label, --labels-from-ci and --db need -o DIR");
    if (labels.from_ci && cli_labels_add_ci("analyze", &labels))
        return ETP_EXIT_USAGE;
    if (!etrecord && !pte)
        return cli_usage("analyze", "give an ETRECORD, a --pte PROGRAM, or both");
    /* The logs: device figures, a carried ETDump, tick-unit evidence. */
    if (logs.n) {
        int lrc = cli_logs_load(&logs, &etdump, &units, unit_given);
        if (!lrc && !etdump)
            lrc = cli_usage("analyze", "--etdump RUN.etdp is required (no --log carries an ETDump)");
        if (lrc) {
            cli_logs_free(&logs);
            return lrc;
        }
        logpath = logs.runner;
        opt.device_logs = (const etp_device_log *const *)logs.logs;
        opt.device_log_count = logs.nloaded;
    }
    if (cli_units_check("analyze", &units)) {
        cli_logs_free(&logs);
        return ETP_EXIT_USAGE;
    }
    /* The debug buffer: given, or carried by a log (the same bytes when both). */
    cli_debug_buffer dbg;
    int drc = cli_logs_debug_buffer(&logs, debug_opt, &dbg);
    if (drc) {
        cli_logs_free(&logs);
        return drc;
    }
    if (dbg.path) {
        opt.has_debug_buffer = 1;
        opt.debug_buffer_size = dbg.size;
        opt.debug_buffer_name = dbg.name;
        opt.debug_buffer_data = dbg.data; /* the values are read too (etprof/tensors.h) */
        if (cli_run_testset_basis && opt.testset >= 0)
            opt.testset_basis = cli_run_testset_basis;
    }
    opt.source_unit = (etp_unit)units.source;
    opt.target_unit = (etp_unit)units.target;
    opt.cpu_hz = units.cpu_hz;
    opt.source_unit_given = units.source_given;

    etp_error err;
    etp_error_clear(&err);
    /* DIR is only checked here; it changes when the new bundle is complete. */
    if (outdir) {
        int bad = check_outdir(outdir, bundle_flags);
        if (bad) {
            cli_logs_free(&logs);
            return bad;
        }
        catch_termination();
    }
    /* The inputs load on three threads; their failures come in input
     * order (etprof/inputs.h). */
    etp_inputs_spec spec = {.etdump = etdump, .pte = pte, .etrecord = etrecord, .log = logpath,
                            .log_name = cli_log_shown_name(logpath), .prepare = &opt};
    etp_inputs *in = NULL;
    etp_analysis *a = NULL;
    int rc = ETP_EXIT_OK;
    cli_progress_init(quiet);
    cli_progress_start("reading inputs");
    etp_status s = etp_inputs_open(&spec, &in, &err);
    if (s) {
        cli_logs_free(&logs);
        return cli_fail_status(s, &err);
    }
    cli_progress_start("analysing");
    opt.runner_log = etp_inputs_runner_log(in);
    opt.hash_program = outdir != NULL;
    s = etp_analyze_prepared(etp_inputs_etdump(in), etp_inputs_take_prepared(in),
                             etp_inputs_program(in), etp_inputs_etrecord(in), &opt, &a, &err);
    if (s) {
        rc = cli_fail_status(s, &err);
        goto done;
    }
    cli_progress_done();
    if (outdir) {
        publish_request rq = {.argc = argc, .argv = argv, .outdir = outdir, .etdump = etdump,
                              .pte = pte, .etrecord = etrecord,
                              /* a log read from stdin cannot be hashed again: not an input
                               * of the bundle (its figures are in it all the same) */
                              .log = logpath && strcmp(logpath, "-") ? logpath : NULL, .logs = &logs,
                              .debug_buffer = dbg.path,
                              .format = format,
                              .detailed = detailed, .me_mode = me_mode,
                              .bundle_flags = bundle_flags, .json = json,
                              .quiet = quiet, .top = top, .labels = &labels};
        cli_progress_start("publishing");
        rc = publish(a, &opt, &rq);
        /* Then into the run history; the bundle stays published either way. */
        if (rc == ETP_EXIT_OK && db)
            rc = cli_db_ingest_published(outdir, db, quiet || json);
    } else if (json) {
        if (etp_analysis_write_json(a, stdout))
            rc = cli_error("write error on standard output");
    } else if (!quiet) {
        etp_text_style st = {isatty(STDOUT_FILENO) && !getenv("NO_COLOR"), top};
        etp_analysis_write_text(a, &st, stdout);
        etp_nx_write_text(a->nx, stdout);
        if (fflush(stdout))
            rc = cli_error("write error on standard output");
    }
    /* The gate: the output above is written either way. */
    if (rc == ETP_EXIT_OK && fail_on >= 0 && (int)a->validity >= fail_on) {
        fprintf(stderr, "etprof: result is %s; --fail-on %s\n", etp_validity_name(a->validity),
                    fail_on == ETP_INVALID ? "error" : "warning");
        rc = ETP_EXIT_GATE;
    }
done:
    cli_progress_done();
    if (!cli_free_before_exit()) {
        cli_logs_free(&logs); /* also removes a temporary ETDump: always */
        return rc;            /* exit reclaims the rest at once */
    }
    etp_analysis_free(a);
    etp_inputs_free(in);
    cli_logs_free(&logs);
    return rc;
}
