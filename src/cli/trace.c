/* trace.c - `etprof trace ETDUMP [--pte PROGRAM] ... -o trace.json`: a
 * Chrome/Perfetto timeline of an ETDump (layout described in etprof/trace.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "etprof/inputs.h"
#include "etprof/trace.h"

static void help(void)
{
    printf("usage: etprof trace ETDUMP [PROGRAM] [ETRECORD] [--method NAME]\n"
           "                    [--source-unit ns|us|ms|s|cycles] [--no-debug-events]\n"
           "                    [--executions A-B | --first N] [--force] [--quiet] [-o FILE]\n\n"
           "Write the ETDump as Chrome Trace Event JSON for ui.perfetto.dev or chrome://tracing:\n"
           "one process per method, one track per load and per execution, events nested\n"
           "Method::execute > OPERATOR_CALL/DELEGATE_CALL > native_call_*/delegate events.\n\n"
           "Files go in any order, recognised by their bytes (or --etdump, --pte, --etrecord).\n"
           "  -o, --output FILE  where to write the trace (default, or '-': standard output)\n"
           "  --pte PROGRAM      name instructions from the program (.pte or .bpte) and\n"
           "                     infer each block's method\n"
           "  --method NAME      use this method for every block (needs --pte)\n"
           "  --etrecord R       add each event's debug handles (args.debug_handles) from the\n"
           "                     ETRecord's maps; delegate events only through the delegate map\n"
           "  --source-unit U    unit of the ETDump's ticks (default ns; the file does not say);\n"
           "                     with cycles, ts/dur are cycles, not microseconds\n"
           "  --no-debug-events  leave out debug events (by default: instant events at the end\n"
           "                     of their instruction)\n"
           "  --executions A-B   write only executions A to B (1-based, inclusive; or one, N)\n"
           "  --first N          write only the first N executions\n"
           "  --force            write a trace over 200 MB even without a selection\n"
           "  -q, --quiet        no progress line (shown only when stderr is a terminal)\n\n"
           "An execution is one Execute block of the ETDump (a run of the method), counted\n"
           "from 1 in the file's order: with one method, execution N is the track\n"
           "'execute N'. The load_method blocks are always written; a selection keeps the\n"
           "track names of the whole trace and is recorded in otherData. Without a selection,\n"
           "a trace estimated over 200 MB (which viewers struggle to open) is not written\n"
           "unless --force; the error says its size.\n\n"
           "Delegate events whose times are not on the host clock (start 0, or outside their\n"
           "DELEGATE_CALL) go on a per-execution 'duration only' track. Allocation events carry\n"
           "no time and are left out (counted in otherData).\n");
}

/* What cli_write_atomic() writes: the trace of one ETDump. */
typedef struct trace_job {
    const etp_etdump *d;
    const etp_trace_options *opt;
    const char *input_name;
    etp_trace_counts *counts;
} trace_job;

/* Parse "A-B" or "N" (1-based, A <= B) into *first, *last; -1 if malformed. */
static int parse_range(const char *s, uint32_t *first, uint32_t *last)
{
    unsigned long v[2];
    int n = 0;
    const char *p = s;
    for (;;) {
        if (*p < '0' || *p > '9')
            return -1;
        char *end;
        errno = 0;
        v[n] = strtoul(p, &end, 10);
        if (errno || v[n] == 0 || v[n] > UINT32_MAX)
            return -1;
        n++;
        if (*end == '\0')
            break;
        if (*end != '-' || n == 2)
            return -1;
        p = end + 1;
    }
    *first = (uint32_t)v[0];
    *last = (uint32_t)v[n - 1];
    return 0;
}

/* Traces over this size are written only when asked for (--force). */
#define TRACE_SIZE_LIMIT 200000000ull

static void trace_progress(void *ctx, double fraction)
{
    (void)ctx;
    cli_progress_update(fraction);
}

static etp_status fill_trace(FILE *fp, void *ctx, etp_error *err)
{
    const trace_job *j = ctx;
    return etp_trace_write(j->d, j->opt, j->input_name, fp, j->counts, err);
}

/* Debug handles of an event from the ETRecord: a delegate event's own ids
 * through the delegate map when it has them, else the instruction's entry
 * of the debug handle map. The method is the block's (or the only one). */
typedef struct rec_ctx {
    const etp_etrecord *r;
    const char *method;       /* fallback when the block's method is unknown */
} rec_ctx;

static uint32_t etrecord_handles(void *ctx, const etp_trace_site *site, const int64_t **handles)
{
    const rec_ctx *rc = ctx;
    const char *m = site->plan && site->plan->name ? site->plan->name : rc->method;
    const etp_method_maps *mm = m ? etp_etrecord_maps(rc->r, m) : NULL;
    if (!mm || site->chain_index != 0)
        return 0;
    if (site->is_delegated) {
        const etp_instr_delegate *dm = etp_etrecord_instr_delegate(mm, site->instruction_id);
        char idtext[24];
        const char *id = site->delegate_id_str;
        if (!id) {
            snprintf(idtext, sizeof idtext, "%d", site->delegate_id_int);
            id = idtext;
        }
        for (uint32_t k = 0; dm && k < dm->id_count; k++)
            if (!strcmp(dm->ids[k].delegate_id, id)) {
                *handles = dm->ids[k].handles.handles;
                return dm->ids[k].handles.count;
            }
        return 0; /* never guess: an unmapped delegate event gets no handles */
    }
    const etp_handle_list *hl = etp_etrecord_instr_handles(mm, site->instruction_id);
    if (!hl)
        return 0;
    *handles = hl->handles;
    return hl->count;
}

int cmd_trace(int argc, char **argv)
{
    static const struct option opts[] = {
        {"pte", required_argument, NULL, 'p'},
        {"method", required_argument, NULL, 'm'},
        {"source-unit", required_argument, NULL, 's'},
        {"no-debug-events", no_argument, NULL, 'n'},
        {"etrecord", required_argument, NULL, 'r'},
        {"etdump", required_argument, NULL, 'e'},
        {"output", required_argument, NULL, 'o'},
        {"executions", required_argument, NULL, 'x'},
        {"first", required_argument, NULL, 'f'},
        {"force", no_argument, NULL, 'F'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    etp_trace_options opt;
    etp_trace_options_init(&opt);
    const char *pte = NULL, *out = NULL, *rec = NULL, *etdump = NULL;
    int c, force = 0, quiet = 0, ranges = 0;
    long long n;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hqo:", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pte = optarg; break;
        case 'm': opt.method = optarg; break;
        case 's':
            if (etp_unit_parse(optarg, &opt.source_unit))
                return cli_usage("trace", "unknown unit '%s' for --source-unit", optarg);
            break;
        case 'n': opt.debug_events = 0; break;
        case 'r': rec = optarg; break;
        case 'e': etdump = optarg; break;
        case 'o': out = optarg; break;
        case 'x':
            if (parse_range(optarg, &opt.first_execution, &opt.last_execution))
                return cli_usage("trace", "--executions wants A-B or N (from 1, A <= B), not '%s'",
                                 optarg);
            if (opt.first_execution > opt.last_execution)
                return cli_usage("trace", "--executions %s ends before it starts", optarg);
            ranges++;
            break;
        case 'f':
            n = cli_parse_count(optarg);
            if (n < 1 || n > UINT32_MAX)
                return cli_usage("trace", "--first wants a count from 1, not '%s'", optarg);
            opt.first_execution = 1;
            opt.last_execution = (uint32_t)n;
            ranges++;
            break;
        case 'F': force = 1; break;
        case 'q': quiet = 1; break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("trace", argv);
        }
    }
    /* Inputs in any order, sorted by their bytes (cli_inputs.c). */
    cli_inputs ins;
    memset(&ins, 0, sizeof ins);
    int bad_in = etdump ? cli_inputs_set("trace", &ins, CLI_IN_ETDUMP, etdump) : ETP_EXIT_OK;
    if (!bad_in && pte)
        bad_in = cli_inputs_set("trace", &ins, CLI_IN_PTE, pte);
    if (!bad_in && rec)
        bad_in = cli_inputs_set("trace", &ins, CLI_IN_ETRECORD, rec);
    if (!bad_in)
        bad_in = cli_inputs_check(&ins);
    for (; !bad_in && optind < argc; optind++)
        bad_in = cli_inputs_add("trace", &ins, argv[optind],
                                CLI_ACCEPT(CLI_IN_ETDUMP) | CLI_ACCEPT(CLI_IN_PTE) |
                                    CLI_ACCEPT(CLI_IN_ETRECORD));
    if (bad_in)
        return bad_in;
    pte = ins.path[CLI_IN_PTE];
    rec = ins.path[CLI_IN_ETRECORD];
    int missing = cli_inputs_require("trace", &ins, CLI_IN_ETDUMP, "trace RUN.etdp [PROGRAM] [ETRECORD]");
    if (missing)
        return missing;
    /* As `graph`: without -o (or with -o -) the output goes to standard output. */
    if (!out)
        out = "-";
    if (opt.method && !pte)
        return cli_usage("trace", "--method needs --pte");
    if (ranges > 1)
        return cli_usage("trace", "give one of --executions and --first, once");
    /* No progress line in the middle of a trace written to the terminal. */
    cli_progress_init(quiet || (!strcmp(out, "-") && isatty(STDOUT_FILENO)));

    const char *dump_path = ins.path[CLI_IN_ETDUMP];
    etp_error err;
    etp_error_clear(&err);
    /* The trace reads every event: the ETDump is verified whole. */
    etp_inputs_spec spec = {.etdump = dump_path, .pte = pte, .etrecord = rec, .verify_etdump = 1};
    etp_inputs *inputs;
    etp_status s = etp_inputs_open(&spec, &inputs, &err);
    if (s)
        return cli_fail_status(s, &err);
    const etp_etdump *d = etp_inputs_etdump(inputs);
    const etp_etrecord *r = etp_inputs_etrecord(inputs);
    opt.program = etp_inputs_program(inputs);
    rec_ctx rctx = {NULL, NULL};
    if (r) {
        rctx.r = r;
        rctx.method = opt.method ? opt.method : r->method_count == 1 ? r->methods[0].method : NULL;
        opt.resolve_handles = etrecord_handles;
        opt.resolve_ctx = &rctx;
    }
    const char *slash = strrchr(dump_path, '/');
    etp_trace_counts counts;
    memset(&counts, 0, sizeof counts);
    int rc = ETP_EXIT_OK;
    if (!ranges && !force) {
        /* Priced from two executions' worth of writing: nothing is written
         * before the answer is known. */
        uint64_t bytes = 0;
        s = etp_trace_estimate(d, &opt, &bytes, &counts, &err);
        if (s)
            rc = cli_fail_status(s, &err);
        else if (bytes > TRACE_SIZE_LIMIT)
            rc = cli_error("trace of %u execution%s would be ~%llu MB; select with --first N or "
                           "--executions A-B, or pass --force",
                           counts.executions, counts.executions == 1 ? "" : "s",
                           (unsigned long long)((bytes + 500000) / 1000000));
        if (rc != ETP_EXIT_OK) {
            etp_inputs_free(inputs);
            return rc;
        }
    }
    trace_job job = {d, &opt, slash ? slash + 1 : dump_path, &counts};
    opt.progress = trace_progress;
    cli_progress_start("writing trace");
    rc = cli_write_atomic(out, fill_trace, &job);
    cli_progress_done();
    if (rc == ETP_EXIT_OK && ranges && opt.last_execution > counts.executions)
        fprintf(stderr, "etprof: warning: the ETDump holds %u execution%s: wrote %u-%u\n",
                counts.executions, counts.executions == 1 ? "" : "s", opt.first_execution,
                counts.executions);
    if (rc == ETP_EXIT_OK && counts.dropped)
        fprintf(stderr,
                "etprof: warning: %llu event(s) overlap others too often to be placed and were "
                "left out (counted in otherData.dropped_events)\n",
                (unsigned long long)counts.dropped);
    etp_inputs_free(inputs);
    return rc;
}
