/* gen.c - `etprof gen etdump|demo`: synthetic ExecuTorch artifacts. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/gen_fleet.h"
#include "cli/gen_nx_stats.h"
#include "etprof/gen.h"

static void help(void)
{
    printf("usage: etprof gen etdump -o FILE [--executions R] [--instructions N]\n"
           "                         [--delegate-every K] [--seed S] [--backend xnnpack|vulkan]\n"
           "                         [--pte FILE] [--etrecord FILE] [--slowdown I:F]\n"
           "                         [--time-scale F] [--timing-seed S]\n"
           "                         [--debug-buffer FILE [--tensor-elements E] [--perturb I:R]]\n"
           "       etprof gen demo -o DIR [--executions R] [--seed S] [--flaws]\n"
           "       etprof gen vgf-stats --pte PROGRAM -o DIR [--executions R] [--seed S]\n"
           "       etprof gen fleet -o DIR [--runs N] [--devices D] [--models M] [--noise PCT]\n"
           "                        [--inject SERIES@RUN:FACTOR]... (`etprof gen fleet --help`)\n\n"
           "etdump: an ETDump as ExecuTorch's ETDumpGen writes it for a CNN-like method\n"
           "`forward` of N instructions (every K-th a DelegateCall), run R times; with\n"
           "--pte / --etrecord also the program and ETRecord it belongs to.\n"
           "  --executions R     Execute blocks (default 5)\n"
           "  --instructions N   instructions in the chain (default 100)\n"
           "  --delegate-every K every K-th instruction is a DelegateCall (default 10, 0: none)\n"
           "  --seed S           PRNG seed (default 1); same arguments, same bytes\n"
           "  --backend B        xnnpack: string delegate ids, us durations (default);\n"
           "                     vulkan: int delegate ids mapped in the ETRecord\n"
           "  --slowdown I:F     instruction I takes F times its usual time (same random\n"
           "                     draws otherwise: a known regression for `etprof diff`)\n"
           "  --time-scale F     every duration times F (a slower or faster device; default 1)\n"
           "  --timing-seed S    seed of the timings alone: same program and ETRecord,\n"
           "                     another run of them (default: --seed drives both)\n"
           "  --debug-buffer FILE log values too, as --dump_intermediate_outputs and\n"
           "                     --dump_outputs do: each KernelCall's output (float32, E\n"
           "                     elements, default 256; the same in every execution) and\n"
           "                     the method's output, their bytes in FILE\n"
           "  --perturb I:R      from KernelCall instruction I on, the logged values are off\n"
           "                     by a relative error R, growing by R/10 per instruction (a\n"
           "                     numerics fault for `etprof diff --numerics` to find)\n\n"
           "demo: the small fixed triple DIR/model.pte, DIR/model.etrecord, DIR/run.etdp\n"
           "(DIR is created if missing); R defaults to 5, S to 1. Its analysis is VALID;\n"
           "--flaws writes the variant that shows the warnings (a delegate event and a\n"
           "debug handle shared by two operators, a handle no node has, a view with no\n"
           "instruction).\n\n"
           "fleet: a labelled history of published bundles (models x devices x runs) with\n"
           "known injected regressions and DIR/fleet.json saying where they are, to feed\n"
           "`etprof db ingest`; its options: `etprof gen fleet --help`.\n");
}

static int parse_u32(const char *s, uint32_t *out)
{
    long long v = cli_parse_count(s);
    if (v < 0 || v > (long long)UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

static void report(const char *path, uint64_t bytes, const char *what)
{
    printf("wrote %s: %" PRIu64 " bytes%s%s\n", path, bytes, what ? ", " : "", what ? what : "");
}

static int gen_etdump(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"executions", required_argument, NULL, 'r'},
        {"instructions", required_argument, NULL, 'n'},
        {"delegate-every", required_argument, NULL, 'k'},
        {"seed", required_argument, NULL, 's'},
        {"backend", required_argument, NULL, 'b'},
        {"pte", required_argument, NULL, 'p'},
        {"etrecord", required_argument, NULL, 'e'},
        {"slowdown", required_argument, NULL, 'S'},
        {"time-scale", required_argument, NULL, 'T'},
        {"timing-seed", required_argument, NULL, 'Z'},
        {"debug-buffer", required_argument, NULL, 'B'},
        {"tensor-elements", required_argument, NULL, 'E'},
        {"perturb", required_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    etp_gen_etdump_opts o;
    etp_gen_etdump_defaults(&o);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': o.etdump_path = optarg; break;
        case 'p': o.pte_path = optarg; break;
        case 'e': o.etrecord_path = optarg; break;
        case 'r':
            if (parse_u32(optarg, &o.executions))
                return cli_usage("gen", "--executions needs a count, got '%s'", optarg);
            break;
        case 'n':
            if (parse_u32(optarg, &o.instructions) || o.instructions < 1 ||
                o.instructions > ETP_GEN_MAX_INSTRUCTIONS)
                return cli_usage("gen", "--instructions needs 1..%u, got '%s'",
                                 ETP_GEN_MAX_INSTRUCTIONS, optarg);
            break;
        case 'k':
            if (parse_u32(optarg, &o.delegate_every))
                return cli_usage("gen", "--delegate-every needs a count, got '%s'", optarg);
            break;
        case 's':
            if (parse_u64(optarg, &o.seed))
                return cli_usage("gen", "--seed needs a non-negative integer, got '%s'", optarg);
            break;
        case 'b':
            if (!strcmp(optarg, "xnnpack"))
                o.backend = ETP_GEN_XNNPACK;
            else if (!strcmp(optarg, "vulkan"))
                o.backend = ETP_GEN_VULKAN;
            else
                return cli_usage("gen", "--backend is xnnpack or vulkan, got '%s'", optarg);
            break;
        case 'S': {
            char *end;
            unsigned long i = strtoul(optarg, &end, 10);
            o.slow_instruction = (uint32_t)i;
            o.slow_factor = *end == ':' ? strtod(end + 1, &end) : 0;
            if (*end || !(o.slow_factor > 0) || o.slow_factor > 1e6 || i > UINT32_MAX)
                return cli_usage("gen", "--slowdown needs INSTRUCTION:FACTOR, got '%s'", optarg);
            break;
        }
        case 'T': {
            char *end;
            o.time_scale = strtod(optarg, &end);
            if (end == optarg || *end || !(o.time_scale > 0) || o.time_scale > 1e6)
                return cli_usage("gen", "--time-scale needs a factor above 0 (at most 1e6), got '%s'",
                                 optarg);
            break;
        }
        case 'Z':
            if (parse_u64(optarg, &o.timing_seed))
                return cli_usage("gen", "--timing-seed needs a non-negative integer, got '%s'", optarg);
            break;
        case 'B': o.debug_buffer_path = optarg; break;
        case 'E':
            if (parse_u32(optarg, &o.tensor_elements) || o.tensor_elements < 1 || o.tensor_elements > (1u << 28))
                return cli_usage("gen", "--tensor-elements needs 1..%u, got '%s'", 1u << 28, optarg);
            break;
        case 'P': {
            char *end;
            unsigned long i = strtoul(optarg, &end, 10);
            o.perturb_instruction = (uint32_t)i;
            o.perturb = *end == ':' ? strtod(end + 1, &end) : 0;
            if (*end || !(o.perturb != 0) || !(o.perturb > -1 && o.perturb < 1e6) || i > UINT32_MAX)
                return cli_usage("gen", "--perturb needs INSTRUCTION:RELATIVE_ERROR, got '%s'", optarg);
            break;
        }
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("gen", argv);
        }
    }
    if (optind != argc)
        return cli_usage("gen", "unexpected argument '%s'", argv[optind]);
    if (!o.etdump_path)
        return cli_usage("gen", "gen etdump needs -o FILE");
    if ((o.tensor_elements || o.perturb != 0) && !o.debug_buffer_path)
        return cli_usage("gen", "--tensor-elements and --perturb need --debug-buffer FILE");
    etp_error err;
    etp_error_clear(&err);
    etp_gen_result res;
    etp_status st = etp_gen_etdump(&o, &res, &err);
    if (st == ETP_E_USAGE)
        return cli_usage("gen", "%s", err.message);
    if (st)
        return cli_fail(&err);
    char what[160];
    snprintf(what, sizeof what,
             "1 load + %u executions, %" PRIu64 " events, %u instructions (%u delegate calls)",
             o.executions, res.events, res.kernel_calls + res.delegate_calls, res.delegate_calls);
    report(o.etdump_path, res.etdump_bytes, what);
    if (o.pte_path)
        report(o.pte_path, res.pte_bytes, NULL);
    if (o.etrecord_path)
        report(o.etrecord_path, res.etrecord_bytes, NULL);
    if (o.debug_buffer_path) {
        snprintf(what, sizeof what, "%" PRIu64 " logged tensors", res.tensors);
        report(o.debug_buffer_path, res.debug_buffer_bytes, what);
    }
    return ETP_EXIT_OK;
}

static int gen_demo(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"executions", required_argument, NULL, 'r'},
        {"seed", required_argument, NULL, 's'},
        {"flaws", no_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = NULL;
    unsigned flags = 0;
    uint32_t runs = 5;
    uint64_t seed = 1;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': dir = optarg; break;
        case 'f': flags |= ETP_GEN_DEMO_FLAWS; break;
        case 'r':
            if (parse_u32(optarg, &runs))
                return cli_usage("gen", "--executions needs a count, got '%s'", optarg);
            break;
        case 's':
            if (parse_u64(optarg, &seed))
                return cli_usage("gen", "--seed needs a non-negative integer, got '%s'", optarg);
            break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_bad_option("gen", argv);
        }
    }
    if (optind != argc)
        return cli_usage("gen", "unexpected argument '%s'", argv[optind]);
    if (!dir)
        return cli_usage("gen", "gen demo needs -o DIR");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return cli_error("%s: cannot create directory: %s", dir, strerror(errno));
    etp_error err;
    etp_error_clear(&err);
    etp_gen_result res;
    etp_status st = etp_gen_demo_ex(dir, runs, seed, flags, &res, &err);
    if (st)
        return cli_fail_status(st, &err);
    printf("wrote %s/model.pte (%" PRIu64 " bytes), %s/model.etrecord (%" PRIu64
           " bytes), %s/run.etdp (%" PRIu64 " bytes, 1 load + %u executions)\n",
           dir, res.pte_bytes, dir, res.etrecord_bytes, dir, res.etdump_bytes, runs);
    return ETP_EXIT_OK;
}

int cmd_gen(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("gen", "gen needs a kind: etdump, demo, vgf-stats or fleet");
    const char *kind = argv[1];
    if (!strcmp(kind, "-h") || !strcmp(kind, "--help")) {
        help();
        return ETP_EXIT_OK;
    }
    if (!strcmp(kind, "etdump"))
        return gen_etdump(argc - 1, argv + 1);
    if (!strcmp(kind, "demo"))
        return gen_demo(argc - 1, argv + 1);
    if (!strcmp(kind, "vgf-stats"))
        return cli_gen_nx_stats(argc - 1, argv + 1);
    if (!strcmp(kind, "fleet"))
        return cli_gen_fleet(argc - 1, argv + 1);
    return cli_usage("gen", "unknown kind '%s' (etdump, demo, vgf-stats or fleet)", kind);
}
