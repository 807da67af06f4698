/* test_stats.c - sample statistics against a plain reference: full qsort
 * plus numpy's "linear" percentile written out here. Covers both internal
 * paths (sorting for small series, selection for large ones) on random,
 * constant, sorted, reversed and duplicate-heavy samples, and the integer
 * total's overflow to long double. */
#include <setjmp.h>
#include <float.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/inspect/inspect_internal.h"
#include "etprof/inspect.h"
#include "etprof/stats.h"
#include "util/sort.h"
#include "testutil.h"

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* numpy.percentile(method="linear"): virtual index (n-1)q, interpolated
 * by numpy's _lerp (computed from the upper end when the weight >= 0.5). */
static double ref_pct(const double *s, size_t n, double q)
{
    double h = q / 100.0 * (double)(n - 1);
    size_t i = (size_t)h;
    if (i >= n - 1)
        return s[n - 1];
    double t = h - (double)i, a = s[i], b = s[i + 1];
    return t >= 0.5 ? b - (b - a) * (1.0 - t) : a + (b - a) * t;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    return tu_rand(&rng_state);
}

static void fill(uint64_t *v, size_t n, int pattern)
{
    for (size_t i = 0; i < n; i++) {
        switch (pattern) {
        case 0: v[i] = 100000 + rnd() % 5000; break;       /* timing-like */
        case 1: v[i] = 42; break;                           /* constant */
        case 2: v[i] = i * 3; break;                        /* ascending */
        case 3: v[i] = (n - i) * 7; break;                  /* descending */
        case 4: v[i] = rnd() % 3; break;                    /* few distinct values */
        default: v[i] = UINT64_MAX - rnd() % 1000; break;   /* total overflows 64 bits */
        }
    }
}

/* The exact percentile as decimal text, read back by strtod (the correctly
 * rounded double): ticks a, b (integers), rank remainder r/100 and a
 * power-of-ten divisor 10^k give (100 a + r (b - a)) / 10^(k+2), written out
 * digit by digit. Independent of the float arithmetic under test. */
static double exact_pct(const int64_t *s, size_t n, unsigned q, int k)
{
    unsigned long long num = (unsigned long long)q * (n - 1);
    size_t i = (size_t)(num / 100);
    unsigned r = (unsigned)(num % 100);
    __int128 x = i >= n - 1 ? (__int128)s[n - 1] * 100
                            : (__int128)s[i] * 100 + ((__int128)s[i + 1] - s[i]) * r;
    int neg = x < 0;
    if (neg)
        x = -x;
    char dig[64];
    int nd = 0;
    do {
        dig[nd++] = (char)('0' + (int)(x % 10));
        x /= 10;
    } while (x);
    int point = k + 2; /* digits after the decimal point */
    char txt[96];
    int t = 0;
    if (neg)
        txt[t++] = '-';
    for (int d = (nd > point ? nd : point + 1) - 1; d >= 0; d--) {
        txt[t++] = d < nd ? dig[d] : '0';
        if (d == point && point)
            txt[t++] = '.';
    }
    txt[t] = 0;
    return strtod(txt, NULL);
}

/* Within a few (16) ulps (of the samples' magnitude @p scale: interpolation
 * error is relative to its operands) of numpy's floating-point result. */
static int near_numpy(double got, double ref, double scale)
{
    double d = got > ref ? got - ref : ref - got;
    return d <= 16 * DBL_EPSILON * scale;
}

/* @p st against the reference: @p d holds the samples ascending, scaled;
 * @p avg is the exact mean, scaled. With @p ticks (ascending, as integers)
 * and a power-of-ten divisor 10^@p k (k >= 0), percentiles are the exact
 * decimal correctly rounded; otherwise within ulps of numpy's. */
static void check_stats(const etp_stats *st, const double *d, size_t n, double avg, const int64_t *ticks, int k)
{
    assert_int_equal(st->n, n);
    assert_true(st->min == d[0]);
    assert_true(st->max == d[n - 1]);
    double scale = d[0] < 0 ? -d[0] : d[0];
    if ((d[n - 1] < 0 ? -d[n - 1] : d[n - 1]) > scale)
        scale = d[n - 1] < 0 ? -d[n - 1] : d[n - 1];
    assert_true(near_numpy(st->p10, ref_pct(d, n, 10), scale));
    assert_true(near_numpy(st->p50, ref_pct(d, n, 50), scale));
    assert_true(near_numpy(st->p90, ref_pct(d, n, 90), scale));
    if (ticks && k >= 0) {
        assert_true(st->p10 == exact_pct(ticks, n, 10, k));
        assert_true(st->p50 == exact_pct(ticks, n, 50, k));
        assert_true(st->p90 == exact_pct(ticks, n, 90, k));
    }
    assert_true(st->avg == avg);
}

static void check_ticks(const uint64_t *v, size_t n, double divisor)
{
    uint64_t *work = malloc(n * sizeof *work), *sorted = malloc(n * sizeof *sorted);
    double *d = malloc(n * sizeof *d);
    assert_non_null(work);
    assert_non_null(sorted);
    assert_non_null(d);
    memcpy(work, v, n * sizeof *v);
    memcpy(sorted, v, n * sizeof *v);
    qsort(sorted, n, sizeof *sorted, cmp_u64);
    long double total = 0;
    for (size_t i = 0; i < n; i++) {
        d[i] = (double)sorted[i] / divisor;
        total += (long double)sorted[i];
    }
    /* The exact check for ticks that fit an int64_t (not the overflow pattern). */
    int64_t *exact = malloc(n * sizeof *exact);
    assert_non_null(exact);
    int fits = 1;
    for (size_t i = 0; i < n; i++) {
        fits &= sorted[i] < ((uint64_t)1 << 62);
        exact[i] = (int64_t)sorted[i];
    }
    int k = divisor == 1e6 ? 6 : divisor == 1.0 ? 0 : -1;
    etp_stats st;
    etp_stats_from_ticks(work, n, divisor, &st);
    check_stats(&st, d, n, (double)(total / (long double)n / (long double)divisor), fits ? exact : NULL, k);
    free(exact);
    /* The samples are reordered, never lost. */
    qsort(work, n, sizeof *work, cmp_u64);
    assert_memory_equal(work, sorted, n * sizeof *work);
    free(work);
    free(sorted);
    free(d);
}

static void test_ticks_all_sizes(void **state)
{
    (void)state;
    uint64_t v[300];
    for (int pattern = 0; pattern < 6; pattern++)
        for (size_t n = 1; n <= 300; n++) {
            fill(v, n, pattern);
            check_ticks(v, n, pattern == 5 ? 1.0 : 1e6);
        }
}

static void test_ticks_large(void **state)
{
    (void)state;
    size_t n = 100000;
    uint64_t *v = malloc(n * sizeof *v);
    assert_non_null(v);
    fill(v, n, 0);
    check_ticks(v, n, 1e6);
    fill(v, n, 4);
    check_ticks(v, n, 1.0);
    free(v);
}

static void test_signed(void **state)
{
    (void)state;
    int64_t v[300], work[300];
    double d[300];
    for (size_t n = 1; n <= 300; n++) {
        for (size_t i = 0; i < n; i++)
            v[i] = (int64_t)(rnd() % 20001) - 10000;
        memcpy(work, v, n * sizeof *v);
        qsort(v, n, sizeof *v, cmp_i64);
        long double total = 0;
        for (size_t i = 0; i < n; i++) {
            d[i] = (double)v[i] / 1e3;
            total += (long double)v[i];
        }
        etp_stats st;
        etp_stats_from_signed(work, n, 1e3, &st);
        check_stats(&st, d, n, (double)(total / (long double)n / 1e3L), v, 3);
    }
}

/* The sorts themselves, every size through both small-sort paths (insertion,
 * blocks + merges) into introsort, with extreme values at both ends. */
static void test_sort_direct(void **state)
{
    (void)state;
    uint64_t u[300], uref[300];
    int64_t s[300], sref[300];
    for (int pattern = 0; pattern < 7; pattern++)
        for (size_t n = 0; n <= 300; n++) {
            fill(u, n, pattern < 6 ? pattern : 4);
            for (size_t i = 0; i < n; i++) {
                if (pattern == 6) /* only the extremes and zero */
                    u[i] = u[i] == 0 ? 0 : u[i] == 1 ? UINT64_MAX : (uint64_t)INT64_MIN;
                s[i] = (int64_t)u[i];
            }
            memcpy(uref, u, n * sizeof *u);
            memcpy(sref, s, n * sizeof *s);
            qsort(uref, n, sizeof *uref, cmp_u64);
            qsort(sref, n, sizeof *sref, cmp_i64);
            etp_sort_u64(u, n);
            etp_sort_i64(s, n);
            if (n) {
                assert_memory_equal(u, uref, n * sizeof *u);
                assert_memory_equal(s, sref, n * sizeof *s);
            }
        }
}

static void test_empty(void **state)
{
    (void)state;
    etp_stats st;
    memset(&st, 0xff, sizeof st);
    etp_stats_from_ticks(NULL, 0, 1.0, &st);
    assert_int_equal(st.n, 0);
    assert_true(st.avg == 0.0 && st.p50 == 0.0 && st.max == 0.0);
}

/* A block whose per-execution sums leave the int64 range (tick values only
 * a damaged ETDump has; the fuzzer found them): no figure is computed, and
 * no signed overflow happens on the way (this test runs under UBSan too). */
static void test_summary_overflow(void **state)
{
    (void)state;
    uint64_t exec_ticks[2] = {UINT64_MAX - 5, 10};
    uint64_t op_ticks[4] = {(uint64_t)INT64_MAX - 1, (uint64_t)INT64_MAX - 1, 3, 4};
    uint32_t one[2] = {1, 1}, two[2] = {2, 2};
    etp_inspect_row rows[2];
    memset(rows, 0, sizeof rows);
    rows[0].event_name = "Method::execute";
    rows[0].name = "Method::execute";
    rows[0].chain_index = -1;
    rows[0].instruction_id = -1;
    rows[0].delegate_id_int = -1;
    rows[0].is_framework = 1;
    rows[0].per_run = one;
    rows[0].ticks = exec_ticks;
    rows[0].sample_count = 2;
    rows[1].event_name = "OPERATOR_CALL";
    rows[1].name = "OPERATOR_CALL";
    rows[1].chain_index = 0;
    rows[1].instruction_id = 0;
    rows[1].delegate_id_int = -1;
    rows[1].per_run = two;
    rows[1].ticks = op_ticks;
    rows[1].sample_count = 4;
    etp_inspect_block blk;
    memset(&blk, 0, sizeof blk);
    blk.run_count = 2;
    blk.row_count = 2;
    blk.rows = rows;
    etp_inspect res;
    memset(&res, 0, sizeof res);
    res.divisor = 1.0;
    etp_error err;
    assert_int_equal(etp_inspect_summarize(&res, &blk, &err), ETP_OK);
    assert_int_equal(blk.summary.has_execute, 0);
    assert_int_equal(blk.summary.operator_calls.n, 0);
    assert_int_equal(blk.summary.execute_overhead.n, 0);
    assert_int_equal(blk.summary.instructions_observed, 1);
    /* The same block with sane ticks does get its figures. */
    exec_ticks[0] = 100;
    op_ticks[0] = op_ticks[1] = 20;
    assert_int_equal(etp_inspect_summarize(&res, &blk, &err), ETP_OK);
    assert_int_equal(blk.summary.has_execute, 1);
    assert_int_equal(blk.summary.operator_calls.n, 2);
    assert_true(blk.summary.execute_overhead.min == 3.0); /* 10 - (3 + 4) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ticks_all_sizes),
        cmocka_unit_test(test_ticks_large),
        cmocka_unit_test(test_signed),
        cmocka_unit_test(test_sort_direct),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_summary_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
