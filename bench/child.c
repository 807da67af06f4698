/* child.c - run and measure a child process (child.h). */
#include "child.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int bench_run(char *const argv[], bench_sample *s, int quiet_stderr, int also_ok)
{
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) ||
            (quiet_stderr && !freopen("/dev/null", "w", stderr)))
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0)
        return -1;
    if (s) {
        s->wall = bench_now() - t0;
        s->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
        s->rss_kb = ru.ru_maxrss;
    }
    if (!WIFEXITED(status))
        return -1;
    int code = WEXITSTATUS(status);
    return code == 0 || (also_ok >= 0 && code == also_ok) ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

bench_summary bench_summarise(const bench_sample *s, int n)
{
    double wall[64], cpu[64];
    bench_summary m = {0, 0, 0, 0, 0};
    if (n < 1)
        return m;
    n = n > 64 ? 64 : n;
    for (int i = 0; i < n; i++) {
        wall[i] = s[i].wall;
        cpu[i] = s[i].cpu;
        m.rss_kb = s[i].rss_kb > m.rss_kb ? s[i].rss_kb : m.rss_kb;
    }
    qsort(wall, (size_t)n, sizeof wall[0], cmp_double);
    qsort(cpu, (size_t)n, sizeof cpu[0], cmp_double);
    m.wall_best = wall[0];
    m.wall_median = wall[n / 2];
    m.cpu_best = cpu[0];
    m.cpu_median = cpu[n / 2];
    return m;
}

void bench_print(const char *label, int width, const bench_summary *m)
{
    printf("%-*s wall best %6.3f s median %6.3f s | cpu best %6.3f s median %6.3f s | "
           "peak RSS %6.1f MB\n",
           width, label, m->wall_best, m->wall_median, m->cpu_best, m->cpu_median,
           (double)m->rss_kb / 1024.0);
}
