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

typedef struct sample {
    double wall, cpu;
    long rss_kb;
} sample;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run argv with stdout and stderr to /dev/null; 0 if it exited 0. */
static int run(char *const argv[], sample *s)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *nul = freopen("/dev/null", "w", stdout);
        (void)nul;
        nul = freopen("/dev/null", "w", stderr);
        (void)nul;
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0)
        return -1;
    if (s) {
        s->wall = now() - t0;
        s->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
        s->rss_kb = ru.ru_maxrss;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void stats(const char *label, const sample *s, int n, double *best_cpu)
{
    double wall[64], cpu[64];
    long rss = 0;
    for (int i = 0; i < n; i++) {
        wall[i] = s[i].wall;
        cpu[i] = s[i].cpu;
        rss = s[i].rss_kb > rss ? s[i].rss_kb : rss;
    }
    qsort(wall, (size_t)n, sizeof wall[0], cmp_double);
    qsort(cpu, (size_t)n, sizeof cpu[0], cmp_double);
    printf("%-14s wall best %6.3f s median %6.3f s | cpu best %6.3f s median %6.3f s | "
           "peak RSS %6.1f MB\n",
           label, wall[0], wall[n / 2], cpu[0], cpu[n / 2], (double)rss / 1024.0);
    *best_cpu = cpu[0];
}

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
        if (run(gen, NULL)) {
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
    sample a[64], b[64];
    run(plain, NULL); /* warm the page cache */
    for (int i = 0; i < repeat; i++) {
        if (run(plain, &a[i]) || run(publish, &b[i])) {
            fprintf(stderr, "bench_publish: etprof analyze failed\n");
            return 1;
        }
    }
    double cpu_a, cpu_b;
    printf("reference run: %s (%.1f MB ETDump), %d alternating runs each\n", dir,
           (double)etdp_size / 1e6, repeat);
    stats("analyze", a, repeat, &cpu_a);
    stats("analyze -o", b, repeat, &cpu_b);
    long rss = 0;
    for (int i = 0; i < repeat; i++)
        rss = b[i].rss_kb > rss ? b[i].rss_kb : rss;
    printf("publication: best cpu %.2fx the analysis; peak RSS %.2fx the ETDump\n",
           cpu_a > 0 ? cpu_b / cpu_a : 0.0, (double)rss * 1024.0 / (double)etdp_size);
    file_size top[6];
    memset(top, 0, sizeof top);
    long long total = walk(out, "", top, 6);
    printf("bundle: %.1f MB in total; largest:\n", (double)total / 1e6);
    for (int i = 0; i < 6 && top[i].size; i++)
        printf("  %10lld  %s\n", top[i].size, top[i].path);
    return 0;
}
