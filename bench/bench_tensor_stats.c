/* bench_tensor_stats.c - what one pass of tensor statistics and a tensor
 * comparison cost (etprof/tensor.h), in MB/s of tensor bytes.
 *
 *   bench_tensor_stats [MIB]   (default 256)
 *
 * Tensors from a fixed xorshift generator: MIB MiB each of float32, int8,
 * int32, float32 with 1% NaN, and MIB/4 MiB of float16 (finite codes);
 * etp_tensor_stats_compute on each, best of 3. Then etp_tensor_compare of
 * two float32 tensors of MIB/4 MiB (the second the first plus noise), best
 * of 3. One tensor is alive at a time (two for the comparison). Prints wall
 * times, MB/s (10^6 bytes) and peak RSS. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "etprof/tensor.h"
#include "analysis/numerics/tensor_decode.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static float unif(void)
{
    return (float)((double)(next() >> 11) / 9007199254740992.0 * 2 - 1);
}

enum kind { K_F32, K_I8, K_I32, K_F16, K_F32_NAN };

static uint8_t *make(enum kind k, size_t bytes)
{
    uint8_t *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    switch (k) {
    case K_F32: case K_F32_NAN:
        for (size_t i = 0; i < bytes / 4; i++) {
            float f = 100.0f + 10.0f * unif();
            if (k == K_F32_NAN && next() % 100 == 0)
                f = NAN;
            memcpy(p + 4 * i, &f, 4);
        }
        break;
    case K_I8:
        for (size_t i = 0; i < bytes; i += 8) {
            uint64_t r = next();
            memcpy(p + i, &r, bytes - i < 8 ? bytes - i : 8);
        }
        break;
    case K_I32:
        for (size_t i = 0; i < bytes / 4; i++) {
            uint32_t r = (uint32_t)(next() >> 32);
            memcpy(p + 4 * i, &r, 4);
        }
        break;
    case K_F16:
        for (size_t i = 0; i < bytes / 2; i++) {
            uint16_t h = (uint16_t)next();
            if (((h >> 10) & 31) == 31)
                h = (uint16_t)(h & ~0x4000); /* finite */
            memcpy(p + 2 * i, &h, 2);
        }
        break;
    }
    return p;
}

static void bench_stats(const char *name, enum kind k, int type, size_t esize, size_t bytes)
{
    uint8_t *p = make(k, bytes);
    etp_tensor_view t;
    etp_error err;
    int64_t n = (int64_t)(bytes / esize);
    if (etp_tensor_view_init(&t, type, 1, &n, NULL, p, "bench", 0, name, &err)) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    double best = 1e30;
    etp_tensor_stats s;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        etp_tensor_stats_compute(&t, &s);
        double dt = now() - t0;
        best = dt < best ? dt : best;
    }
    printf("stats %-14s %8.1f MB: best of 3 %.4f s = %7.0f MB/s  (finite %llu, nan %llu, mean %.6g, std %.6g)\n",
           name, (double)bytes / 1e6, best, (double)bytes / 1e6 / best, (unsigned long long)s.finite,
           (unsigned long long)s.nan, s.mean, s.std);
    free(p);
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 256;
    if (!mib)
        mib = 256;
    size_t big = mib << 20, quarter = big / 4;
    double t0 = now();
    bench_stats("float32", K_F32, ETP_ST_FLOAT, 4, big);
    bench_stats("int8", K_I8, ETP_ST_CHAR, 1, big);
    bench_stats("int32", K_I32, ETP_ST_INT, 4, big);
    bench_stats("float16", K_F16, ETP_ST_HALF, 2, quarter);
    bench_stats("float32 1% NaN", K_F32_NAN, ETP_ST_FLOAT, 4, big);

    uint8_t *a = make(K_F32, quarter), *b = malloc(quarter);
    if (!b)
        return 1;
    for (size_t i = 0; i < quarter / 4; i++) {
        float x;
        memcpy(&x, a + 4 * i, 4);
        x += 1e-4f * unif();
        memcpy(b + 4 * i, &x, 4);
    }
    etp_tensor_view ra, gb;
    etp_error err;
    int64_t n = (int64_t)(quarter / 4);
    if (etp_tensor_view_init(&ra, ETP_ST_FLOAT, 1, &n, NULL, a, "bench", 0, "ref", &err) ||
        etp_tensor_view_init(&gb, ETP_ST_FLOAT, 1, &n, NULL, b, "bench", 0, "got", &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    double best = 1e30;
    etp_tensor_gap g;
    for (int r = 0; r < 3; r++) {
        double t1 = now();
        if (etp_tensor_compare(&ra, NULL, &gb, NULL, ETP_TOLERANCE_DEFAULT, "bench", "compare", &g, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        double dt = now() - t1;
        best = dt < best ? dt : best;
    }
    printf("compare float32 vs float32 2 x %.1f MB: best of 3 %.4f s = %.0f MB/s of both tensors "
           "(%.0f MB/s of one)  (snr %.2f dB, mismatches %llu)\n",
           (double)quarter / 1e6, best, 2.0 * (double)quarter / 1e6 / best, (double)quarter / 1e6 / best, g.snr_db,
           (unsigned long long)g.mismatches);
    free(a);
    free(b);
    printf("total wall %.2f s (generation included), peak RSS %.1f MiB\n", now() - t0, peak_rss_kb() / 1024.0);
    return 0;
}
