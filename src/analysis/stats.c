/* stats.c - avg / percentiles / extremes of duration samples. */
#include "etprof/stats.h"

#include "util/sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* numpy's _lerp: a + (b-a)*t, computed from the nearer end for t >= 0.5. */
static double lerp(double a, double b, double t)
{
    double d = b - a;
    return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

/* Percentile over sorted integers scaled by 1/divisor, without building a
 * double array: only the two neighbouring ranks are needed. */
/* numpy's linear percentile of integer ticks at an integer percent @p q,
 * computed exactly: rank q(n-1)/100 = i + r/100, value = (100 a + r (b - a))
 * / (100 divisor), one rounding at the end. Interpolating values already
 * divided (as floating point lerp does) lands an ulp off the decimal the
 * ticks mean (0.1415605 printed as 0.14156049999999998); this is the same
 * number to within that ulp and prints as its short decimal. */
/* numpy's linear percentile of integer ticks at an integer percent q,
 * computed exactly: rank q(n-1)/100 = i + r/100, value = (100 a + r (b - a))
 * / (100 divisor), rounded once at the end. Interpolating values already
 * divided (a floating-point lerp) lands an ulp off the decimal the ticks
 * mean (0.1415605 printed as 0.14156049999999998); this is the same number
 * to within that ulp, and prints as its short decimal.
 *
 * Rank of percent @p q among @p n sorted values: index i and remainder r
 * (in hundredths) of q(n-1)/100. */
static size_t pct_rank(size_t n, unsigned q, unsigned *r)
{
    unsigned __int128 num = (unsigned __int128)q * (n - 1);
    *r = (unsigned)(num % 100);
    return (size_t)(num / 100);
}

static double pct_value(__int128 a, __int128 b, unsigned r, double divisor)
{
    __int128 x = a * 100 + (b - a) * (__int128)r;
    return (double)((long double)x / (100.0L * (long double)divisor));
}

static double pct_u64(const uint64_t *s, size_t n, double divisor, double q)
{
    unsigned r;
    size_t i = pct_rank(n, (unsigned)q, &r);
    if (i >= n - 1)
        return (double)s[n - 1] / divisor;
    return pct_value(s[i], s[i + 1], r, divisor);
}

static double pct_i64(const int64_t *s, size_t n, double divisor, double q)
{
    unsigned r;
    size_t i = pct_rank(n, (unsigned)q, &r);
    if (i >= n - 1)
        return (double)s[n - 1] / divisor;
    return pct_value(s[i], s[i + 1], r, divisor);
}

double etp_percentile_linear(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    double h = (q / 100.0) * (double)(n - 1);
    double lo = floor(h);
    size_t i = (size_t)lo;
    if (i >= n - 1)
        return sorted[n - 1];
    return lerp(sorted[i], sorted[i + 1], h - lo);
}

/* Percentile q of n values whose order statistics are obtained with @p at. */
static double pct_select(uint64_t *t, size_t n, double divisor, double q, size_t *from)
{
    unsigned r;
    size_t i = pct_rank(n, (unsigned)q, &r);
    if (i >= n - 1)
        return (double)t[n - 1] / divisor;
    /* t[i] by selection within [from, n), then t[i+1] = the least of the rest. */
    uint64_t a = *from <= i ? etp_select_u64(t + *from, n - *from, i - *from) : t[i];
    uint64_t b = t[i + 1];
    for (size_t k = i + 2; k < n; k++)
        if (t[k] < b)
            b = t[k];
    *from = i + 1;
    return pct_value(a, b, r, divisor);
}

void etp_stats_from_ticks(uint64_t *t, size_t n, double divisor, etp_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    /* Exact integer total while it fits; long double beyond (2^64 ticks). */
    uint64_t sum = 0, mn = t[0], mx = t[0];
    long double lsum = 0;
    int overflow = 0;
    for (size_t i = 0; i < n; i++) {
        if (!overflow && sum > UINT64_MAX - t[i]) {
            overflow = 1;
            lsum = (long double)sum;
        }
        if (overflow)
            lsum += (long double)t[i];
        else
            sum += t[i];
        if (t[i] < mn)
            mn = t[i];
        if (t[i] > mx)
            mx = t[i];
    }
    long double total = overflow ? lsum : (long double)sum;
    out->n = n;
    out->sum = (double)(total / (long double)divisor);
    out->avg = (double)(total / (long double)n / (long double)divisor);
    out->min = (double)mn / divisor;
    out->max = (double)mx / divisor;
    if (n <= 64) { /* sorting is cheaper than three selections here (sort.c) */
        etp_sort_u64(t, n);
        out->p10 = pct_u64(t, n, divisor, 10);
        out->p50 = pct_u64(t, n, divisor, 50);
        out->p90 = pct_u64(t, n, divisor, 90);
        return;
    }
    /* Only five order statistics are needed: select them (O(n)) instead of
     * sorting, in ascending order so each search narrows the next. */
    size_t from = 0;
    out->p10 = pct_select(t, n, divisor, 10, &from);
    out->p50 = pct_select(t, n, divisor, 50, &from);
    out->p90 = pct_select(t, n, divisor, 90, &from);
}

void etp_stats_from_signed(int64_t *v, size_t n, double divisor, etp_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    etp_sort_i64(v, n);
    long double total = 0;
    for (size_t i = 0; i < n; i++)
        total += (long double)v[i];
    out->n = n;
    out->sum = (double)(total / (long double)divisor);
    out->avg = (double)(total / (long double)n / (long double)divisor);
    out->min = (double)v[0] / divisor;
    out->max = (double)v[n - 1] / divisor;
    out->p10 = pct_i64(v, n, divisor, 10);
    out->p50 = pct_i64(v, n, divisor, 50);
    out->p90 = pct_i64(v, n, divisor, 90);
}
