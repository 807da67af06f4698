/* test_dtoa.c - the integer shortest-digits formatter (util/dtoa.c) writes
 * byte for byte what the printf + strtod search wrote before it (kept here
 * as the oracle): "%.*g" / "%.*e" at the least precision that reads back,
 * ".0" after integral values. Checked on every power of two and its
 * neighbours, every decimal-length boundary, small and large subnormals,
 * integers, timing-like values and millions of random bit patterns; every
 * text also reads back exactly; etp_format_fixed1 against printf("%.1f"). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/dtoa.h"
#include "util/jsonw.h"
#include "testutil.h"

/* Random values checked: the oracle costs several us a value (printf expands
 * huge exponents exactly), and sanitizers
 * slow it (and the formatter) several times. */
#if defined(__SANITIZE_ADDRESS__)
#define RANDOM_COUNT 200000
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RANDOM_COUNT 200000
#endif
#endif
#ifndef RANDOM_COUNT
#ifdef NDEBUG
#define RANDOM_COUNT 1000000
#else
#define RANDOM_COUNT 500000
#endif
#endif

/* The former implementation: bisection over the precision, each try a
 * snprintf and a strtod. */
static int print_prec(char *out, size_t size, char conv, int prec, double v)
{
    return conv == 'e' ? snprintf(out, size, "%.*e", prec, v) : snprintf(out, size, "%.*g", prec, v);
}

static int oracle_shortest(char *out, size_t size, double v, char conv)
{
    int lo = conv == 'e' ? 0 : 1, hi = conv == 'e' ? 16 : 17;
    int n = 0, in_out = -1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        n = print_prec(out, size, conv, mid, v);
        in_out = mid;
        if (strtod(out, NULL) == v)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (in_out != lo)
        n = print_prec(out, size, conv, lo, v);
    return n;
}

static int oracle_double(char *out, size_t size, double v)
{
    if (!isfinite(v))
        return snprintf(out, size, "null");
    int n = oracle_shortest(out, size, v, 'g');
    if (!strpbrk(out, ".eEn") && (size_t)n + 2 < size) {
        out[n++] = '.';
        out[n++] = '0';
        out[n] = '\0';
    }
    return n;
}

static unsigned long checked;

static void check_conv(double v, char conv)
{
    char got[64], want[64];
    int n = etp_format_shortest(got, sizeof got, v, conv);
    oracle_shortest(want, sizeof want, v, conv);
    if (strcmp(got, want))
        fail_msg("%a (%c): got %s, printf+strtod gives %s", v, conv, got, want);
    assert_int_equal((size_t)n, strlen(got));
}

static void check(double v)
{
    if (!isfinite(v))
        return;
    char got[64], want[64];
    int n = etp_format_double(got, sizeof got, v);
    oracle_double(want, sizeof want, v);
    if (strcmp(got, want))
        fail_msg("%a: got %s, printf+strtod gives %s", v, got, want);
    assert_int_equal((size_t)n, strlen(got));
    if (strtod(got, NULL) != v)
        fail_msg("%a: %s does not read back", v, got);
    checked++;
}

static void check_both(double v)
{
    check(v);
    check(-v);
    if (isfinite(v)) {
        check_conv(v, 'e');
        check_conv(-v, 'e');
    }
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    return tu_rand(&rng);
}

static double from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* The decimal exponent of finite nonzero @p v, read off printf's "%e". */
static int decimal_exponent(double v)
{
    char t[64];
    snprintf(t, sizeof t, "%.25e", v);
    return atoi(strchr(t, 'e') + 1);
}

/* dtoa.c's estimates of floor(log10(2^q)) and floor(log10(3/4 2^q)) (the
 * Schubfach constants) are exact for every exponent a double uses; 2^q and
 * 3/4 2^q are never powers of ten, so 25 digits cannot round up to one. */
static void test_exponent_estimates(void **state)
{
    (void)state;
    for (int q = -1074; q <= 1023; q++) {
        int k = (int)(((int64_t)q * 661971961083LL) >> 41);
        if (q != 0)
            assert_int_equal(k, decimal_exponent(ldexp(1.0, q)));
        if (q >= -1072) {
            int k34 = (int)(((int64_t)q * 661971961083LL - 274743187321LL) >> 41);
            assert_int_equal(k34, decimal_exponent(ldexp(0.75, q)));
        }
    }
}

static void test_powers_of_two(void **state)
{
    (void)state;
    for (int e = -1074; e <= 1023; e++) {
        double p = ldexp(1.0, e);
        check_both(p);
        check_both(nextafter(p, 0));
        check_both(nextafter(p, INFINITY));
        check_both(nextafter(nextafter(p, INFINITY), INFINITY));
        check_both(3.0 * p);
    }
}

/* Around every power of ten, where the digit count and the layout change. */
static void test_decimal_boundaries(void **state)
{
    (void)state;
    for (int e = -323; e <= 308; e++) {
        char t[32];
        snprintf(t, sizeof t, "1e%d", e);
        double p = strtod(t, NULL);
        double lo = p, hi = p;
        for (int i = 0; i < 4; i++) {
            check_both(lo);
            check_both(hi);
            lo = nextafter(lo, 0);
            hi = nextafter(hi, INFINITY);
        }
        for (int m = 1; m <= 9; m++) {
            snprintf(t, sizeof t, "%de%d", m, e);
            check_both(strtod(t, NULL));
            snprintf(t, sizeof t, "%d.5e%d", m, e);
            check_both(strtod(t, NULL));
            snprintf(t, sizeof t, "9.99999999999999e%d", e);
            check_both(strtod(t, NULL));
        }
    }
    check_both(DBL_MAX);
    check_both(nextafter(DBL_MAX, 0));
    check_both(DBL_MIN);
    check_both(nextafter(DBL_MIN, 0));
    check_both(DBL_EPSILON);
    check_both(DBL_TRUE_MIN);
    check_both(0.0);
    check_both(0.1);
    check_both(0.3);
    check_both(2.0 / 3.0);
}

static void test_subnormals(void **state)
{
    (void)state;
    for (uint64_t c = 1; c <= 20000; c++)
        check_both(from_bits(c));
    for (uint64_t c = 0; c < 20000; c++)
        check_both(from_bits((1ull << 52) - 1 - c));
    for (int i = 0; i < 20000; i++)
        check(from_bits(next() & ((1ull << 52) - 1)));
}

static void test_integers(void **state)
{
    (void)state;
    for (int64_t i = 0; i <= 50000; i++)
        check((double)i);
    for (int e = 10; e <= 64; e++) {
        double p = ldexp(1.0, e);
        for (int i = -300; i <= 300; i++)
            check(p + i);
    }
    for (int i = 0; i < 30000; i++)
        check((double)(next() >> (next() % 64)));
}

static void test_timing_like(void **state)
{
    (void)state;
    /* Microsecond ticks in milliseconds, averages, percentiles, shares. */
    for (uint64_t k = 0; k < 100000; k++)
        check((double)k / 1e6);
    for (int i = 0; i < 60000; i++) {
        uint64_t ticks = next() % 100000000000ull;
        uint64_t n = 1 + next() % 1000;
        check((double)ticks / 1e6);
        check((double)ticks / (double)n / 1e6);
        check((double)(ticks % 100000) / 1e3);
        check(100.0 * (double)(ticks % 1000) / (double)(1 + ticks % 7919));
    }
}

static void test_random_bits(void **state)
{
    (void)state;
    for (int i = 0; i < RANDOM_COUNT; i++)
        check(from_bits(next()));
    for (int i = 0; i < RANDOM_COUNT / 20; i++) {
        double v = from_bits(next());
        if (isfinite(v))
            check_conv(v, 'e');
    }
    printf("%lu values formatted as printf+strtod does (%d random)\n", checked, RANDOM_COUNT);
}

static void test_small_buffers(void **state)
{
    (void)state;
    char b[8];
    int n = etp_format_shortest(b, sizeof b, 0.123456789, 'g');
    assert_int_equal(n, 11);
    assert_string_equal(b, "0.12345");
    char full[ETP_DTOA_MAX];
    assert_int_equal(etp_dtoa_format(full, -2.2250738585072014e-308, 'e'), 24);
    assert_string_equal(full, "-2.2250738585072014e-308");
    etp_format_double(b, sizeof b, NAN);
    assert_string_equal(b, "null");
}

/* etp_format_fixed1 writes what printf("%.1f") writes: on exact ties
 * (quarters, twentieths), values just around them, negative values that
 * round to zero, huge ones and random bit patterns. */
static void check_fixed1(double v)
{
    char want[ETP_FIXED1_MAX], got[ETP_FIXED1_MAX];
    snprintf(want, sizeof want, "%.1f", v);
    int n = etp_format_fixed1(got, v);
    if (strcmp(want, got) || (size_t)n != strlen(want))
        fail_msg("%a: printf %s, etp_format_fixed1 %s", v, want, got);
}

static void test_fixed1(void **state)
{
    (void)state;
    static const double fixed[] = {0.0, -0.0, 0.05, -0.05, 0.25, -0.25, 0.75, 2.25, 1e15, -1e15,
                                   1e16, 1.5e300, -0.04, 0.15, 0.35, 1e-300, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check_fixed1(fixed[i]);
    for (int i = 0; i < RANDOM_COUNT / 2; i++) {
        uint64_t r = next();
        double v;
        switch (i % 5) {
        case 0: v = (double)(int64_t)(r % 4000000) / 4.0 - 500000; break;     /* quarters */
        case 1: v = (double)(int64_t)(r % 40000000) / 20.0 - 1000000; break;  /* twentieths */
        case 2: v = nextafter((double)(int64_t)(r % 400000) / 20.0, (r >> 40) & 1 ? 1e9 : -1e9); break;
        case 3: v = ((double)(r >> 11) / 9007199254740992.0) * 2e4 - 1e4; break;
        default: memcpy(&v, &r, sizeof v); break;
        }
        if (!isnan(v))
            check_fixed1(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exponent_estimates),
        cmocka_unit_test(test_powers_of_two),
        cmocka_unit_test(test_decimal_boundaries),
        cmocka_unit_test(test_subnormals),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_timing_like),
        cmocka_unit_test(test_random_bits),
        cmocka_unit_test(test_small_buffers),
        cmocka_unit_test(test_fixed1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
