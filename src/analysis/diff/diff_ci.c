/* diff_ci.c - the percentile bootstrap of a ratio of statistics, with its
 * own seeded generator so that the same inputs give the same interval on
 * every machine (the algorithm is spelled out in etprof/diff.h, and
 * tests/diff_check.py re-implements it to check the numbers). */
#include <stdlib.h>
#include <string.h>

#include "analysis/diff/diff_internal.h"
#include "etprof/stats.h"

uint64_t etp_diff_row_seed(uint64_t seed, etp_diff_kind kind, const char *key)
{
    /* FNV-1a 64 over "KIND:KEY", spelled out here (not util's hash) so that
     * the intervals stay what the documentation says if that hash changes. */
    uint64_t h = 0xcbf29ce484222325ull;
    const char *parts[3] = {etp_diff_kind_name(kind), ":", key};
    for (int i = 0; i < 3; i++)
        for (const unsigned char *p = (const unsigned char *)parts[i]; *p; p++) {
            h ^= *p;
            h *= 0x100000001b3ull;
        }
    return seed ^ h;
}

/* splitmix64: small, well mixed, and the same everywhere. */
static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An index in [0, n): the top 53 bits of a draw, scaled. n < 2^32, so
 * the product fits in 64 bits after the shift. */
static uint32_t draw_index(uint64_t *state, uint32_t n)
{
    uint64_t x = next_u64(state) >> 11;
    return (uint32_t)(((unsigned __int128)x * n) >> 53);
}

static void swap_d(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* The k-th smallest of v[0..n) (v reordered): Hoare selection. */
static double select_k(double *v, uint32_t n, uint32_t k)
{
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        uint32_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                swap_d(&v[i], &v[j]);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

double etp_diff_stat_of(double *v, uint32_t n, etp_diff_statistic st)
{
    if (!n)
        return 0.0;
    if (st == ETP_DIFF_STAT_AVG) {
        double s = 0;
        for (uint32_t i = 0; i < n; i++)
            s += v[i];
        return s / n;
    }
    /* The median as numpy computes it: the middle value, or the mean of
     * the two middle values. */
    double hi = select_k(v, n, n / 2);
    if (n % 2)
        return hi;
    double lo = v[0];
    for (uint32_t i = 1; i < n / 2; i++)
        if (v[i] > lo)
            lo = v[i];
    return (lo + hi) / 2.0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The statistic of one resample of @p v (n draws in order). The mean is
 * summed as it is drawn: the same additions in the same order as
 * etp_diff_stat_of over the drawn values, without storing them. */
static double resample_stat(const double *v, uint32_t n, etp_diff_statistic st, uint64_t *state, double *buf)
{
    if (st == ETP_DIFF_STAT_AVG) {
        double s = 0;
        for (uint32_t i = 0; i < n; i++)
            s += v[draw_index(state, n)];
        return s / n;
    }
    for (uint32_t i = 0; i < n; i++)
        buf[i] = v[draw_index(state, n)];
    return etp_diff_stat_of(buf, n, st);
}

int etp_diff_bootstrap_ratios(const double *base, uint32_t nb, const double *newv, uint32_t nn,
                              etp_diff_statistic st, uint32_t resamples, uint64_t seed,
                              double *ratios)
{
    if (nb < 2 || nn < 2 || !resamples)
        return -1;
    double *buf = malloc((size_t)(nb > nn ? nb : nn) * sizeof *buf);
    if (!buf)
        return -2;
    uint64_t state = seed;
    int rc = 0;
    for (uint32_t r = 0; r < resamples; r++) {
        double sb = resample_stat(base, nb, st, &state, buf);
        double sn = resample_stat(newv, nn, st, &state, buf);
        if (!(sb > 0)) {
            rc = -1; /* a resample whose base is 0: the ratio does not exist */
            break;
        }
        ratios[r] = sn / sb;
    }
    if (!rc)
        qsort(ratios, resamples, sizeof *ratios, cmp_double);
    free(buf);
    return rc;
}

int etp_diff_bootstrap(const double *base, uint32_t nb, const double *newv, uint32_t nn,
                       etp_diff_statistic st, uint32_t resamples, double confidence,
                       uint64_t seed, double *lo, double *hi)
{
    if (nb < 2 || nn < 2 || !resamples)
        return -1;
    double *ratios = malloc((size_t)resamples * sizeof *ratios);
    if (!ratios)
        return -2;
    int rc = etp_diff_bootstrap_ratios(base, nb, newv, nn, st, resamples, seed, ratios);
    if (!rc) {
        *lo = etp_percentile_linear(ratios, resamples, 50.0 * (1.0 - confidence));
        *hi = etp_percentile_linear(ratios, resamples, 50.0 * (1.0 + confidence));
    }
    free(ratios);
    return rc;
}
