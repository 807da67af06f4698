/* bench.c - decode + inspect (+ analyze) throughput and peak memory.
 *
 *   etprof_bench ETDUMP [--pte PROGRAM] [--etrecord R] [--repeat N]
 *
 * Prints wall time per phase (best of N), MB/s over the ETDump's size and the
 * process's peak RSS: opening with full verification then decoding (two
 * passes over the events), and the one pass `etprof analyze` and `inspect`
 * make (a deferred open, events checked while decoded). Generate inputs with `etprof gen etdump` (see
 * bench/run.sh). Not a test: timings are reported, never asserted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "analysis/findings/findings_internal.h"
#include "cli/cli.h"
#include "etprof/analysis.h"
#include "etprof/etdump.h"
#include "etprof/etrecord.h"
#include "etprof/inspect.h"
#include "etprof/program.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int fail(const etp_error *e)
{
    char buf[1200];
    fprintf(stderr, "etprof_bench: %s\n", etp_error_format(e, buf, sizeof buf));
    return 1;
}

int main(int argc, char **argv)
{
    const char *dump = NULL, *pte = NULL, *rec = NULL;
    int repeat = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pte") && i + 1 < argc)
            pte = argv[++i];
        else if (!strcmp(argv[i], "--etrecord") && i + 1 < argc)
            rec = argv[++i];
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!dump)
            dump = argv[i];
        else {
            fprintf(stderr, "usage: etprof_bench ETDUMP [--pte P] [--etrecord R] [--repeat N]\n");
            return 2;
        }
    }
    if (!dump || repeat < 1) {
        fprintf(stderr, "usage: etprof_bench ETDUMP [--pte P] [--etrecord R] [--repeat N]\n");
        return 2;
    }
    /* Heap set up as `etprof` sets it up (sized from the same files). */
    cli_tune_malloc(argv + 1);
    etp_error err;
    double best_findings = 1e30;
    uint32_t n_findings = 0;
    double best_open = 1e30, best_inspect = 1e30, best_analyze = 1e30, best_total = 1e30;
    double best_pte = 1e30, best_rec = 1e30, best_one_pass = 1e30;
    size_t size = 0;
    uint64_t events = 0;
    long first_rss = 0;
    for (int it = 0; it < repeat; it++) {
        double t0 = now();
        etp_etdump *d;
        if (etp_etdump_open(dump, &d, &err))
            return fail(&err);
        double t1 = now();
        size = etp_etdump_size(d);
        etp_inspect *in;
        if (etp_inspect_run(d, NULL, &in, &err))
            return fail(&err);
        double t2 = now();
        events = 0;
        for (uint32_t b = 0; b < in->block_count; b++)
            for (uint32_t r = 0; r < in->blocks[b].row_count; r++)
                events += in->blocks[b].rows[r].sample_count;
        etp_inspect_free(in);
        double t3 = now(), t4 = t3;
        if (pte || rec) {
            etp_program *p = NULL;
            etp_etrecord *r = NULL;
            if (pte && etp_program_open(pte, &p, &err))
                return fail(&err);
            double tp = now();
            if (rec && etp_etrecord_open(rec, &r, &err))
                return fail(&err);
            double tr = now();
            if (tp - t3 < best_pte)
                best_pte = tp - t3;
            if (tr - tp < best_rec)
                best_rec = tr - tp;
            etp_analysis_options o;
            etp_analysis_options_init(&o);
            o.source_unit_given = 1;
            etp_analysis *a;
            if (etp_analyze(d, p, r, &o, &a, &err))
                return fail(&err);
            t4 = now();
            /* The findings again, alone (the analysis above ran them once):
             * what they add to analyze. */
            etp_finding_list fl = {0};
            double f0 = now();
            if (finding_rules_run(a, NULL, &fl, &err))
                return fail(&err);
            double f1 = now();
            if (f1 - f0 < best_findings)
                best_findings = f1 - f0;
            n_findings = fl.count;
            etp_finding_list_free(&fl);
            etp_analysis_free(a);
            etp_etrecord_free(r);
            etp_program_free(p);
        }
        etp_etdump_free(d);
        double t5 = now();
        etp_etdump *dd;
        if (etp_etdump_open_deferred(dump, &dd, &err))
            return fail(&err);
        etp_inspect *din;
        if (etp_inspect_run(dd, NULL, &din, &err))
            return fail(&err);
        double t6 = now();
        etp_inspect_free(din);
        etp_etdump_free(dd);
        if (t6 - t5 < best_one_pass)
            best_one_pass = t6 - t5;
        if (t1 - t0 < best_open)
            best_open = t1 - t0;
        if (t2 - t1 < best_inspect)
            best_inspect = t2 - t1;
        if (t4 - t3 < best_analyze)
            best_analyze = t4 - t3;
        if (it == 0)
            first_rss = peak_rss_kb(); /* later passes only add allocator slack */
        double total = (t2 - t0) + (t4 - t3);
        if (total < best_total)
            best_total = total;
    }
    double mb = (double)size / 1e6;
    printf("etdump            %s (%.1f MB, %llu profile events)\n", dump, mb, (unsigned long long)events);
    printf("open+verify       %8.1f ms  %8.0f MB/s\n", best_open * 1e3, mb / best_open);
    printf("inspect           %8.1f ms\n", best_inspect * 1e3);
    printf("decode+inspect    %8.1f ms  %8.0f MB/s\n", (best_open + best_inspect) * 1e3,
           mb / (best_open + best_inspect));
    printf("one pass          %8.1f ms  %8.0f MB/s  (deferred open + inspect, as the CLI does)\n",
           best_one_pass * 1e3, mb / best_one_pass);
    if (pte || rec)
        printf("analyze (+load)   %8.1f ms  (program %.1f ms, ETRecord %.1f ms, analysis %.1f ms)\n",
               best_analyze * 1e3, best_pte * 1e3, best_rec * 1e3,
               (best_analyze - best_pte - best_rec) * 1e3);
    if (pte || rec)
        printf("findings          %8.2f ms  (%u findings; %.2f%% of analyze, already inside it)\n",
               best_findings * 1e3, n_findings, 100.0 * best_findings / best_analyze);
    printf("peak RSS          %8.1f MB  (%.2fx the ETDump; first pass)\n", (double)first_rss / 1024.0,
           (double)first_rss * 1024.0 / (double)size);
    return 0;
}
