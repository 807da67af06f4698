/* tensor_stats.c - one pass over a tensor's values (etprof/tensor.h).
 *
 * Why chunks: a running sum of squares loses the variance of values far
 * from zero, and Welford's update divides per element (slow). Each chunk of
 * CHUNK elements is read twice while it sits in L1 (mean, then squared
 * deviations from it) and the chunks are merged with Chan's formula: exact
 * to double rounding and still one pass over memory. NaN and Inf are
 * counted and left out of everything else. */
#include <math.h>
#include <string.h>

#include "etprof/tensor.h"
#include "analysis/numerics/tensor_decode.h"

enum { CHUNK = 1024 };

typedef struct acc {
    uint64_t n;                  /* finite elements so far */
    double mean, m2, min, max, max_abs;
} acc;

static void merge(acc *a, uint64_t n, double mean, double m2, double mn, double mx)
{
    if (!n)
        return;
    if (!a->n) {
        a->n = n, a->mean = mean, a->m2 = m2, a->min = mn, a->max = mx;
        return;
    }
    double total = (double)(a->n + n), delta = mean - a->mean;
    a->mean += delta * (double)n / total;
    a->m2 += m2 + delta * delta * (double)a->n * (double)n / total;
    a->n += n;
    if (mn < a->min)
        a->min = mn;
    if (mx > a->max)
        a->max = mx;
}

/* One chunk of already-decoded finite values. */
static void chunk_done(acc *a, const double *v, uint32_t n)
{
    if (!n)
        return;
    double sum = 0, mn = v[0], mx = v[0];
    for (uint32_t i = 0; i < n; i++) {
        sum += v[i];
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
    }
    double mean = sum / n, m2 = 0;
    for (uint32_t i = 0; i < n; i++) {
        double d = v[i] - mean;
        m2 += d * d;
    }
    merge(a, n, mean, m2, mn, mx);
}

/* Integers: never NaN; one loop per element type (the compiler vectorises
 * the loads and compares). */
#define INT_STATS(T, NAME)                                                                         \
    static void NAME(const uint8_t *p, uint64_t count, acc *a, uint64_t *zero)                     \
    {                                                                                              \
        double buf[CHUNK];                                                                         \
        uint64_t z = 0;                                                                            \
        for (uint64_t base = 0; base < count; base += CHUNK) {                                     \
            uint32_t n = count - base < CHUNK ? (uint32_t)(count - base) : CHUNK;                  \
            for (uint32_t i = 0; i < n; i++) {                                                     \
                T x;                                                                               \
                memcpy(&x, p + (base + i) * sizeof x, sizeof x);                                   \
                z += x == 0;                                                               \
                buf[i] = (double)x;                                                                \
            }                                                                                      \
            chunk_done(a, buf, n);                                                                 \
        }                                                                                          \
        *zero += z;                                                                                \
    }
INT_STATS(uint8_t, stats_u8)
INT_STATS(int8_t, stats_i8)
INT_STATS(int16_t, stats_i16)
INT_STATS(uint16_t, stats_u16)
INT_STATS(int32_t, stats_i32)
INT_STATS(uint32_t, stats_u32)
INT_STATS(int64_t, stats_i64)
INT_STATS(uint64_t, stats_u64)

static void stats_bool(const uint8_t *p, uint64_t count, acc *a, uint64_t *zero)
{
    double buf[CHUNK];
    for (uint64_t base = 0; base < count; base += CHUNK) {
        uint32_t n = count - base < CHUNK ? (uint32_t)(count - base) : CHUNK;
        for (uint32_t i = 0; i < n; i++) {
            buf[i] = p[base + i] != 0;
            *zero += p[base + i] == 0;
        }
        chunk_done(a, buf, n);
    }
}

typedef struct nonfinite {
    uint64_t nan, pos_inf, neg_inf, zero;
} nonfinite;

/* Floats: the finite values of each chunk are packed before its two passes. */
#define FLOAT_STATS(T, NAME)                                                                       \
    static void NAME(const uint8_t *p, uint64_t count, acc *a, nonfinite *nf)                      \
    {                                                                                              \
        double buf[CHUNK];                                                                         \
        for (uint64_t base = 0; base < count; base += CHUNK) {                                     \
            uint32_t n = count - base < CHUNK ? (uint32_t)(count - base) : CHUNK, k = 0;           \
            for (uint32_t i = 0; i < n; i++) {                                                     \
                T x;                                                                               \
                memcpy(&x, p + (base + i) * sizeof x, sizeof x);                                   \
                buf[k] = (double)x;                                                                \
                k += isfinite(x) ? 1 : 0;                                                          \
            }                                                                                      \
            if (k != n)                                                                            \
                for (uint32_t i = 0; i < n; i++) {                                                 \
                    T x;                                                                           \
                    memcpy(&x, p + (base + i) * sizeof x, sizeof x);                               \
                    nf->nan += isnan(x) ? 1 : 0;                                                   \
                    nf->pos_inf += isinf(x) && x > 0;                                              \
                    nf->neg_inf += isinf(x) && x < 0;                                              \
                }                                                                                  \
            for (uint32_t i = 0; i < k; i++)                                                       \
                nf->zero += buf[i] == 0;                                                           \
            chunk_done(a, buf, k);                                                                 \
        }                                                                                          \
    }
FLOAT_STATS(float, stats_f32)
FLOAT_STATS(double, stats_f64)

/* The narrow floating types, through their decoder. */
static void stats_decoded(const etp_tensor_view *t, acc *a, nonfinite *nf)
{
    double buf[CHUNK];
    for (uint64_t base = 0; base < t->numel; base += CHUNK) {
        uint32_t n = t->numel - base < CHUNK ? (uint32_t)(t->numel - base) : CHUNK, k = 0;
        for (uint32_t i = 0; i < n; i++) {
            double x = etp_tensor_value(t, base + i);
            if (isfinite(x)) {
                buf[k++] = x;
                nf->zero += x == 0;
            } else if (isnan(x)) {
                nf->nan++;
            } else if (x > 0) {
                nf->pos_inf++;
            } else {
                nf->neg_inf++;
            }
        }
        chunk_done(a, buf, k);
    }
}

void etp_tensor_stats_compute(const etp_tensor_view *t, etp_tensor_stats *out)
{
    memset(out, 0, sizeof *out);
    out->min = out->max = out->mean = out->std = out->max_abs = NAN;
    if (!t->data || etp_dtype_class_of(t->scalar_type) == ETP_DTYPE_UNKNOWN ||
        etp_dtype_class_of(t->scalar_type) == ETP_DTYPE_UNDECODED)
        return;
    acc a = {0};
    nonfinite nf = {0};
    const uint8_t *p = t->data;
    uint64_t n = t->numel;
    switch (t->scalar_type) {
    case ETP_ST_BYTE: case ETP_ST_QUINT8: case ETP_ST_BITS8: stats_u8(p, n, &a, &nf.zero); break;
    case ETP_ST_CHAR: case ETP_ST_QINT8: stats_i8(p, n, &a, &nf.zero); break;
    case ETP_ST_BOOL: stats_bool(p, n, &a, &nf.zero); break;
    case ETP_ST_SHORT: stats_i16(p, n, &a, &nf.zero); break;
    case ETP_ST_UINT16: case ETP_ST_BITS16: stats_u16(p, n, &a, &nf.zero); break;
    case ETP_ST_INT: case ETP_ST_QINT32: stats_i32(p, n, &a, &nf.zero); break;
    case ETP_ST_UINT32: stats_u32(p, n, &a, &nf.zero); break;
    case ETP_ST_LONG: stats_i64(p, n, &a, &nf.zero); break;
    case ETP_ST_UINT64: stats_u64(p, n, &a, &nf.zero); break;
    case ETP_ST_FLOAT: stats_f32(p, n, &a, &nf); break;
    case ETP_ST_DOUBLE: stats_f64(p, n, &a, &nf); break;
    default: stats_decoded(t, &a, &nf); break;
    }
    out->count = n;
    out->finite = a.n;
    out->nan = nf.nan;
    out->pos_inf = nf.pos_inf;
    out->neg_inf = nf.neg_inf;
    out->zero = nf.zero;
    if (a.n) {
        out->min = a.min;
        out->max = a.max;
        out->mean = a.mean;
        out->std = sqrt(a.m2 / (double)a.n);
        out->max_abs = fabs(a.min) > fabs(a.max) ? fabs(a.min) : fabs(a.max);
    }
}
