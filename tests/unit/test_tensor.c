/* test_tensor.c - tensor views, element decoding, statistics and comparison
 * (etprof/tensor.h) against references written here: a long double naive
 * two-pass for the statistics of every integer and floating type (NaN and
 * infinities mixed in, all-NaN, empty, chunk-boundary sizes, a large
 * offset), every Half code against the compiler's _Float16, every BFloat16
 * code against a float bit shift, every Float8 code of the four kinds
 * against tables of known values, bits built by hand and monotonicity; the
 * view's refusals; and the comparison's figures and closeness rule. */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/tensor.h"
#include "analysis/numerics/tensor_decode.h"
#include "testutil.h"

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t rnd(void)
{
    return tu_rand(&rng_state);
}

/* Uniform in [0, 1). */
static double rnd01(void)
{
    return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* A rank-1 view of @p n elements of @p type over @p data. */
static etp_tensor_view view1(int type, uint64_t n, const void *data)
{
    etp_tensor_view t;
    etp_error err;
    int64_t size = (int64_t)n;
    assert_int_equal(etp_tensor_view_init(&t, type, 1, &size, NULL, data, "t.bin", 0, "test", &err), ETP_OK);
    assert_true(t.numel == n);
    return t;
}

/* The reference: counts, then min/max/max_abs and a two-pass mean and
 * population std in long double over the finite values. */
typedef struct ref_stats {
    uint64_t count, finite, nan, pos_inf, neg_inf, zero;
    long double min, max, mean, std, max_abs;
} ref_stats;

static ref_stats ref_compute(const long double *v, uint64_t n)
{
    ref_stats r;
    memset(&r, 0, sizeof r);
    r.count = n;
    long double sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        long double x = v[i];
        if (x != x) {
            r.nan++;
            continue;
        }
        if (x == (long double)INFINITY) {
            r.pos_inf++;
            continue;
        }
        if (x == -(long double)INFINITY) {
            r.neg_inf++;
            continue;
        }
        if (x == 0)
            r.zero++;
        if (!r.finite || x < r.min)
            r.min = x;
        if (!r.finite || x > r.max)
            r.max = x;
        long double ax = x < 0 ? -x : x;
        if (ax > r.max_abs)
            r.max_abs = ax;
        r.finite++;
        sum += x;
    }
    if (!r.finite)
        return r;
    r.mean = sum / (long double)r.finite;
    long double m2 = 0;
    for (uint64_t i = 0; i < n; i++) {
        long double x = v[i];
        if (x != x || x == (long double)INFINITY || x == -(long double)INFINITY)
            continue;
        m2 += (x - r.mean) * (x - r.mean);
    }
    r.std = sqrtl(m2 / (long double)r.finite);
    return r;
}

/* |got - want| <= rel * scale, where scale is max(|want|, floor). */
static void near(double got, long double want, double rel, long double floor_, const char *what)
{
    long double scale = fabsl(want) > floor_ ? fabsl(want) : floor_;
    long double d = fabsl((long double)got - want);
    if (!(d <= rel * scale)) {
        print_error("%s: got %.17g, want %.17Lg (diff %.3Lg > %.3g x %.3Lg)\n", what, got, want, d, rel, scale);
        fail();
    }
}

/* Library stats of @p t against the reference of @p v: counts, min, max
 * and max_abs exactly; mean within @p rel of the largest magnitude, std
 * within @p rel of itself (or of a thousandth of the spread). */
static void check_stats(const etp_tensor_view *t, const long double *v, uint64_t n, double rel)
{
    etp_tensor_stats s;
    etp_tensor_stats_compute(t, &s);
    ref_stats r = ref_compute(v, n);
    assert_true(s.count == r.count);
    assert_true(s.finite == r.finite);
    assert_true(s.nan == r.nan);
    assert_true(s.pos_inf == r.pos_inf);
    assert_true(s.neg_inf == r.neg_inf);
    assert_true(s.zero == r.zero);
    if (!r.finite) {
        assert_true(isnan(s.min) && isnan(s.max) && isnan(s.mean) && isnan(s.std) && isnan(s.max_abs));
        return;
    }
    /* min, max and max_abs are values of the tensor: exact once in double. */
    assert_true(s.min == (double)r.min);
    assert_true(s.max == (double)r.max);
    assert_true(s.max_abs == (double)r.max_abs);
    long double spread = r.max - r.min;
    /* The mean's error is relative to the magnitudes summed; the std's to
     * itself (or to the spread when it is tiny). */
    near(s.mean, r.mean, rel, r.max_abs > 1e-300L ? r.max_abs : 1e-300L, "mean");
    near(s.std, r.std, rel, spread * 1e-3L > 1e-300L ? spread * 1e-3L : 1e-300L, "std");
}

static const uint64_t sizes_to_try[] = {1, 1023, 1024, 1025, 100003};
enum { N_SIZES = sizeof sizes_to_try / sizeof sizes_to_try[0] };

/* Random integers of every integer type: narrow ranges (zeros appear) and
 * full ranges; the reference reads the typed array itself. */
static void int_case(int type, uint64_t n, int narrow)
{
    uint32_t esize = 0;
    switch (type) {
    case ETP_ST_BYTE: case ETP_ST_CHAR: case ETP_ST_BOOL: case ETP_ST_QINT8: case ETP_ST_QUINT8:
    case ETP_ST_BITS8: esize = 1; break;
    case ETP_ST_SHORT: case ETP_ST_UINT16: case ETP_ST_BITS16: esize = 2; break;
    case ETP_ST_INT: case ETP_ST_QINT32: case ETP_ST_UINT32: esize = 4; break;
    default: esize = 8; break;
    }
    uint8_t *buf = malloc(n * esize + 1);
    long double *v = malloc(n * sizeof *v);
    assert_non_null(buf);
    assert_non_null(v);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rnd();
        if (narrow)
            r = (r % 7) - 3; /* -3..3, wrapped for unsigned types */
        uint8_t *p = buf + i * esize;
        switch (type) {
        case ETP_ST_BYTE: case ETP_ST_QUINT8: case ETP_ST_BITS8: {
            uint8_t x = (uint8_t)r;
            memcpy(p, &x, 1);
            v[i] = x;
            break;
        }
        case ETP_ST_CHAR: case ETP_ST_QINT8: {
            int8_t x = (int8_t)(uint8_t)r;
            memcpy(p, &x, 1);
            v[i] = x;
            break;
        }
        case ETP_ST_BOOL: {
            uint8_t x = (uint8_t)(narrow ? r : r % 3); /* 0, 1, and 2 (true too) */
            memcpy(p, &x, 1);
            v[i] = x != 0;
            break;
        }
        case ETP_ST_SHORT: {
            int16_t x = (int16_t)(uint16_t)r;
            memcpy(p, &x, 2);
            v[i] = x;
            break;
        }
        case ETP_ST_UINT16: case ETP_ST_BITS16: {
            uint16_t x = (uint16_t)r;
            memcpy(p, &x, 2);
            v[i] = x;
            break;
        }
        case ETP_ST_INT: case ETP_ST_QINT32: {
            int32_t x = (int32_t)(uint32_t)r;
            memcpy(p, &x, 4);
            v[i] = x;
            break;
        }
        case ETP_ST_UINT32: {
            uint32_t x = (uint32_t)r;
            memcpy(p, &x, 4);
            v[i] = x;
            break;
        }
        case ETP_ST_LONG: {
            int64_t x = (int64_t)r;
            memcpy(p, &x, 8);
            /* Read as a double (the header: exact below 2^53 only). */
            v[i] = (double)x;
            break;
        }
        default: {
            uint64_t x = r;
            memcpy(p, &x, 8);
            v[i] = (double)x;
            break;
        }
        }
    }
    etp_tensor_view t = view1(type, n, buf);
    check_stats(&t, v, n, 1e-12);
    /* etp_tensor_value agrees element by element. */
    for (uint64_t i = 0; i < n; i += 1 + n / 64)
        assert_true(etp_tensor_value(&t, i) == (double)v[i]);
    free(buf);
    free(v);
}

static void test_stats_integers(void **state)
{
    (void)state;
    static const int types[] = {ETP_ST_BYTE,  ETP_ST_CHAR,   ETP_ST_SHORT,  ETP_ST_INT,    ETP_ST_LONG,
                                ETP_ST_BOOL,  ETP_ST_QINT8,  ETP_ST_QUINT8, ETP_ST_QINT32, ETP_ST_BITS8,
                                ETP_ST_BITS16, ETP_ST_UINT16, ETP_ST_UINT32, ETP_ST_UINT64};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        assert_int_equal(etp_dtype_class_of(types[k]), ETP_DTYPE_INTEGER);
        for (size_t s = 0; s < N_SIZES; s++) {
            int_case(types[k], sizes_to_try[s], 0);
            int_case(types[k], sizes_to_try[s], 1);
        }
    }
}

/* Floats with NaN, +Inf, -Inf, +0 and -0 mixed in at rate @p special (out
 * of 1000), values offset + noise * U(-1, 1). */
static void float_case(int is_double, uint64_t n, int special, double offset, double noise)
{
    size_t esize = is_double ? 8 : 4;
    uint8_t *buf = malloc(n * esize + 1);
    long double *v = malloc(n * sizeof *v);
    assert_non_null(buf);
    assert_non_null(v);
    for (uint64_t i = 0; i < n; i++) {
        double x = offset + noise * (2 * rnd01() - 1);
        int r = (int)(rnd() % 1000);
        if (r < special) {
            switch (r % 5) {
            case 0: x = NAN; break;
            case 1: x = INFINITY; break;
            case 2: x = -INFINITY; break;
            case 3: x = 0.0; break;
            default: x = -0.0; break;
            }
        }
        if (is_double) {
            memcpy(buf + i * 8, &x, 8);
            v[i] = x;
        } else {
            float f = (float)x;
            memcpy(buf + i * 4, &f, 4);
            v[i] = f;
        }
    }
    etp_tensor_view t = view1(is_double ? ETP_ST_DOUBLE : ETP_ST_FLOAT, n, buf);
    check_stats(&t, v, n, 1e-9);
    free(buf);
    free(v);
}

static void test_stats_floats(void **state)
{
    (void)state;
    for (int d = 0; d < 2; d++)
        for (size_t s = 0; s < N_SIZES; s++) {
            float_case(d, sizes_to_try[s], 0, 0.0, 1.0);
            float_case(d, sizes_to_try[s], 30, -5.0, 100.0);
            float_case(d, sizes_to_try[s], 500, 1e3, 1.0);
            float_case(d, sizes_to_try[s], 1000, 0.0, 1.0); /* NaN, Inf and signed zeros only */
        }
    /* One NaN in the middle of a chunk does not poison anything. */
    float f[3000];
    long double v[3000];
    for (int i = 0; i < 3000; i++)
        v[i] = f[i] = (float)i;
    v[1500] = f[1500] = NAN;
    v[7] = f[7] = INFINITY;
    v[2999] = f[2999] = -INFINITY;
    etp_tensor_view t = view1(ETP_ST_FLOAT, 3000, f);
    check_stats(&t, v, 3000, 1e-12);
    etp_tensor_stats s;
    etp_tensor_stats_compute(&t, &s);
    assert_true(s.min == 0 && s.max == 2998 && s.max_abs == 2998);
    assert_true(s.nan == 1 && s.pos_inf == 1 && s.neg_inf == 1 && s.zero == 1 && s.finite == 2997);
}

/* 1e9 plus noise of 1: a sum of squares would lose the std entirely. */
static void test_stats_large_offset(void **state)
{
    (void)state;
    for (size_t s = 0; s < N_SIZES; s++) {
        uint64_t n = sizes_to_try[s];
        double *d = malloc(n * sizeof *d);
        long double *v = malloc(n * sizeof *v);
        for (uint64_t i = 0; i < n; i++)
            v[i] = d[i] = 1e9 + (2 * rnd01() - 1);
        etp_tensor_view t = view1(ETP_ST_DOUBLE, n, d);
        etp_tensor_stats st;
        etp_tensor_stats_compute(&t, &st);
        ref_stats r = ref_compute(v, n);
        near(st.mean, r.mean, 1e-14, r.mean, "offset mean"); /* Chan's merges: a few ulps */
        if (n > 1)
            near(st.std, r.std, 1e-6, r.std, "offset std");
        else
            assert_true(st.std == 0);
        free(d);
        free(v);
    }
    /* Float32 around 1e4 (its ulp there is 1e-3): std of values 1e-2 apart. */
    uint64_t n = 100003;
    float *f = malloc(n * sizeof *f);
    long double *v = malloc(n * sizeof *v);
    for (uint64_t i = 0; i < n; i++)
        v[i] = f[i] = (float)(1e4 + 0.05 * (2 * rnd01() - 1));
    etp_tensor_view t = view1(ETP_ST_FLOAT, n, f);
    etp_tensor_stats st;
    etp_tensor_stats_compute(&t, &st);
    ref_stats r = ref_compute(v, n);
    near(st.std, r.std, 1e-6, r.std, "float offset std");
    free(f);
    free(v);
}

static void test_stats_edges(void **state)
{
    (void)state;
    etp_tensor_stats s;
    /* Empty: a dimension of 0. */
    float one = 1.0f;
    int64_t sizes[2] = {3, 0};
    etp_tensor_view t;
    etp_error err;
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 2, sizes, NULL, (const uint8_t *)&one, "p", 0, "w", &err),
                     ETP_OK);
    assert_true(t.numel == 0 && t.nbytes == 0);
    etp_tensor_stats_compute(&t, &s);
    assert_true(s.count == 0 && s.finite == 0 && s.nan == 0 && s.zero == 0);
    assert_true(isnan(s.min) && isnan(s.max) && isnan(s.mean) && isnan(s.std) && isnan(s.max_abs));
    /* Empty integer tensor too. */
    t.scalar_type = ETP_ST_INT;
    etp_tensor_stats_compute(&t, &s);
    assert_true(s.count == 0 && s.finite == 0 && isnan(s.mean));
    /* Rank 0: one element. */
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 0, NULL, NULL, (const uint8_t *)&one, "p", 0, "w", &err),
                     ETP_OK);
    assert_true(t.numel == 1 && t.nbytes == 4);
    etp_tensor_stats_compute(&t, &s);
    assert_true(s.count == 1 && s.finite == 1 && s.mean == 1 && s.std == 0 && s.min == 1 && s.max == 1);
    /* No bytes: count 0, NaN figures. */
    int64_t four = 4;
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 1, &four, NULL, NULL, "p", 0, "w", &err), ETP_OK);
    etp_tensor_stats_compute(&t, &s);
    assert_true(s.count == 0 && isnan(s.mean));
    /* Undecodable (complex): count 0, NaN figures, NaN values. */
    uint8_t bytes[64] = {0};
    assert_int_equal(etp_dtype_class_of(ETP_ST_COMPLEX_FLOAT), ETP_DTYPE_UNDECODED);
    assert_int_equal(etp_dtype_class_of(99), ETP_DTYPE_UNKNOWN);
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_COMPLEX_FLOAT, 1, &four, NULL, bytes, "p", 0, "w", &err), ETP_OK);
    etp_tensor_stats_compute(&t, &s);
    assert_true(s.count == 0 && isnan(s.mean));
    assert_true(isnan(etp_tensor_value(&t, 0)));
    /* All NaN (every size): figures NaN, counts right. */
    for (size_t k = 0; k < N_SIZES; k++) {
        uint64_t n = sizes_to_try[k];
        float *f = malloc(n * sizeof *f);
        for (uint64_t i = 0; i < n; i++)
            f[i] = NAN;
        etp_tensor_view a = view1(ETP_ST_FLOAT, n, f);
        etp_tensor_stats_compute(&a, &s);
        assert_true(s.count == n && s.nan == n && s.finite == 0 && s.zero == 0);
        assert_true(isnan(s.min) && isnan(s.max) && isnan(s.mean) && isnan(s.std) && isnan(s.max_abs));
        free(f);
    }
    /* All zeros: zero count, std 0. */
    int32_t z[1025] = {0};
    etp_tensor_view a = view1(ETP_ST_INT, 1025, z);
    etp_tensor_stats_compute(&a, &s);
    assert_true(s.zero == 1025 && s.finite == 1025 && s.mean == 0 && s.std == 0 && s.max_abs == 0);
    /* Negative values only: max_abs from the minimum. */
    int8_t m[3] = {-128, -1, -5};
    a = view1(ETP_ST_CHAR, 3, m);
    etp_tensor_stats_compute(&a, &s);
    assert_true(s.min == -128 && s.max == -1 && s.max_abs == 128 && s.zero == 0);
}

/* The exact integer paths at their bounds: alternating extremes (mean and
 * std known exactly), and NaN with every sign and payload. */
static void test_stats_extremes(void **state)
{
    (void)state;
    static const struct {
        int type;
        size_t esize;
        double lo, hi;
    } t8[] = {
        {ETP_ST_BYTE, 1, 0, 255},          {ETP_ST_CHAR, 1, -128, 127},     {ETP_ST_SHORT, 2, -32768, 32767},
        {ETP_ST_UINT16, 2, 0, 65535},      {ETP_ST_INT, 4, -2147483648.0, 2147483647.0},
        {ETP_ST_UINT32, 4, 0, 4294967295.0},
    };
    enum { N = 3 * 1024 + 6 };
    uint8_t *buf = malloc(N * 4);
    for (size_t k = 0; k < sizeof t8 / sizeof t8[0]; k++) {
        for (uint32_t i = 0; i < N; i++) {
            double v = i % 2 ? t8[k].hi : t8[k].lo;
            int64_t iv = (int64_t)v;
            memcpy(buf + i * t8[k].esize, &iv, t8[k].esize); /* little-endian host */
        }
        etp_tensor_view t = view1(t8[k].type, N, buf);
        etp_tensor_stats s;
        etp_tensor_stats_compute(&t, &s);
        assert_true(s.min == t8[k].lo && s.max == t8[k].hi);
        assert_true(s.mean == (t8[k].lo + t8[k].hi) / 2);
        near(s.std, ((long double)t8[k].hi - t8[k].lo) / 2, 1e-15, 0, "extreme std");
        /* All at the maximum: std exactly 0. */
        for (uint32_t i = 0; i < N; i++) {
            int64_t iv = (int64_t)t8[k].hi;
            memcpy(buf + i * t8[k].esize, &iv, t8[k].esize);
        }
        etp_tensor_stats_compute(&t, &s);
        assert_true(s.mean == t8[k].hi && s.std == 0 && s.zero == 0);
    }
    free(buf);
    /* NaN of either sign, quiet or signalling, and Inf, by their bits. */
    static const uint32_t fb[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu,
                                  0x7f800000u, 0xff800000u, 0x3f800000u, 0xbf800000u, 0x80000000u, 0x00000001u};
    float f[2048];
    long double v[2048];
    for (int i = 0; i < 2048; i++) {
        uint32_t b = fb[i % 12];
        memcpy(&f[i], &b, 4);
        v[i] = f[i];
    }
    etp_tensor_view t = view1(ETP_ST_FLOAT, 2048, f);
    check_stats(&t, v, 2048, 1e-12);
    static const uint64_t db[] = {0x7ff8000000000000u, 0xfff8000000000000u, 0x7ff0000000000001u,
                                  0xfff0000000000001u, 0x7ff0000000000000u, 0xfff0000000000000u,
                                  0x3ff0000000000000u, 0x0000000000000001u, 0x8000000000000001u};
    double d[1030];
    long double dv[1030];
    for (int i = 0; i < 1030; i++) {
        memcpy(&d[i], &db[i % 9], 8);
        dv[i] = d[i];
    }
    t = view1(ETP_ST_DOUBLE, 1030, d);
    check_stats(&t, dv, 1030, 1e-12);
    etp_tensor_stats s;
    etp_tensor_stats_compute(&t, &s);
    assert_true(s.min == -0x1p-1074 && s.max == 1.0);
}

static void test_view_init_errors(void **state)
{
    (void)state;
    etp_tensor_view t;
    etp_error err;
    int64_t sizes[17];
    for (int i = 0; i < 17; i++)
        sizes[i] = 1;
    memset(&err, 0, sizeof err);
    assert_int_equal(etp_tensor_view_init(&t, 99, 1, sizes, NULL, NULL, "a.etdp", 12, "run 1 event 3 tensor 0", &err),
                     ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "run 1 event 3 tensor 0"));
    assert_non_null(strstr(err.message, "99"));
    assert_int_equal(err.offset, 12);
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 17, sizes, NULL, NULL, "a", 0, "what17", &err),
                     ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "what17"));
    assert_non_null(strstr(err.message, "17"));
    /* Rank 16 is the limit itself: fine. */
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 16, sizes, NULL, NULL, "a", 0, "w", &err), ETP_OK);
    assert_true(t.numel == 1 && t.rank == 16);
    int64_t neg[2] = {2, -3};
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 2, neg, NULL, NULL, "a", 0, "negw", &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "negw"));
    assert_non_null(strstr(err.message, "-3"));
    int32_t neg32[2] = {2, -1};
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 2, NULL, neg32, NULL, "a", 0, "neg32", &err),
                     ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "neg32"));
    /* 2^31 x 2^31 x 4 bytes = 2^64: over the 2^62 limit. */
    int64_t big[2] = {INT64_C(1) << 31, INT64_C(1) << 31};
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 2, big, NULL, NULL, "a", 0, "bigw", &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "bigw"));
    int64_t huge[1] = {INT64_MAX};
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_BYTE, 1, huge, NULL, NULL, "a", 0, "hugew", &err), ETP_E_FORMAT);
    /* 2^62 bytes exactly is refused ("fewer than 2^62"); just below is fine. */
    int64_t at[1] = {INT64_C(1) << 60};
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 1, at, NULL, NULL, "a", 0, "atw", &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "atw"));
    int64_t edge[2] = {INT64_C(1) << 30, (INT64_C(1) << 30) - 1};
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 2, edge, NULL, NULL, "a", 0, "w", &err), ETP_OK);
    assert_true(t.nbytes == ((UINT64_C(1) << 60) - (UINT64_C(1) << 30)) * 4);
    /* A zero dimension before a huge one: zero elements. */
    int64_t z[2] = {0, INT64_MAX};
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_FLOAT, 2, z, NULL, NULL, "a", 0, "w", &err), ETP_OK);
    assert_true(t.numel == 0);
    int32_t s32[3] = {2, 3, 4};
    assert_int_equal(etp_tensor_view_init(&t, ETP_ST_DOUBLE, 3, NULL, s32, NULL, "a", 0, "w", &err), ETP_OK);
    assert_true(t.numel == 24 && t.nbytes == 192 && t.sizes[2] == 4 && t.data == NULL);
}

/* Half: every code against the compiler's _Float16 (or, without it, the
 * fields scaled by hand). */
static double half_oracle(uint16_t h)
{
#ifdef __FLT16_MAX__
    _Float16 f;
    memcpy(&f, &h, 2);
    return (double)f;
#else
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 31 ? (m ? NAN : INFINITY) : e ? (1024 + m) * pow(2, e - 25) : m * pow(2, -24);
    return h >> 15 ? -v : v;
#endif
}

static void same_double(double got, double want, unsigned code, const char *kind)
{
    if (isnan(want) ? !isnan(got) : !(got == want && !signbit(got) == !signbit(want))) {
        print_error("%s code 0x%x: got %.17g, want %.17g\n", kind, code, got, want);
        fail();
    }
}

static void test_half_all_codes(void **state)
{
    (void)state;
    uint16_t *codes = malloc(65536 * 2);
    long double *v = malloc(65536 * sizeof *v);
    for (uint32_t c = 0; c < 65536; c++) {
        codes[c] = (uint16_t)c;
        double want = half_oracle((uint16_t)c);
        same_double(etp_half_to_double((uint16_t)c), want, c, "half");
        v[c] = want;
    }
    etp_tensor_view t = view1(ETP_ST_HALF, 65536, codes);
    for (uint32_t c = 0; c < 65536; c += 7)
        same_double(etp_tensor_value(&t, c), half_oracle((uint16_t)c), c, "half value");
    assert_true(etp_half_to_double(0x7bff) == 65504.0);
    assert_true(etp_half_to_double(0x0001) == 0x1p-24);
    assert_true(etp_half_to_double(0x3c00) == 1.0);
    check_stats(&t, v, 65536, 1e-12);
    etp_tensor_stats s;
    etp_tensor_stats_compute(&t, &s);
    assert_true(s.nan == 2046 && s.pos_inf == 1 && s.neg_inf == 1 && s.zero == 2);
    assert_true(s.max == 65504.0 && s.min == -65504.0);
    free(codes);
    free(v);
}

static void test_bfloat16_all_codes(void **state)
{
    (void)state;
    uint16_t *codes = malloc(65536 * 2);
    long double *v = malloc(65536 * sizeof *v);
    for (uint32_t c = 0; c < 65536; c++) {
        uint32_t u = c << 16;
        float f;
        memcpy(&f, &u, 4);
        codes[c] = (uint16_t)c;
        same_double(etp_bfloat16_to_double((uint16_t)c), f, c, "bfloat16");
        v[c] = f;
    }
    etp_tensor_view t = view1(ETP_ST_BFLOAT16, 65536, codes);
    for (uint32_t c = 0; c < 65536; c += 5)
        same_double(etp_tensor_value(&t, c), (double)v[c], c, "bfloat16 value");
    assert_true(etp_bfloat16_to_double(0x3f80) == 1.0);
    check_stats(&t, v, 65536, 1e-12);
    etp_tensor_stats s;
    etp_tensor_stats_compute(&t, &s);
    assert_true(s.nan == 2 * 127 && s.pos_inf == 1 && s.neg_inf == 1 && s.zero == 2);
    free(codes);
    free(v);
}

/* One Float8 kind: its field widths, bias, and which codes are special. */
typedef struct f8_kind {
    int type;
    const char *name;
    int ebits, mbits, bias, fnuz, has_inf;
    double max;
    uint8_t max_code;
    double min_sub;
    int nan_count; /* of 256 */
} f8_kind;

/* The value of code @p b built as IEEE double bits (normal) or an exact
 * product (subnormal), without ldexp; NaN / Inf per the kind's rules. */
static double f8_oracle(const f8_kind *k, uint8_t b)
{
    int sign = b >> 7, e = (b >> k->mbits) & ((1 << k->ebits) - 1), m = b & ((1 << k->mbits) - 1);
    int top = (1 << k->ebits) - 1;
    if (k->fnuz) {
        if (b == 0x80)
            return NAN;
    } else if (k->has_inf) {
        if (e == top)
            return m ? NAN : sign ? -INFINITY : INFINITY;
    } else if (e == top && m == (1 << k->mbits) - 1) {
        return NAN;
    }
    double v;
    if (e) {
        uint64_t bits = ((uint64_t)(e - k->bias + 1023) << 52) | ((uint64_t)m << (52 - k->mbits));
        memcpy(&v, &bits, 8);
    } else {
        v = m / (double)(UINT64_C(1) << (k->bias + k->mbits - 1));
    }
    return sign ? -v : v;
}

static void test_float8_all_codes(void **state)
{
    (void)state;
    static const f8_kind kinds[] = {
        {ETP_ST_F8_E4M3FN, "e4m3fn", 4, 3, 7, 0, 0, 448.0, 0x7E, 0x1p-9, 2},
        {ETP_ST_F8_E5M2, "e5m2", 5, 2, 15, 0, 1, 57344.0, 0x7B, 0x1p-16, 6},
        {ETP_ST_F8_E4M3FNUZ, "e4m3fnuz", 4, 3, 8, 1, 0, 240.0, 0x7F, 0x1p-10, 1},
        {ETP_ST_F8_E5M2FNUZ, "e5m2fnuz", 5, 2, 16, 1, 0, 57344.0, 0x7F, 0x1p-17, 1},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const f8_kind *K = &kinds[k];
        uint8_t codes[256];
        long double v[256];
        int nans = 0;
        for (int c = 0; c < 256; c++) {
            codes[c] = (uint8_t)c;
            double got = etp_float8_to_double(K->type, (uint8_t)c);
            same_double(got, f8_oracle(K, (uint8_t)c), (unsigned)c, K->name);
            nans += isnan(got);
            v[c] = got;
        }
        assert_int_equal(nans, K->nan_count);
        /* The table of known values. */
        assert_true(etp_float8_to_double(K->type, K->max_code) == K->max);
        assert_true(etp_float8_to_double(K->type, (uint8_t)(K->max_code | 0x80)) == -K->max);
        assert_true(etp_float8_to_double(K->type, 0x01) == K->min_sub);
        assert_true(etp_float8_to_double(K->type, 0x00) == 0.0);
        assert_true(etp_float8_to_double(K->type, (uint8_t)((K->bias) << K->mbits)) == 1.0);
        switch (K->type) {
        case ETP_ST_F8_E4M3FN:
            assert_true(isnan(etp_float8_to_double(K->type, 0x7F)) && isnan(etp_float8_to_double(K->type, 0xFF)));
            assert_true(etp_float8_to_double(K->type, 0x08) == 0x1p-6); /* min normal */
            assert_true(etp_float8_to_double(K->type, 0x07) == 0.875 * 0x1p-6);
            assert_true(etp_float8_to_double(K->type, 0x78) == 256.0);
            assert_true(signbit(etp_float8_to_double(K->type, 0x80)) && etp_float8_to_double(K->type, 0x80) == 0);
            break;
        case ETP_ST_F8_E5M2:
            assert_true(etp_float8_to_double(K->type, 0x7C) == INFINITY);
            assert_true(etp_float8_to_double(K->type, 0xFC) == -INFINITY);
            for (int c = 0x7D; c <= 0x7F; c++)
                assert_true(isnan(etp_float8_to_double(K->type, (uint8_t)c)) &&
                            isnan(etp_float8_to_double(K->type, (uint8_t)(c | 0x80))));
            assert_true(etp_float8_to_double(K->type, 0x04) == 0x1p-14); /* min normal */
            assert_true(etp_float8_to_double(K->type, 0x3C) == 1.0);
            break;
        case ETP_ST_F8_E4M3FNUZ:
            assert_true(isnan(etp_float8_to_double(K->type, 0x80)));
            assert_true(etp_float8_to_double(K->type, 0xFF) == -240.0);
            assert_true(etp_float8_to_double(K->type, 0x40) == 1.0);
            assert_true(etp_float8_to_double(K->type, 0x08) == 0x1p-7);
            break;
        default:
            assert_true(isnan(etp_float8_to_double(K->type, 0x80)));
            assert_true(etp_float8_to_double(K->type, 0xFF) == -57344.0);
            assert_true(etp_float8_to_double(K->type, 0x7C) == 32768.0); /* no Inf */
            assert_true(etp_float8_to_double(K->type, 0x40) == 1.0);
            assert_true(etp_float8_to_double(K->type, 0x04) == 0x1p-15);
            break;
        }
        /* Positive codes increase strictly up to the largest finite one;
         * negative codes mirror them. */
        double prev = -1;
        for (int c = 0; c < 0x80; c++) {
            double x = etp_float8_to_double(K->type, (uint8_t)c);
            if (isnan(x))
                continue;
            assert_true(x > prev);
            prev = x;
            if (!(K->fnuz && c == 0))
                assert_true(etp_float8_to_double(K->type, (uint8_t)(c | 0x80)) == -x);
        }
        assert_true(prev == (K->has_inf ? INFINITY : K->max));
        /* Read through a view and summarised. */
        etp_tensor_view t = view1(K->type, 256, codes);
        for (int c = 0; c < 256; c++)
            same_double(etp_tensor_value(&t, (uint64_t)c), (double)v[c], (unsigned)c, K->name);
        check_stats(&t, v, 256, 1e-12);
        etp_tensor_stats s;
        etp_tensor_stats_compute(&t, &s);
        assert_true(s.nan == (uint64_t)K->nan_count);
        assert_true(s.zero == (K->fnuz ? 1u : 2u));
        assert_true(s.max == K->max && s.min == -K->max);
        assert_true(s.pos_inf == (K->has_inf ? 1u : 0u) && s.neg_inf == s.pos_inf);
    }
}

static etp_tensor_gap compare_ok(const etp_tensor_view *ref, const etp_quant_params *qr, const etp_tensor_view *got,
                                 const etp_quant_params *qg, etp_tolerance tol)
{
    etp_tensor_gap g;
    etp_error err;
    assert_int_equal(etp_tensor_compare(ref, qr, got, qg, tol, "p", "w", &g, &err), ETP_OK);
    return g;
}

static void test_compare_float(void **state)
{
    (void)state;
    enum { N = 5000 };
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    for (int i = 0; i < N; i++)
        a[i] = b[i] = (float)(2 * rnd01() - 1);
    etp_tensor_view ra = view1(ETP_ST_FLOAT, N, a), gb = view1(ETP_ST_FLOAT, N, b);
    /* Identical. */
    etp_tensor_gap g = compare_ok(&ra, NULL, &gb, NULL, ETP_TOLERANCE_DEFAULT);
    assert_true(g.count == N && g.mse == 0 && g.mae == 0 && g.max_abs_err == 0);
    assert_true(g.snr_db == INFINITY);
    assert_true(fabs(g.cosine - 1.0) <= 1e-15);
    assert_true(g.mismatches == 0 && g.nonfinite_diff == 0 && g.exact_compare == 0);
    /* One element perturbed. */
    b[1234] += 0.5f;
    g = compare_ok(&ra, NULL, &gb, NULL, ETP_TOLERANCE_DEFAULT);
    assert_true(g.mismatches == 1 && g.max_abs_index == 1234 && g.worst_index == 1234);
    assert_true(g.worst_reference == a[1234] && g.worst_got == b[1234]);
    double e = (double)b[1234] - (double)a[1234];
    assert_true(g.max_abs_err == fabs(e));
    near(g.mse, (long double)e * e / N, 1e-12, 0, "mse");
    near(g.mae, fabsl((long double)e) / N, 1e-12, 0, "mae");
    /* Against a long double reference over random noise everywhere. */
    long double s_ref2 = 0, s_got2 = 0, s_err2 = 0, s_abs = 0, s_dot = 0, worst = 0;
    for (int i = 0; i < N; i++) {
        b[i] = a[i] + (float)(1e-3 * (2 * rnd01() - 1));
        long double x = a[i], y = b[i], d = y - x;
        s_ref2 += x * x, s_got2 += y * y, s_err2 += d * d, s_abs += fabsl(d), s_dot += x * y;
        if (fabsl(d) > worst)
            worst = fabsl(d);
    }
    g = compare_ok(&ra, NULL, &gb, NULL, (etp_tolerance){0, 1e-2});
    assert_true(g.mismatches == 0);
    near(g.mse, s_err2 / N, 1e-12, 0, "mse");
    near(g.mae, s_abs / N, 1e-12, 0, "mae");
    assert_true(g.max_abs_err == (double)worst);
    assert_true(fabs(g.max_abs_err - fabs((double)b[g.max_abs_index] - (double)a[g.max_abs_index])) == 0);
    near(g.snr_db, 10 * log10l(s_ref2 / s_err2), 1e-12, 0, "snr");
    near(g.cosine, s_dot / sqrtl(s_ref2 * s_got2), 1e-12, 0, "cosine");
    free(a);
    free(b);
    /* Large doubles: each sum of squares is finite (3e201), their product
     * is not; the cosine still is. */
    double big[4] = {1e100, -2e100, 3e100, 4e100}, big2[4] = {1e100, -2e100, 3e100, 4.0000001e100};
    etp_tensor_view rb = view1(ETP_ST_DOUBLE, 4, big), gb2 = view1(ETP_ST_DOUBLE, 4, big2);
    g = compare_ok(&rb, NULL, &gb2, NULL, ETP_TOLERANCE_DEFAULT);
    assert_true(g.cosine > 0.999999 && g.cosine <= 1.0 + 1e-15);
    g = compare_ok(&rb, NULL, &rb, NULL, ETP_TOLERANCE_DEFAULT);
    assert_true(fabs(g.cosine - 1.0) <= 1e-15 && g.snr_db == INFINITY);
}

static void test_compare_tolerance_and_nonfinite(void **state)
{
    (void)state;
    /* Exactly at atol + rtol |ref| is close; one ulp above is not. With
     * values where the bound is exact: atol 0.25, rtol 0.5, ref 2 -> 1.25. */
    double ref[6] = {2.0, 2.0, -4.0, NAN, NAN, INFINITY};
    double got[6] = {3.25, 0.75, -6.25, NAN, 1.0, INFINITY};
    etp_tensor_view r = view1(ETP_ST_DOUBLE, 6, ref), g = view1(ETP_ST_DOUBLE, 6, got);
    etp_tensor_gap gap = compare_ok(&r, NULL, &g, NULL, (etp_tolerance){0.5, 0.25});
    /* 3.25 and 0.75: exactly at the bound (match); -6.25 vs -4: bound 2.25,
     * exactly at it (match); NaN/NaN match; NaN vs 1 mismatch; Inf/Inf match. */
    assert_true(gap.mismatches == 1 && gap.nonfinite_diff == 1);
    assert_true(gap.count == 3);
    assert_true(gap.worst_index == 4 && isnan(gap.worst_reference) && gap.worst_got == 1.0);
    got[0] = nextafter(3.25, 4);
    gap = compare_ok(&r, NULL, &g, NULL, (etp_tolerance){0.5, 0.25});
    assert_true(gap.mismatches == 2 && gap.nonfinite_diff == 1);
    /* Without the non-finite mismatch, the worst is the element over it. */
    got[4] = NAN;
    gap = compare_ok(&r, NULL, &g, NULL, (etp_tolerance){0.5, 0.25});
    assert_true(gap.mismatches == 1 && gap.nonfinite_diff == 0 && gap.worst_index == 0);
    /* All close: the worst is the one closest to its bound. */
    got[0] = 3.0, got[1] = 2.0, got[2] = -6.125;
    gap = compare_ok(&r, NULL, &g, NULL, (etp_tolerance){0.5, 0.25});
    assert_true(gap.mismatches == 0 && gap.worst_index == 2); /* 0.125 under its bound; index 0 0.25 */
    /* Inf against -Inf differs. */
    got[5] = -INFINITY;
    gap = compare_ok(&r, NULL, &g, NULL, (etp_tolerance){0.5, 0.25});
    assert_true(gap.mismatches == 1 && gap.nonfinite_diff == 1 && gap.worst_index == 5);
}

static void test_compare_integers(void **state)
{
    (void)state;
    int32_t a[2000], b[2000];
    for (int i = 0; i < 2000; i++)
        a[i] = b[i] = (int32_t)(rnd() % 2000001) - 1000000;
    etp_tensor_view ra = view1(ETP_ST_INT, 2000, a), gb = view1(ETP_ST_INT, 2000, b);
    etp_tensor_gap g = compare_ok(&ra, NULL, &gb, NULL, ETP_TOLERANCE_DEFAULT);
    assert_true(g.exact_compare == 1 && g.mismatches == 0 && g.mse == 0 && g.snr_db == INFINITY);
    /* A difference far inside the float tolerance is still a mismatch. */
    a[17] = 1000000, b[17] = 1000001;
    g = compare_ok(&ra, NULL, &gb, NULL, (etp_tolerance){1e-3, 1});
    assert_true(g.exact_compare == 1 && g.mismatches == 1 && g.worst_index == 17 && g.max_abs_index == 17);
    assert_true(g.max_abs_err == 1.0);
    /* Int8 quantized against a float reference, dequantized. */
    enum { N = 300 };
    int8_t q[N];
    float f[N];
    etp_quant_params qp = {1, 0.05, -3};
    for (int i = 0; i < N; i++) {
        q[i] = (int8_t)(i % 256 - 128);
        f[i] = (float)((q[i] - -3) * 0.05);
    }
    etp_tensor_view rf = view1(ETP_ST_FLOAT, N, f), gq = view1(ETP_ST_QINT8, N, q);
    g = compare_ok(&rf, NULL, &gq, &qp, ETP_TOLERANCE_DEFAULT);
    assert_true(g.exact_compare == 0 && g.count == N && g.mismatches == 0);
    assert_true(g.max_abs_err < 1e-6);
    q[100] = (int8_t)(q[100] + 1); /* one quantization step off */
    g = compare_ok(&rf, NULL, &gq, &qp, ETP_TOLERANCE_DEFAULT);
    assert_true(g.mismatches == 1 && g.worst_index == 100 && g.max_abs_index == 100);
    assert_true(fabs(g.max_abs_err - 0.05) < 1e-6);
    assert_true(fabs(g.worst_got - (q[100] + 3) * 0.05) < 1e-12);
    /* Without the quant params the stored integers are compared as floats
     * (the reference is float): not exact. */
    g = compare_ok(&rf, NULL, &gq, NULL, ETP_TOLERANCE_DEFAULT);
    assert_true(g.exact_compare == 0 && g.mismatches > 0);
    /* Both sides quantized: not exact either. */
    g = compare_ok(&gq, &qp, &gq, &qp, ETP_TOLERANCE_DEFAULT);
    assert_true(g.exact_compare == 0 && g.mismatches == 0);
}

static void test_compare_errors_and_zeros(void **state)
{
    (void)state;
    float a[6] = {1, 2, 3, 4, 5, 6}, z[6] = {0};
    etp_tensor_view r, g;
    etp_error err;
    etp_tensor_gap gap;
    int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s6[1] = {6};
    assert_int_equal(etp_tensor_view_init(&r, ETP_ST_FLOAT, 2, s23, NULL, (uint8_t *)a, "p", 0, "w", &err), ETP_OK);
    assert_int_equal(etp_tensor_view_init(&g, ETP_ST_FLOAT, 2, s32, NULL, (uint8_t *)a, "p", 0, "w", &err), ETP_OK);
    assert_int_equal(etp_tensor_compare(&r, NULL, &g, NULL, ETP_TOLERANCE_DEFAULT, "x.bin", "out 0", &gap, &err),
                     ETP_E_MISMATCH);
    assert_non_null(strstr(err.message, "out 0"));
    assert_non_null(strstr(err.message, "[2,3]"));
    assert_non_null(strstr(err.message, "[3,2]"));
    /* Same numel, different rank. */
    assert_int_equal(etp_tensor_view_init(&g, ETP_ST_FLOAT, 1, s6, NULL, (uint8_t *)a, "p", 0, "w", &err), ETP_OK);
    assert_int_equal(etp_tensor_compare(&r, NULL, &g, NULL, ETP_TOLERANCE_DEFAULT, "x", "w", &gap, &err),
                     ETP_E_MISMATCH);
    /* No bytes, or an undecodable type. */
    assert_int_equal(etp_tensor_view_init(&g, ETP_ST_FLOAT, 2, s23, NULL, NULL, "p", 0, "w", &err), ETP_OK);
    assert_int_equal(etp_tensor_compare(&r, NULL, &g, NULL, ETP_TOLERANCE_DEFAULT, "x", "w", &gap, &err),
                     ETP_E_MISMATCH);
    assert_int_equal(etp_tensor_view_init(&g, ETP_ST_COMPLEX_HALF, 2, s23, NULL, (uint8_t *)a, "p", 0, "w", &err),
                     ETP_OK);
    assert_int_equal(etp_tensor_compare(&g, NULL, &r, NULL, ETP_TOLERANCE_DEFAULT, "x", "w", &gap, &err),
                     ETP_E_MISMATCH);
    /* A reference of zeros: SNR -Inf, cosine NaN. */
    etp_tensor_view rz = view1(ETP_ST_FLOAT, 6, z), ga = view1(ETP_ST_FLOAT, 6, a);
    gap = compare_ok(&rz, NULL, &ga, NULL, ETP_TOLERANCE_DEFAULT);
    assert_true(gap.snr_db == -INFINITY && isnan(gap.cosine) && gap.mismatches == 6);
    assert_true(gap.max_abs_err == 6 && gap.max_abs_index == 5 && gap.worst_index == 5);
    /* Zeros against zeros: no error at all. */
    gap = compare_ok(&rz, NULL, &rz, NULL, ETP_TOLERANCE_DEFAULT);
    assert_true(gap.snr_db == INFINITY && isnan(gap.cosine) && gap.mismatches == 0);
    /* Nothing finite in common: NaN figures, count 0. */
    float n6[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
    etp_tensor_view rn = view1(ETP_ST_FLOAT, 6, n6);
    gap = compare_ok(&rn, NULL, &ga, NULL, ETP_TOLERANCE_DEFAULT);
    assert_true(gap.count == 0 && gap.nonfinite_diff == 6 && gap.mismatches == 6);
    assert_true(isnan(gap.mse) && isnan(gap.snr_db) && isnan(gap.cosine));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_integers),
        cmocka_unit_test(test_stats_floats),
        cmocka_unit_test(test_stats_large_offset),
        cmocka_unit_test(test_stats_edges),
        cmocka_unit_test(test_stats_extremes),
        cmocka_unit_test(test_view_init_errors),
        cmocka_unit_test(test_half_all_codes),
        cmocka_unit_test(test_bfloat16_all_codes),
        cmocka_unit_test(test_float8_all_codes),
        cmocka_unit_test(test_compare_float),
        cmocka_unit_test(test_compare_tolerance_and_nonfinite),
        cmocka_unit_test(test_compare_integers),
        cmocka_unit_test(test_compare_errors_and_zeros),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
