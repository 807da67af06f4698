/* bench_regress.c - what judging a fleet's history costs
 * (etp_regression_classify).
 *
 *   bench_regress [SERIES [POINTS [EXECUTIONS [REPEAT]]]]
 *
 * Builds SERIES series (default 1000) of POINTS runs (default 100) in
 * memory: a fleet where 5% of the series step up by 15% near the end, 2%
 * have an episode of four slow runs that ended, the rest are flat with 1-5%
 * run-to-run noise. Judges all of them with the default rules, without
 * per-execution samples, then with EXECUTIONS (default 20) samples per run,
 * then the worst case for the bootstrap: every series stepped, every one
 * bootstrapped. Each case on one thread and on two (util/parallel.h), best
 * of REPEAT (default 3); the verdict counts show what was found. Then the
 * trend page and the trend JSON of 100,000 of those points: size and time.
 * Not a test: timings are reported, never asserted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etprof/history.h"
#include "etprof/history_io.h"
#include "gen/gen_series.h"
#include "util/parallel.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct job {
    const etp_history_series *s;
    etp_regression *out;
    int failed;
} job;

static int judge_range(void *ctx, size_t lo, size_t hi)
{
    job *j = ctx;
    etp_error err;
    for (size_t i = lo; i < hi; i++)
        if (etp_regression_classify(&j->s[i], NULL, &j->out[i], &err))
            return -1;
    return 0;
}

/* A fleet of @p n series; @p all_stepped: every series steps (the
 * bootstrap's worst case). */
static int build(gen_history *h, uint32_t n, uint32_t points, uint32_t executions, int all_stepped)
{
    gen_history_init(h);
    for (uint32_t i = 0; i < n; i++) {
        char dev[32];
        snprintf(dev, sizeof dev, "device-%u", i);
        etp_history_label group[] = {{"device", dev}};
        gen_series_spec sp;
        memset(&sp, 0, sizeof sp);
        sp.group = group;
        sp.group_count = 1;
        sp.points = points;
        sp.level = 5 + i % 37;
        sp.noise_pct = 1 + i % 5;
        sp.seed = 77 + i;
        sp.first_run = 1 + (int64_t)i * points;
        sp.executions = executions;
        sp.execution_noise_pct = 3;
        if (all_stepped || i % 20 == 0) {
            sp.step_at = points - 3;
            sp.step_factor = 1.15 + 0.1 * sp.noise_pct;
        }
        if (gen_history_add(h, &sp) < 0)
            return -1;
        if (!all_stepped && i % 50 == 1 && points > 8) {
            uint32_t c;
            etp_history_series *s = &gen_history_all(h, &c)[c - 1];
            for (uint32_t p = points - 5; p < points - 1; p++) {
                s->points[p].value *= 1.6;
                double *ev = (double *)s->points[p].execution_values;
                for (uint32_t e = 0; e < s->points[p].sample_count; e++)
                    ev[e] *= 1.6;
            }
        }
    }
    return 0;
}

static void run_case(const char *name, gen_history *h, int repeat)
{
    uint32_t n;
    etp_history_series *s = gen_history_all(h, &n);
    etp_regression *out = calloc(n + 1, sizeof *out);
    if (!out)
        return;
    job j = {s, out, 0};
    for (int threads = 1; threads <= 2; threads++) {
        double best = 1e30;
        for (int r = 0; r < repeat; r++) {
            double t = now();
            int bad = threads == 1 ? judge_range(&j, 0, n) : etp_parallel_range(n, 2, judge_range, &j);
            t = now() - t;
            if (bad) {
                fprintf(stderr, "bench_regress: classification failed\n");
                free(out);
                return;
            }
            if (t < best)
                best = t;
        }
        uint32_t count[4] = {0}, intervals = 0;
        for (uint32_t i = 0; i < n; i++) {
            count[out[i].verdict]++;
            intervals += (uint32_t)out[i].has_interval;
        }
        printf("%-34s %u thread%s: %8.1f ms for %u series (%.1f us each); regression %u, suspicious %u, "
               "insufficient %u, ok %u; %u bootstrapped\n",
               name, threads, threads > 1 ? "s" : " ", best * 1e3, n, best * 1e6 / n,
               count[ETP_REGRESSION_REGRESSION], count[ETP_REGRESSION_SUSPICIOUS],
               count[ETP_REGRESSION_INSUFFICIENT_DATA], count[ETP_REGRESSION_OK], intervals);
    }
    free(out);
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)atoi(argv[1]) : 1000;
    uint32_t points = argc > 2 ? (uint32_t)atoi(argv[2]) : 100;
    uint32_t executions = argc > 3 ? (uint32_t)atoi(argv[3]) : 20;
    int repeat = argc > 4 ? atoi(argv[4]) : 3;
    if (!n || !points || repeat < 1) {
        fprintf(stderr, "usage: bench_regress [SERIES [POINTS [EXECUTIONS [REPEAT]]]]\n");
        return 2;
    }
    gen_history h;
    char name[64];
    if (build(&h, n, points, 0, 0))
        return 1;
    run_case("fleet, no samples", &h, repeat);
    /* The trend page and JSON of the first 100,000 points (or all). */
    uint32_t count, pages = 0;
    etp_history_series *s = gen_history_all(&h, &count);
    uint64_t pts = 0;
    while (pages < count && pts < 100000)
        pts += s[pages++].point_count;
    double t = now();
    size_t len = 0;
    char *html = etp_history_trend_html(s, pages, NULL, NULL, &len);
    t = now() - t;
    printf("trend page, %llu points in %u series: %zu bytes in %.1f ms\n", (unsigned long long)pts, pages, len,
           t * 1e3);
    free(html);
    t = now();
    char *json = etp_history_trend_json(s, pages, NULL, &len);
    t = now() - t;
    printf("trend JSON, %llu points: %zu bytes in %.1f ms\n", (unsigned long long)pts, len, t * 1e3);
    free(json);
    gen_history_free(&h);

    snprintf(name, sizeof name, "fleet, %u executions a run", executions);
    if (build(&h, n, points, executions, 0))
        return 1;
    run_case(name, &h, repeat);
    gen_history_free(&h);
    snprintf(name, sizeof name, "all stepped, %u executions", executions);
    if (build(&h, n, points, executions, 1))
        return 1;
    run_case(name, &h, repeat);
    gen_history_free(&h);
    return 0;
}
