/* diff.c - `etprof diff BASE NEW`: compare two runs (published bundles, or
 * ETDumps analysed in memory), and gate CI on a regression. */
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/diff_numerics.h"
#include "etprof/analysis.h"
#include "etprof/bundle.h"
#include "etprof/diff.h"
#include "etprof/diff_io.h"
#include "etprof/inputs.h"
#include "util/sha256.h"

static void help(void)
{
    printf(
        "usage: etprof diff BASE NEW [--top N] [--rank-by abs|delta|ratio|base|new]\n"
        "                   [--stat avg|p50] [--json | --csv] [-o DIR [--force] [--parents]]\n"
        "                   [--fail-if-slower PCT [--metric NAME] [--no-significance]]\n"
        "                   [--base-pte P] [--new-pte P] [--base-etrecord R] [--new-etrecord R]\n"
        "                   [--method M] [--source-unit U] [--unit U] [--cpu-hz HZ]\n"
        "                   [--resamples N] [--confidence C] [--seed S] [--interval-rows N]\n"
        "                   [--any-method] [--quiet]\n"
        "                   [--numerics [--base-debug-buffer F] [--new-debug-buffer F] [--rtol X]\n"
        "                    [--atol X] [--execution N] [--fail-if-snr-below DB]]\n"
        "       etprof diff --list-issue-codes\n\n"
        "Compare two runs of a model. BASE and NEW are each a published result bundle\n"
        "(verified first: a modified bundle is refused) or an ETDump, analysed in memory\n"
        "with its program (--base-pte / --new-pte; by default NAME.pte or NAME.bpte beside\n"
        "it) and the same analysis options on both sides.\n\n"
        "Rows are matched at the finest level both runs support, printed and recorded:\n"
        "same program digest -> per instruction, delegate event and source operator; same\n"
        "source graph -> per source operator; otherwise per operator type and backend.\n"
        "Model-level figures (Method::execute, native kernels, each delegate backend,\n"
        "dispatch, framework overhead, load) are always compared. Different methods, or\n"
        "cycles against time, are refused with the reason.\n\n"
        "Each row: base, new, delta = new - base, ratio = new / base (> 1: slower), share\n"
        "of Method::execute on each side. Shared (co-attributed) rows are marked *; means\n"
        "are summed only where additive, medians never. With per-execution samples on both\n"
        "sides (ETDumps, or bundles written with --detailed) each ratio gets a percentile\n"
        "bootstrap interval (splitmix64, fixed seed: the same output on every run), and\n"
        "a ratio whose interval contains 1 is 'not significant'.\n\n"
        "  --top N              entity rows in the table and on the page (default 15; 0: all)\n"
        "  --rank-by K          abs (|delta|, default), delta, ratio, base or new\n"
        "  --stat S             the statistic compared: avg (mean, default) or p50 (median)\n"
        "  --json               the comparison as JSON (etprof.diff v1) on stdout\n"
        "  --csv                every row as CSV on stdout\n"
        "  -o DIR               publish a diff bundle: diff_summary.json, diff_rows.csv,\n"
        "                       diff.html, result_manifest.json written last\n"
        "  --force, --parents   as for `etprof analyze -o`\n"
        "  --fail-if-slower PCT exit 3 when the metric's ratio exceeds 1 + PCT/100 and the\n"
        "                       interval is above 1 (significant)\n"
        "  --metric NAME        the gated row: a model figure (default method_execute) or an\n"
        "                       entity key (instruction id, operator name, op type)\n"
        "  --no-significance    gate on the ratio alone when the row has no interval\n"
        "  --resamples N        bootstrap resamples per row (default 2000; 0: no intervals)\n"
        "  --confidence C       of the intervals (default 0.95)\n"
        "  --seed S             bootstrap seed (default 7310591731775596902)\n"
        "  --interval-rows N    entity rows with an interval: the N largest changes (default\n"
        "                       200; 0: every row); model rows and the gated row always\n"
        "  --any-method         compare runs of different methods (with a warning)\n"
        "  --method, --source-unit, --unit, --cpu-hz  analysis options for ETDump sides\n"
        CLI_DIFF_NUMERICS_HELP
        "  --quiet              print nothing but errors (the exit status still tells)\n"
        "  --list-issue-codes   print the issue code registry, the diff's warnings\n"
        "                       included (Markdown), and exit\n"
        "Exit status: 0 compared (and the gate passed), 1 bad input or runs that cannot\n"
        "be compared, 2 usage, 3 a gate failed: NEW is slower beyond PCT, or a value's SNR\n"
        "is below DB.\n");
}

typedef struct side_spec {
    const char *path, *pte, *etrecord;
} side_spec;

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* NAME.pte or NAME.bpte beside an ETDump NAME.etdp (a malloc'd path), or NULL. */
static char *companion_program(const char *etdump)
{
    static const char *const exts[] = {".pte", ".bpte"};
    size_t n = strlen(etdump);
    const char *dot = strrchr(etdump, '.');
    const char *slash = strrchr(etdump, '/');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - etdump) : n;
    for (int i = 0; i < 2; i++) {
        char *p = malloc(stem + 6);
        if (!p)
            return NULL;
        memcpy(p, etdump, stem);
        strcpy(p + stem, exts[i]);
        if (access(p, R_OK) == 0)
            return p;
        free(p);
    }
    return NULL;
}

static etp_status file_sha(const char *path, char hex[ETP_SHA256_HEX], etp_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint64_t size;
    int bad = fd < 0 || etp_sha256_fd(fd, hex, &size);
    if (fd >= 0)
        close(fd);
    return bad ? etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "cannot read") : ETP_OK;
}

/* Side @p k: a bundle, or an ETDump analysed in memory; with --numerics the
 * analysis is kept in @p num with its debug buffer. */
static int load_side(const side_spec *sp, const etp_analysis_options *opt, etp_diff_side **out,
                     int quiet, cli_diff_numerics *num, int k)
{
    etp_error err;
    etp_error_clear(&err);
    etp_status s;
    etp_analysis_options o = *opt;
    if (num->on) {
        int rc = cli_diff_numerics_side(num, k, sp->path, is_dir(sp->path), &o);
        if (rc)
            return rc;
    }
    if (is_dir(sp->path)) {
        if (sp->pte || sp->etrecord)
            return cli_usage("diff", "%s is a bundle: --*-pte / --*-etrecord apply to ETDumps",
                             sp->path);
        s = etp_diff_side_from_bundle(sp->path, out, &err);
        return s ? cli_fail_status(s, &err) : ETP_EXIT_OK;
    }
    char *guessed = NULL;
    const char *pte = sp->pte;
    if (!pte) {
        guessed = companion_program(sp->path);
        if (!guessed && !sp->etrecord)
            return cli_error("%s: not a bundle directory, and no program beside it (give "
                             "--base-pte / --new-pte)",
                             sp->path);
        pte = guessed;
        if (pte && !quiet)
            fprintf(stderr, "etprof: %s: analysed with the program %s\n", sp->path, pte);
    }
    char rhex[ETP_SHA256_HEX];
    if (sp->etrecord && (s = file_sha(sp->etrecord, rhex, &err))) {
        free(guessed);
        return cli_fail_status(s, &err);
    }
    o.hash_program = 1;
    etp_inputs_spec spec = {.etdump = sp->path, .pte = pte, .etrecord = sp->etrecord, .prepare = &o};
    etp_inputs *in = NULL;
    etp_analysis *a = NULL;
    s = etp_inputs_open(&spec, &in, &err);
    if (!s)
        s = etp_analyze_prepared(etp_inputs_etdump(in), etp_inputs_take_prepared(in),
                                 etp_inputs_program(in), etp_inputs_etrecord(in), &o, &a, &err);
    if (!s)
        s = etp_diff_side_from_analysis(a, sp->path, sp->etrecord ? rhex : NULL, out, &err);
    if (num->on && !s) { /* the numerics read them later */
        num->a[k] = a;
        num->in[k] = in;
    } else {
        etp_analysis_free(a);
        etp_inputs_free(in);
    }
    free(guessed);
    return s ? cli_fail_status(s, &err) : ETP_EXIT_OK;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return !*s || *end;
}

int cmd_diff(int argc, char **argv)
{
    enum { O_TOP = 256, O_RANK, O_STAT, O_JSON, O_CSV, O_FORCE, O_PARENTS, O_FAIL, O_METRIC,
           O_NOSIG, O_BPTE, O_NPTE, O_BREC, O_NREC, O_METHOD, O_SUNIT, O_UNIT, O_HZ, O_RES,
           O_CONF, O_SEED, O_ANY, O_QUIET, O_IROWS, O_LIST };
    static const struct option opts[] = {
        {"top", required_argument, NULL, O_TOP},          {"rank-by", required_argument, NULL, O_RANK},
        {"stat", required_argument, NULL, O_STAT},        {"json", no_argument, NULL, O_JSON},
        {"csv", no_argument, NULL, O_CSV},                {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, O_FORCE},            {"parents", no_argument, NULL, O_PARENTS},
        {"fail-if-slower", required_argument, NULL, O_FAIL},
        {"metric", required_argument, NULL, O_METRIC},    {"no-significance", no_argument, NULL, O_NOSIG},
        {"base-pte", required_argument, NULL, O_BPTE},    {"new-pte", required_argument, NULL, O_NPTE},
        {"base-etrecord", required_argument, NULL, O_BREC},
        {"new-etrecord", required_argument, NULL, O_NREC},
        {"method", required_argument, NULL, O_METHOD},    {"source-unit", required_argument, NULL, O_SUNIT},
        {"unit", required_argument, NULL, O_UNIT},        {"cpu-hz", required_argument, NULL, O_HZ},
        {"resamples", required_argument, NULL, O_RES},    {"confidence", required_argument, NULL, O_CONF},
        {"seed", required_argument, NULL, O_SEED},        {"any-method", no_argument, NULL, O_ANY},
        {"quiet", no_argument, NULL, O_QUIET},            {"help", no_argument, NULL, 'h'},
        {"interval-rows", required_argument, NULL, O_IROWS},
        {"list-issue-codes", no_argument, NULL, O_LIST},
        CLI_DIFF_NUMERICS_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    etp_diff_options dopt;
    etp_diff_options_init(&dopt);
    etp_analysis_options aopt;
    etp_analysis_options_init(&aopt);
    cli_units units = {(int)aopt.source_unit, (int)aopt.target_unit, 0, 0};
    side_spec sides[2] = {{0}, {0}};
    etp_diff_text_style style = {0, 15, ETP_DIFF_RANK_ABS};
    const char *outdir = NULL, *metric = "method_execute";
    int json = 0, csv = 0, no_sig = 0, quiet = 0, c;
    double pct = -1;
    unsigned bundle_flags = 0;
    long long v;
    cli_diff_numerics num;
    cli_diff_numerics_init(&num);
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case O_TOP:
            if ((v = cli_parse_count(optarg)) < 0 || v > 10000000)
                return cli_usage("diff", "--top needs a count, got '%s'", optarg);
            style.top = (uint32_t)v;
            break;
        case O_RANK:
            if (etp_diff_rank_parse(optarg, &style.rank))
                return cli_usage("diff", "--rank-by is abs, delta, ratio, base or new, got '%s'", optarg);
            break;
        case O_STAT:
            if (strcmp(optarg, "avg") && strcmp(optarg, "p50"))
                return cli_usage("diff", "--stat is avg or p50, got '%s'", optarg);
            dopt.statistic = strcmp(optarg, "avg") ? ETP_DIFF_STAT_P50 : ETP_DIFF_STAT_AVG;
            break;
        case O_JSON: json = 1; break;
        case O_CSV: csv = 1; break;
        case 'o': outdir = optarg; break;
        case O_FORCE: bundle_flags |= ETP_BUNDLE_FORCE; break;
        case O_PARENTS: bundle_flags |= ETP_BUNDLE_PARENTS; break;
        case O_FAIL:
            if (parse_double(optarg, &pct) || !(pct >= 0) || pct > 1e6)
                return cli_usage("diff", "--fail-if-slower needs a percentage >= 0, got '%s'", optarg);
            break;
        case O_METRIC: metric = optarg; break;
        case O_NOSIG: no_sig = 1; break;
        case O_BPTE: sides[0].pte = optarg; break;
        case O_NPTE: sides[1].pte = optarg; break;
        case O_BREC: sides[0].etrecord = optarg; break;
        case O_NREC: sides[1].etrecord = optarg; break;
        case O_METHOD: aopt.method = optarg; break;
        case O_SUNIT:
        case O_UNIT:
        case O_HZ:
            if (cli_units_option("diff", &units,
                                 c == O_SUNIT ? "source-unit" : c == O_UNIT ? "unit" : "cpu-hz", optarg))
                return ETP_EXIT_USAGE;
            break;
        case O_RES:
            if ((v = cli_parse_count(optarg)) < 0 || v > 1000000)
                return cli_usage("diff", "--resamples needs a count up to 1000000, got '%s'", optarg);
            dopt.resamples = (uint32_t)v;
            break;
        case O_CONF:
            if (parse_double(optarg, &dopt.confidence) || !(dopt.confidence > 0 && dopt.confidence < 1))
                return cli_usage("diff", "--confidence needs a number between 0 and 1, got '%s'", optarg);
            break;
        case O_SEED: {
            char *end;
            dopt.seed = strtoull(optarg, &end, 10);
            if (!*optarg || *end || *optarg == '-')
                return cli_usage("diff", "--seed needs a non-negative integer, got '%s'", optarg);
            break;
        }
        case O_IROWS:
            if ((v = cli_parse_count(optarg)) < 0 || v > UINT32_MAX)
                return cli_usage("diff", "--interval-rows needs a count, got '%s'", optarg);
            dopt.interval_rows = (uint32_t)v;
            break;
        case O_ANY: dopt.compare_methods = 1; break;
        case O_QUIET: quiet = 1; break;
        case O_LIST: cli_list_issue_codes(); return ETP_EXIT_OK;
        case 'h': help(); return ETP_EXIT_OK;
        case CLI_DIFF_NUMERICS:
        case CLI_DIFF_BASE_DEBUG:
        case CLI_DIFF_NEW_DEBUG:
        case CLI_DIFF_RTOL:
        case CLI_DIFF_ATOL:
        case CLI_DIFF_SNR_BELOW:
        case CLI_DIFF_EXECUTION:
            if (cli_diff_numerics_option(&num, c, optarg))
                return ETP_EXIT_USAGE;
            break;
        default: return cli_usage("diff", "bad option");
        }
    }
    if (argc - optind != 2)
        return cli_usage("diff", "give BASE and NEW (bundle directories or ETDumps)");
    sides[0].path = argv[optind];
    sides[1].path = argv[optind + 1];
    if (json && csv)
        return cli_usage("diff", "--json and --csv both write to stdout: choose one");
    if (!outdir && bundle_flags)
        return cli_usage("diff", "--force and --parents need -o DIR");
    if (cli_units_check("diff", &units) || cli_diff_numerics_check(&num))
        return ETP_EXIT_USAGE;
    aopt.source_unit = (etp_unit)units.source;
    aopt.target_unit = (etp_unit)units.target;
    aopt.cpu_hz = units.cpu_hz;
    aopt.source_unit_given = units.source_given;
    style.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");

    etp_error err;
    etp_error_clear(&err);
    if (outdir) {
        etp_bundle_target kind;
        etp_status s = etp_bundle_probe(outdir, bundle_flags, &kind, &err);
        if (s && kind == ETP_BUNDLE_TARGET_OTHER)
            return cli_error("%s: not empty and not an etprof bundle; refusing to replace it "
                             "(--force replaces it)",
                             outdir);
        if (s)
            return cli_fail_status(s, &err);
    }
    etp_diff_side *side[2] = {NULL, NULL};
    etp_diff *d = NULL;
    char *gate = NULL, *oj = NULL, *nj = NULL;
    int rc = load_side(&sides[0], &aopt, &side[0], quiet, &num, 0);
    if (!rc)
        rc = load_side(&sides[1], &aopt, &side[1], quiet, &num, 1);
    if (!rc && num.on)
        rc = cli_diff_numerics_build(&num);
    if (rc)
        goto done;
    if (pct >= 0)
        dopt.interval_key = metric; /* the gated row always gets its interval */
    etp_status s = etp_diff_compute(side[0], side[1], &dopt, &d, &err);
    if (s) {
        rc = cli_fail_status(s, &err);
        goto done;
    }
    etp_diff_gate_outcome g = {0};
    if (pct >= 0) {
        /* A row this comparison lacks depends on the inputs: exit 1, not 2. */
        if (etp_diff_gate_decide(d, metric, pct, no_sig, &g, &err)) {
            rc = cli_fail(&err);
            goto done;
        }
        gate = etp_diff_gate_json(&g);
        if (!gate) {
            rc = cli_error("out of memory");
            goto done;
        }
    }
    if (outdir) {
        oj = etp_diff_options_json(&dopt, style.rank, style.top, pct >= 0 ? &g : NULL, &aopt);
        etp_diff_publish_options po = {outdir, bundle_flags, sides[0].path, sides[1].path, oj, gate,
                                       style.top, num.nd};
        if (!oj || (s = etp_diff_publish(d, &po, &err))) {
            rc = oj ? cli_fail_status(s, &err) : cli_error("out of memory");
            goto done;
        }
    }
    if (json || csv) {
        size_t len;
        if (json && num.nd && !(nj = etp_numeric_diff_json(num.nd, NULL))) {
            rc = cli_error("out of memory");
            goto done;
        }
        /* --numerics --csv: the numerics' rows (the timing rows are in diff_rows.csv of -o DIR). */
        char *text = json ? etp_diff_json_with_numerics(d, gate, nj, &len)
                     : num.nd ? etp_numeric_diff_csv(num.nd, &len)
                              : etp_diff_csv(d, &len);
        if (!text) {
            rc = cli_error("out of memory");
            goto done;
        }
        if (fwrite(text, 1, len, stdout) != len)
            rc = cli_error("write error on standard output");
        free(text);
    } else if (!quiet) {
        if ((s = etp_diff_write_text(d, &style, stdout, &err))) {
            rc = cli_fail_status(s, &err);
            goto done;
        }
        if (num.nd && (s = etp_numeric_diff_write_text(num.nd, stdout, &err))) {
            rc = cli_fail_status(s, &err);
            goto done;
        }
        if (pct >= 0)
            printf("\ngate: %s %s by more than %g%%? %s -> %s (exit %d)\n", metric,
                   "slower", pct, g.reason, g.failed ? "FAIL" : "pass", g.exit_status);
        if (num.has_snr_floor)
            printf("\ngate: SNR below %g dB? lowest %g dB -> %s\n", num.snr_floor, etp_numeric_diff_min_snr(num.nd),
                   cli_diff_numerics_gate_failed(&num) ? "FAIL (exit 3)" : "pass");
        if (outdir)
            printf("\nPublished %s (check it with `etprof verify %s`)\n", outdir, outdir);
    }
    if (fflush(stdout) && !rc)
        rc = cli_error("write error on standard output");
    if (!rc && g.failed)
        rc = g.exit_status;
    if (!rc && cli_diff_numerics_gate_failed(&num))
        rc = ETP_EXIT_GATE;
done:
    free(nj);
    cli_diff_numerics_free(&num);
    free(gate);
    free(oj);
    etp_diff_free(d);
    etp_diff_side_free(side[0]);
    etp_diff_side_free(side[1]);
    return rc;
}
