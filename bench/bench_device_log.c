/* bench_device_log.c - how fast the device-log reader is.
 *
 *   bench_device_log [MB] [REPEAT]
 *
 * Builds a console log of about MB megabytes in memory (default 48): half
 * Arm-runner / RTT / time -v lines, half one #[RUN THIS] block carrying a
 * base64 ETDump-sized payload, then parses it REPEAT times (default 5).
 * Prints the best and median MB/s for each half and the process' peak RSS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "etprof/device_log.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *lines_log(size_t target, size_t *len)
{
    char *t = malloc(target + 256);
    size_t k = 0;
    unsigned i = 0;
    while (t && k < target) {
        switch (i++ % 4) {
        case 0: k += (size_t)sprintf(t + k, "00> Inference: %u.%03u ms\r\n", 10 + i % 7, i % 1000); break;
        case 1: k += (size_t)sprintf(t + k, "I [executorch:arm_perf_monitor.cpp:228 StopMeasurements()] ethosu_pmu_cntr%u : %u (1.00 per inference)\r\n", i % 7, i); break;
        case 2: k += (size_t)sprintf(t + k, "I 00:00:00.%06u executorch:executor_runner.cpp:300] Resetting threadpool with num threads = 4\n", i % 1000000); break;
        default: k += (size_t)sprintf(t + k, "VGF_DATA_GRAPH_DEVICE_TIME ticks=%u duration_ns=%u.000 duration_ms=%.6f\n", i, i * 10, i * 10 / 1e6); break;
        }
    }
    *len = k;
    return t;
}

static char *block_log(size_t target, size_t *len)
{
    static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t b64 = target / 4 * 4;
    char *t = malloc(b64 + 256);
    if (!t)
        return NULL;
    size_t k = (size_t)sprintf(t, "#[RUN THIS]\necho \"");
    for (size_t i = 0; i < b64; i++)
        t[k++] = alpha[(i * 2654435761u >> 7) % 64];
    k += (size_t)sprintf(t + k, "\" | base64 -d >etdump.bin\n#[END]\n");
    *len = k;
    return t;
}

static void bench(const char *what, const char *text, size_t len, int repeat)
{
    double *s = malloc((size_t)repeat * sizeof *s);
    for (int r = 0; r < repeat; r++) {
        etp_device_log *l;
        etp_error err;
        double t0 = now();
        if (etp_device_log_parse(text, len, "bench.log", &l, &err)) {
            fprintf(stderr, "bench: %s: %s\n", what, err.message);
            exit(1);
        }
        s[r] = now() - t0;
        etp_device_log_free(l);
    }
    qsort(s, (size_t)repeat, sizeof *s, cmp);
    printf("%-28s %7.1f MB  best %8.1f MB/s  median %8.1f MB/s\n", what, len / 1e6, len / 1e6 / s[0],
           len / 1e6 / s[repeat / 2]);
    free(s);
}

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 48;
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    if (mb < 2 || mb > 60 || repeat < 1)
        return fprintf(stderr, "usage: bench_device_log [MB 2..60] [REPEAT]\n"), 2;
    size_t n1, n2;
    char *a = lines_log(mb << 19, &n1), *b = block_log(mb << 19, &n2);
    if (!a || !b)
        return 1;
    bench("console lines", a, n1, repeat);
    bench("#[RUN THIS] base64 block", b, n2, repeat);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %ld KiB (inputs %zu KiB)\n", ru.ru_maxrss, (n1 + n2) >> 10);
    free(a);
    free(b);
    return 0;
}
