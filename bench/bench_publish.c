/* bench_publish.c - what publishing a bundle costs next to the analysis.
 *
 *   bench_publish ETPROF DIR [REPEAT]
 *
 * Generates the reference run in DIR if it is not there (50 executions x
 * 10,000 instructions, a delegate every 10th, seed 1: a 70 MB ETDump), then
 * runs `ETPROF analyze ETRECORD --etdump --pte` without and with `-o`,
 * alternating, REPEAT times each (default 5). Prints per variant the best
 * and median wall time and CPU time (user + system, which a loaded machine
 * disturbs less), the peak RSS against the ETDump's size, and the bundle's
 * size with its largest files. Each run is its own process, measured with
 * wait4() so its rusage is its own. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

typedef struct file_size {
    char path[600];
    long long size;
} file_size;

static long long walk(const char *dir, const char *rel, file_size *top, int ntop)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    long long total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[1024], r[600];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        struct stat st;
        if (lstat(p, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            total += walk(p, r, top, ntop);
            continue;
        }
        total += st.st_size;
        for (int i = 0; i < ntop; i++)
            if (st.st_size > top[i].size) {
                memmove(top + i + 1, top + i, sizeof *top * (size_t)(ntop - i - 1));
                snprintf(top[i].path, sizeof top[i].path, "%s", r);
                top[i].size = st.st_size;
                break;
            }
    }
    closedir(d);
    return total;
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
    char etdp[1024], pte[1024], etr[1024], out[1024];
    snprintf(etdp, sizeof etdp, "%s/big.etdp", dir);
    snprintf(pte, sizeof pte, "%s/big.pte", dir);
    snprintf(etr, sizeof etr, "%s/big.etrecord", dir);
    snprintf(out, sizeof out, "%s/bench-bundle", dir);
    mkdir(dir, 0777);
    struct stat st;
    if (stat(etdp, &st) || stat(pte, &st) || stat(etr, &st)) {
        char *gen[] = {etprof, "gen", "etdump", "-o", etdp, "--executions", "50",
                       "--instructions", "10000", "--delegate-every", "10", "--seed", "1",
                       "--pte", pte, "--etrecord", etr, NULL};
        if (bench_run(gen, NULL, 1, -1)) {
            fprintf(stderr, "bench_publish: could not generate the reference run in %s\n", dir);
            return 1;
        }
    }
    if (stat(etdp, &st)) {
        fprintf(stderr, "bench_publish: %s: %s\n", etdp, strerror(errno));
        return 1;
    }
    long long etdp_size = (long long)st.st_size;

    char *plain[] = {etprof, "analyze", etr, "--etdump", etdp, "--pte", pte, "--quiet", NULL};
    char *publish[] = {etprof, "analyze", etr, "--etdump", etdp, "--pte", pte, "--quiet",
                       "-o", out, NULL};
    bench_sample a[64], b[64];
    bench_run(plain, NULL, 1, -1); /* warm the page cache */
    for (int i = 0; i < repeat; i++) {
        if (bench_run(plain, &a[i], 1, -1) || bench_run(publish, &b[i], 1, -1)) {
            fprintf(stderr, "bench_publish: etprof analyze failed\n");
            return 1;
        }
    }
    printf("reference run: %s (%.1f MB ETDump), %d alternating runs each\n", dir,
           (double)etdp_size / 1e6, repeat);
    bench_summary ma = bench_summarise(a, repeat), mb = bench_summarise(b, repeat);
    bench_print("analyze", 14, &ma);
    bench_print("analyze -o", 14, &mb);
    printf("publication: wall %.2fx (best) %.2fx (median), cpu %.2fx (best) the analysis; "
           "peak RSS %.2fx the ETDump\n",
           ma.wall_best > 0 ? mb.wall_best / ma.wall_best : 0.0,
           ma.wall_median > 0 ? mb.wall_median / ma.wall_median : 0.0,
           ma.cpu_best > 0 ? mb.cpu_best / ma.cpu_best : 0.0,
           (double)mb.rss_kb * 1024.0 / (double)etdp_size);
    file_size top[6];
    memset(top, 0, sizeof top);
    long long total = walk(out, "", top, 6);
    printf("bundle: %.1f MB in total; largest:\n", (double)total / 1e6);
    for (int i = 0; i < 6 && top[i].size; i++)
        printf("  %10lld  %s\n", top[i].size, top[i].path);
    return 0;
}
