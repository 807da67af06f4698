/* bench_diff.c - what `etprof diff` costs on two 10,000-instruction runs.
 *
 *   bench_diff ETPROF DIR [REPEAT]
 *
 * Generates in DIR, if not there, two runs of one program (50 executions x
 * 10,000 instructions, a delegate every 10th, seed 1; the second with
 * instruction 500 slowed 1.3x) and their bundles, plain and --detailed
 * (with the ETRecord, so source operators are compared too). Then runs,
 * REPEAT times each (default 5), as a user would:
 *   diff plain bundles              (no samples: no intervals)
 *   diff --detailed bundles         (entity samples: bootstrap intervals)
 *   diff plain bundles -o DIR       (the diff bundle with its page)
 * and prints the best and median wall and CPU time and the peak RSS. Each
 * run is its own process, measured with wait4(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s ETPROF DIR [REPEAT]\n", argv[0]);
        return 2;
    }
    char *etprof = argv[1];
    const char *dir = argv[2];
    int repeat = argc > 3 ? atoi(argv[3]) : 5;
    if (repeat < 1 || repeat > 64)
        repeat = 5;
    mkdir(dir, 0777);
    char pte[1024], etr[1024], etdp[2][1024], plain[2][1024], det[2][1024], out[1024];
    snprintf(pte, sizeof pte, "%s/model.pte", dir);
    snprintf(etr, sizeof etr, "%s/model.etrecord", dir);
    snprintf(out, sizeof out, "%s/diff-bundle", dir);
    for (int k = 0; k < 2; k++) {
        snprintf(etdp[k], sizeof etdp[k], "%s/run%d.etdp", dir, k);
        snprintf(plain[k], sizeof plain[k], "%s/bundle%d", dir, k);
        snprintf(det[k], sizeof det[k], "%s/detailed%d", dir, k);
        if (!exists(etdp[k])) {
            char *gen[] = {etprof, "gen", "etdump", "-o", etdp[k], "--executions", "50",
                           "--instructions", "10000", "--delegate-every", "10", "--seed", "1",
                           "--pte", pte, "--etrecord", etr, k ? "--slowdown" : NULL, "500:1.3",
                           NULL};
            if (bench_run(gen, NULL, 0, -1))
                return fprintf(stderr, "bench_diff: cannot generate %s\n", etdp[k]), 1;
        }
        char *a1[] = {etprof, "analyze", etr, "--etdump", etdp[k], "--pte", pte, "-o", plain[k],
                      "--quiet", "--model-explorer", "none", NULL};
        char *a2[] = {etprof, "analyze", etr, "--etdump", etdp[k], "--pte", pte, "-o", det[k],
                      "--quiet", "--model-explorer", "none", "--detailed", NULL};
        if ((!exists(plain[k]) && bench_run(a1, NULL, 0, -1)) ||
            (!exists(det[k]) && bench_run(a2, NULL, 0, -1)))
            return fprintf(stderr, "bench_diff: cannot analyse %s\n", etdp[k]), 1;
    }
    bench_sample s[3][64];
    for (int i = 0; i < repeat; i++) {
        char *d1[] = {etprof, "diff", plain[0], plain[1], "--quiet", NULL};
        char *d2[] = {etprof, "diff", det[0], det[1], "--quiet", NULL};
        char *d3[] = {etprof, "diff", plain[0], plain[1], "--quiet", "-o", out, "--fail-if-slower",
                      "5", NULL};
        /* The gate's exit 3 is a result, not a failure. */
        if (bench_run(d1, &s[0][i], 0, 3) || bench_run(d2, &s[1][i], 0, 3) ||
            bench_run(d3, &s[2][i], 0, 3))
            return fprintf(stderr, "bench_diff: etprof diff failed\n"), 1;
    }
    printf("etprof diff, two 10,000-instruction runs (50 executions), %d runs each:\n", repeat);
    static const char *labels[3] = {"bundles", "--detailed bundles", "bundles -o DIR"};
    for (int v = 0; v < 3; v++) {
        bench_summary m = bench_summarise(s[v], repeat);
        bench_print(labels[v], 26, &m);
    }
    return 0;
}
