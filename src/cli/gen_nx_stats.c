/* gen_nx_stats.c - `etprof gen vgf-stats --pte PROGRAM -o DIR`: ETDumps
 * with VGF_NEURAL_STATISTICS events for a VGF-delegated program. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/gen_nx_stats.h"
#include "etprof/gen_nx_stats.h"

static void help(void)
{
    printf("usage: etprof gen vgf-stats --pte PROGRAM -o DIR [--executions R] [--seed S]\n\n"
           "ETDumps of PROGRAM's VGF delegate call recording VGF_NEURAL_STATISTICS (synthetic\n"
           "counters on the program's own VGF graph): every device (Mali-G1, Mali-G2) x mode\n"
           "(0, 1) x wrapper version (1, 2), and coverage_gap, lost_stripe, unavailable,\n"
           "malformed_blob, misaligned_blob, missing_debug_database; vgf_stats.etrecord (its\n"
           "delegate map names most TOSA ops, by SPIR-V result id or label) and\n"
           "coverage_gap.pte (the VGF called twice; coverage_gap.etdp ran it, the second\n"
           "call without statistics in one execution). DIR is created if missing.\n"
           "  --executions R   Execute blocks per file (default 3, at least 2)\n"
           "  --seed S         PRNG seed of the counter words (default 1)\n");
}

int cli_gen_nx_stats(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"pte", required_argument, NULL, 'p'},
        {"executions", required_argument, NULL, 'r'}, {"seed", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    etp_gen_nx_opts o = {NULL, NULL, 3, 1};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'o': o.out_dir = optarg; break;
        case 'p': o.pte_path = optarg; break;
        case 'r': {
            long long v = cli_parse_count(optarg);
            if (v < 2 || v > 10000)
                return cli_usage("gen", "--executions needs 2..10000, got '%s'", optarg);
            o.executions = (uint32_t)v;
            break;
        }
        case 's':
            errno = 0;
            o.seed = strtoull(optarg, &end, 0);
            if (!*optarg || *optarg == '-' || *end || errno)
                return cli_usage("gen", "--seed needs a non-negative integer, got '%s'", optarg);
            break;
        case 'h': help(); return ETP_EXIT_OK;
        default: return cli_usage("gen", "bad option");
        }
    }
    if (optind != argc)
        return cli_usage("gen", "unexpected argument '%s'", argv[optind]);
    if (!o.out_dir || !o.pte_path)
        return cli_usage("gen", "gen vgf-stats needs --pte PROGRAM and -o DIR");
    if (mkdir(o.out_dir, 0777) != 0 && errno != EEXIST)
        return cli_error("%s: cannot create directory: %s", o.out_dir, strerror(errno));
    etp_error err;
    etp_error_clear(&err);
    etp_gen_nx_result res;
    etp_status st = etp_gen_nx_stats(&o, &res, &err);
    if (st)
        return cli_fail_status(st, &err);
    printf("wrote %u files into %s (%" PRIu64 " bytes): VGF instruction %d, %u TOSA ops, %u fused ops, "
           "%u chains, %u cascades, %u stripes, %u executions each\n",
           res.files, o.out_dir, res.bytes, (int)res.instruction_id, res.tosa_ops, res.fused_ops, res.chains,
           res.cascades, res.stripes, o.executions);
    return ETP_EXIT_OK;
}
