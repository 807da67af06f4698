/* bench_writers.c - what each writer of a bundle costs on its own.
 *
 *   bench_writers ETDUMP PROGRAM ETRECORD [REPEAT]
 *
 * Analyses the run once, then writes each file of a bundle REPEAT times
 * (default 5) into a stream that only counts bytes, one thread, nothing hashed: the best time
 * and MB/s of each writer and of the model_explorer/ preparation. Where
 * `bench_publish` times whole processes (noisy on a shared machine, and
 * two writers at a time), this isolates the formatting work, so that a
 * change to one writer shows in its own line. Not a test: timings are
 * reported, never asserted. */
#define _GNU_SOURCE /* fopencookie */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "etprof/analysis.h"
#include "etprof/etdump.h"
#include "etprof/etrecord.h"
#include "etprof/program.h"
#include "outputs/bundle/publish_internal.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(const etp_error *e)
{
    char buf[1200];
    fprintf(stderr, "bench_writers: %s\n", etp_error_format(e, buf, sizeof buf));
    return 1;
}

typedef struct timing {
    char name[64];
    double best;
    long bytes;
} timing;

/* A stream that only counts what it is given. */
static ssize_t count_write(void *c, const char *buf, size_t n)
{
    (void)buf;
    *(long *)c += (long)n;
    return (ssize_t)n;
}

/* Best of @p repeat runs of @p fill into a counting stream; -1 when a run
 * failed. */
static int time_fill(int (*fill)(FILE *, void *, etp_error *), void *ctx, int repeat, timing *t)
{
    t->best = 1e30;
    for (int i = 0; i < repeat; i++) {
        long count = 0;
        FILE *fp = fopencookie(&count, "w", (cookie_io_functions_t){NULL, count_write, NULL, NULL});
        if (!fp)
            return -1;
        static char buf[1 << 16];
        setvbuf(fp, buf, _IOFBF, sizeof buf);
        etp_error err;
        etp_error_clear(&err);
        double t0 = now();
        int rc = fill(fp, ctx, &err);
        fflush(fp);
        double dt = now() - t0;
        fclose(fp);
        t->bytes = count;
        if (rc)
            return -1;
        if (dt < t->best)
            t->best = dt;
    }
    return 0;
}

static int fill_csv(FILE *fp, void *ctx, etp_error *err)
{
    (void)err;
    etp_csvw w;
    etp_csvw_init_file(&w, fp);
    etp_operators_csv_write(ctx, &w);
    return etp_csvw_finish(&w);
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: bench_writers ETDUMP PROGRAM ETRECORD [REPEAT]\n");
        return 2;
    }
    int repeat = argc == 5 ? atoi(argv[4]) : 5;
    if (repeat < 1)
        repeat = 1;
    cli_tune_malloc(argv + 1);
    etp_error err;
    etp_etdump *d;
    etp_program *p;
    etp_etrecord *r;
    if (etp_etdump_open(argv[1], &d, &err) || etp_program_open(argv[2], &p, &err) ||
        etp_etrecord_open(argv[3], &r, &err))
        return fail(&err);
    etp_analysis_options o;
    etp_analysis_options_init(&o);
    o.source_unit_given = 1;
    etp_analysis *a;
    if (etp_analyze(d, p, r, &o, &a, &err))
        return fail(&err);
    etp_publish_options po;
    memset(&po, 0, sizeof po);
    po.operators_csv = 1;
    po.model_explorer = 1;
    po.etdump_path = argv[1];
    po.pte_path = argv[2];
    po.etrecord_path = argv[3];

    timing t[ETP_PUBLISH_ME_STREAMS + 2];
    size_t nt = 0;
    double prep = 1e30;
    etp_publish_me *me = NULL;
    for (int i = 0; i < repeat; i++) {
        etp_publish_me_free(me);
        double t0 = now();
        if (etp_publish_me_prepare(a, &po, &me, &err))
            return fail(&err);
        double dt = now() - t0;
        prep = dt < prep ? dt : prep;
    }
    snprintf(t[nt].name, sizeof t[nt].name, "operators.csv");
    if (time_fill(fill_csv, a, repeat, &t[nt]))
        return fprintf(stderr, "bench_writers: operators.csv failed\n"), 1;
    nt++;
    etp_bundle_stream st[ETP_PUBLISH_ME_STREAMS];
    size_t ns = me ? etp_publish_me_streams(me, st) : 0;
    for (size_t k = 0; k < ns; k++, nt++) {
        snprintf(t[nt].name, sizeof t[nt].name, "%s", st[k].rel);
        if (time_fill(st[k].fill, st[k].ctx, repeat, &t[nt]))
            return fprintf(stderr, "bench_writers: %s failed\n", st[k].rel), 1;
    }
    double total = prep;
    long bytes = 0;
    printf("writers of %s (best of %d, one thread, nothing written or hashed)\n", argv[1], repeat);
    printf("  %-42s %8.1f ms\n", "model_explorer/ preparation", prep * 1e3);
    for (size_t k = 0; k < nt; k++) {
        printf("  %-42s %8.1f ms  %8.2f MB  %6.0f MB/s\n", t[k].name, t[k].best * 1e3,
               (double)t[k].bytes / 1e6, (double)t[k].bytes / 1e6 / t[k].best);
        total += t[k].best;
        bytes += t[k].bytes;
    }
    printf("  %-42s %8.1f ms  %8.2f MB  %6.0f MB/s\n", "all", total * 1e3, (double)bytes / 1e6,
           (double)bytes / 1e6 / total);
    etp_publish_me_free(me);
    etp_analysis_free(a);
    etp_etrecord_free(r);
    etp_program_free(p);
    etp_etdump_free(d);
    return 0;
}
