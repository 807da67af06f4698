/* tensor_stats.c - one pass over a tensor's values (etprof/tensor.h).
 *
 * Why chunks: a running sum of squares loses the variance of values far
 * from zero, and Welford's update divides per element (slow). Each chunk of
 * CHUNK elements is read a few times while it sits in L1 (its mean, then
 * the squared deviations from it) and the chunks are merged with Chan's
 * formula: accurate to a few double roundings and still one pass over
 * memory. 8- and 16-bit integers take exact integer sums and sums of
 * squares per chunk instead; 32-bit ones an exact sum. The element types'
 * loops read the bytes in place, branchless, so that -O2 vectorises them;
 * only 64-bit integers, chunks with NaN or Inf and the narrow floating
 * types go through a buffer of doubles. NaN and Inf are counted and left
 * out of everything else. */
#include <math.h>
#include <string.h>

#include "etprof/tensor.h"
#include "analysis/numerics/tensor_decode.h"

enum { CHUNK = 1024 };

/* The chunk kernels are inlined into their full-chunk loop, where their
 * trip count is the constant CHUNK (which is what lets -O2 vectorise). */
#if defined(__GNUC__)
#define ETP_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ETP_ALWAYS_INLINE inline
#endif

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

/* One chunk of already-decoded finite values, in 4 partial sums (four
 * independent chains of adds instead of one; nothing is reordered across
 * chunks). */
static void chunk_done(acc *a, const double *v, uint32_t n)
{
    if (!n)
        return;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, mn0 = v[0], mn1 = v[0], mx0 = v[0], mx1 = v[0], d0, d1, d2, d3;
    uint32_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        s0 += v[i];
        s1 += v[i + 1];
        s2 += v[i + 2];
        s3 += v[i + 3];
        mn0 = v[i] < mn0 ? v[i] : mn0;
        mn1 = v[i + 1] < mn1 ? v[i + 1] : mn1;
        mn0 = v[i + 2] < mn0 ? v[i + 2] : mn0;
        mn1 = v[i + 3] < mn1 ? v[i + 3] : mn1;
        mx0 = v[i] > mx0 ? v[i] : mx0;
        mx1 = v[i + 1] > mx1 ? v[i + 1] : mx1;
        mx0 = v[i + 2] > mx0 ? v[i + 2] : mx0;
        mx1 = v[i + 3] > mx1 ? v[i + 3] : mx1;
    }
    for (; i < n; i++) {
        s0 += v[i];
        mn0 = v[i] < mn0 ? v[i] : mn0;
        mx0 = v[i] > mx0 ? v[i] : mx0;
    }
    double mean = ((s0 + s1) + (s2 + s3)) / n;
    s0 = s1 = s2 = s3 = 0;
    for (i = 0; i + 4 <= n; i += 4) {
        d0 = v[i] - mean;
        d1 = v[i + 1] - mean;
        d2 = v[i + 2] - mean;
        d3 = v[i + 3] - mean;
        s0 += d0 * d0;
        s1 += d1 * d1;
        s2 += d2 * d2;
        s3 += d3 * d3;
    }
    for (; i < n; i++) {
        d0 = v[i] - mean;
        s0 += d0 * d0;
    }
    merge(a, n, mean, (s0 + s1) + (s2 + s3), mn1 < mn0 ? mn1 : mn0, mx1 > mx0 ? mx1 : mx0);
}

/* A chunk of integers whose sum and sum of squares are exact in int64:
 * mean and m2 = (n sumsq - sum^2) / n each with one rounding (the
 * numerator is an exact integer below 2^53 for the types using this). */
static void merge_exact(acc *a, uint32_t n, int64_t sum, int64_t sumsq, double mn, double mx)
{
    double mean = (double)sum / n;
    double m2 = (double)((int64_t)n * sumsq - sum * sum) / n;
    merge(a, n, mean, m2, mn, mx);
}

/* 8- and 16-bit integers: sums in integers (SUM_T, SQ_T hold a chunk's
 * exactly; PROD_T a square), min and max in the element type, branchless
 * so the loop vectorises. n * sumsq and sum^2 stay below 2^53 for chunks
 * of 1024: 8-bit 2^36, 16-bit 2^52. The full-chunk call has a constant
 * trip count. */
#define SMALL_INT_STATS(T, NAME, SUM_T, SQ_T, PROD_T)                                              \
    static ETP_ALWAYS_INLINE void NAME##_chunk(const uint8_t *p, uint32_t n, acc *a, uint64_t *zero)          \
    {                                                                                              \
        SUM_T s = 0;                                                                               \
        SQ_T q = 0;                                                                                \
        uint32_t z = 0;                                                                            \
        T mn, mx;                                                                                  \
        memcpy(&mn, p, sizeof mn);                                                                 \
        mx = mn;                                                                                   \
        for (uint32_t i = 0; i < n; i++) {                                                         \
            T x;                                                                                   \
            memcpy(&x, p + (size_t)i * sizeof x, sizeof x);                                        \
            s += x;                                                                                \
            q += (SQ_T)((PROD_T)x * (PROD_T)x);                                                    \
            z += x == 0;                                                                           \
            mn = x < mn ? x : mn;                                                                  \
            mx = x > mx ? x : mx;                                                                  \
        }                                                                                          \
        *zero += z;                                                                                \
        merge_exact(a, n, (int64_t)s, (int64_t)q, (double)mn, (double)mx);                         \
    }                                                                                              \
    static void NAME(const uint8_t *p, uint64_t count, acc *a, uint64_t *zero)                     \
    {                                                                                              \
        uint64_t base = 0;                                                                         \
        for (; base + CHUNK <= count; base += CHUNK)                                               \
            NAME##_chunk(p + base * sizeof(T), CHUNK, a, zero);                                    \
        if (base < count)                                                                          \
            NAME##_chunk(p + base * sizeof(T), (uint32_t)(count - base), a, zero);                 \
    }
SMALL_INT_STATS(uint8_t, stats_u8, uint32_t, uint32_t, uint32_t)
SMALL_INT_STATS(int8_t, stats_i8, int32_t, int32_t, int32_t)
SMALL_INT_STATS(int16_t, stats_i16, int32_t, int64_t, int32_t)
SMALL_INT_STATS(uint16_t, stats_u16, uint32_t, uint64_t, uint32_t)

/* 32-bit integers: a chunk's sum exact in int64 (below 2^42), min and max
 * in the element type, all vectorised; then the squared deviations from
 * the chunk's mean in 4 partial sums of doubles (a square may not fit in
 * 64 bits). */
#define INT32_STATS(T, NAME)                                                                       \
    static inline double NAME##_at(const uint8_t *p, uint32_t i)                                   \
    {                                                                                              \
        T x;                                                                                       \
        memcpy(&x, p + (size_t)i * sizeof x, sizeof x);                                            \
        return (double)x;                                                                          \
    }                                                                                              \
    static ETP_ALWAYS_INLINE void NAME##_chunk(const uint8_t *p, uint32_t n, acc *a, uint64_t *zero) \
    {                                                                                              \
        int64_t sum = 0;                                                                           \
        uint32_t z = 0, i;                                                                         \
        T mn, mx;                                                                                  \
        memcpy(&mn, p, sizeof mn);                                                                 \
        mx = mn;                                                                                   \
        for (i = 0; i < n; i++) {                                                                  \
            T x;                                                                                   \
            memcpy(&x, p + (size_t)i * sizeof x, sizeof x);                                        \
            sum += x;                                                                              \
            z += x == 0;                                                                           \
            mn = x < mn ? x : mn;                                                                  \
            mx = x > mx ? x : mx;                                                                  \
        }                                                                                          \
        *zero += z;                                                                                \
        double mean = (double)sum / n, s0 = 0, s1 = 0, s2 = 0, s3 = 0, d0, d1, d2, d3;             \
        for (i = 0; i + 4 <= n; i += 4) {                                                          \
            d0 = NAME##_at(p, i) - mean;                                                           \
            d1 = NAME##_at(p, i + 1) - mean;                                                       \
            d2 = NAME##_at(p, i + 2) - mean;                                                       \
            d3 = NAME##_at(p, i + 3) - mean;                                                       \
            s0 += d0 * d0;                                                                         \
            s1 += d1 * d1;                                                                         \
            s2 += d2 * d2;                                                                         \
            s3 += d3 * d3;                                                                         \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            d0 = NAME##_at(p, i) - mean;                                                           \
            s0 += d0 * d0;                                                                         \
        }                                                                                          \
        merge(a, n, mean, (s0 + s1) + (s2 + s3), (double)mn, (double)mx);                          \
    }                                                                                              \
    static void NAME(const uint8_t *p, uint64_t count, acc *a, uint64_t *zero)                     \
    {                                                                                              \
        uint64_t base = 0;                                                                         \
        for (; base + CHUNK <= count; base += CHUNK)                                               \
            NAME##_chunk(p + base * sizeof(T), CHUNK, a, zero);                                    \
        if (base < count)                                                                          \
            NAME##_chunk(p + base * sizeof(T), (uint32_t)(count - base), a, zero);                 \
    }
INT32_STATS(int32_t, stats_i32)
INT32_STATS(uint32_t, stats_u32)

/* 64-bit integers: through doubles (neither sum nor square fits). */
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
                z += x == 0;                                                                       \
                buf[i] = (double)x;                                                                \
            }                                                                                      \
            chunk_done(a, buf, n);                                                                 \
        }                                                                                          \
        *zero += z;                                                                                \
    }
INT_STATS(int64_t, stats_i64)
INT_STATS(uint64_t, stats_u64)

/* Bool: a chunk is its count of non-zero bytes (sum and sum of squares). */
static void stats_bool(const uint8_t *p, uint64_t count, acc *a, uint64_t *zero)
{
    for (uint64_t base = 0; base < count; base += CHUNK) {
        uint32_t n = count - base < CHUNK ? (uint32_t)(count - base) : CHUNK, nz = 0;
        for (uint32_t i = 0; i < n; i++)
            nz += p[base + i] != 0;
        *zero += n - nz;
        merge_exact(a, n, nz, nz, nz < n ? 0.0 : 1.0, nz ? 1.0 : 0.0);
    }
}

typedef struct nonfinite {
    uint64_t nan, pos_inf, neg_inf, zero;
} nonfinite;

/* Float32 and Float64 in three reads of each chunk while it sits in L1.
 * The first is integer work on the bits only (so it vectorises, no
 * floating-point compare in the way): NaN, +-Inf and zeros counted, and
 * min/max over the finite values as unsigned keys ordered like the values
 * (a non-finite value's key replaced by the identity of min or max). Then,
 * when all are finite, 4 partial sums in double and the squared deviations
 * from the chunk's mean; a chunk with NaN or Inf has its finite values
 * packed into doubles first (chunk_done). U is the bits' type, SIGN its top
 * bit, EXP the exponent field. */
#define FLOAT_STATS(T, U, NAME, SIGN, EXP)                                                         \
    static inline U NAME##_key(U b)                                                                \
    {                                                                                              \
        return b ^ (((U)0 - (b >> (sizeof(U) * 8 - 1))) | SIGN);                                   \
    }                                                                                              \
    static inline double NAME##_of_key(U k)                                                        \
    {                                                                                              \
        U b = k & SIGN ? k ^ SIGN : ~k;                                                            \
        T f;                                                                                       \
        memcpy(&f, &b, sizeof f);                                                                  \
        return (double)f;                                                                          \
    }                                                                                              \
    static inline double NAME##_at(const uint8_t *p, uint32_t i)                                   \
    {                                                                                              \
        T x;                                                                                       \
        memcpy(&x, p + (size_t)i * sizeof x, sizeof x);                                            \
        return (double)x;                                                                          \
    }                                                                                              \
    static ETP_ALWAYS_INLINE void NAME##_chunk(const uint8_t *p, uint32_t n, acc *a, nonfinite *nf) \
    {                                                                                              \
        uint32_t nan_ = 0, pinf = 0, ninf = 0, z = 0, i;                                           \
        U kmin = (U)-1, kmax = 0;                                                                  \
        for (i = 0; i < n; i++) {                                                                  \
            U b;                                                                                   \
            memcpy(&b, p + (size_t)i * sizeof b, sizeof b);                                        \
            U mag = b & ~SIGN, fin = mag < EXP, key = NAME##_key(b);                               \
            nan_ += mag > EXP;                                                                     \
            pinf += b == EXP;                                                                      \
            ninf += b == (EXP | SIGN);                                                             \
            z += mag == 0;                                                                         \
            U lo = key | (fin - 1), hi = key & ((U)0 - fin);                                       \
            kmin = lo < kmin ? lo : kmin;                                                          \
            kmax = hi > kmax ? hi : kmax;                                                          \
        }                                                                                          \
        uint32_t k = n - nan_ - pinf - ninf;                                                       \
        nf->nan += nan_;                                                                           \
        nf->pos_inf += pinf;                                                                       \
        nf->neg_inf += ninf;                                                                       \
        nf->zero += z;                                                                             \
        if (!k)                                                                                    \
            return;                                                                                \
        if (k != n) {                                                                              \
            double buf[CHUNK];                                                                     \
            uint32_t m = 0;                                                                        \
            for (i = 0; i < n; i++) {                                                              \
                buf[m] = NAME##_at(p, i);                                                          \
                m += isfinite(buf[m]) ? 1 : 0;                                                     \
            }                                                                                      \
            chunk_done(a, buf, m);                                                                 \
            return;                                                                                \
        }                                                                                          \
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0, d0, d1, d2, d3;                                     \
        for (i = 0; i + 4 <= n; i += 4) {                                                          \
            s0 += NAME##_at(p, i);                                                                 \
            s1 += NAME##_at(p, i + 1);                                                             \
            s2 += NAME##_at(p, i + 2);                                                             \
            s3 += NAME##_at(p, i + 3);                                                             \
        }                                                                                          \
        for (; i < n; i++)                                                                         \
            s0 += NAME##_at(p, i);                                                                 \
        double mean = ((s0 + s1) + (s2 + s3)) / n;                                                 \
        s0 = s1 = s2 = s3 = 0;                                                                     \
        for (i = 0; i + 4 <= n; i += 4) {                                                          \
            d0 = NAME##_at(p, i) - mean;                                                           \
            d1 = NAME##_at(p, i + 1) - mean;                                                       \
            d2 = NAME##_at(p, i + 2) - mean;                                                       \
            d3 = NAME##_at(p, i + 3) - mean;                                                       \
            s0 += d0 * d0;                                                                         \
            s1 += d1 * d1;                                                                         \
            s2 += d2 * d2;                                                                         \
            s3 += d3 * d3;                                                                         \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            d0 = NAME##_at(p, i) - mean;                                                           \
            s0 += d0 * d0;                                                                         \
        }                                                                                          \
        merge(a, n, mean, (s0 + s1) + (s2 + s3), NAME##_of_key(kmin), NAME##_of_key(kmax));        \
    }                                                                                              \
    static void NAME(const uint8_t *p, uint64_t count, acc *a, nonfinite *nf)                      \
    {                                                                                              \
        uint64_t base = 0;                                                                         \
        for (; base + CHUNK <= count; base += CHUNK)                                               \
            NAME##_chunk(p + base * sizeof(T), CHUNK, a, nf);                                      \
        if (base < count)                                                                          \
            NAME##_chunk(p + base * sizeof(T), (uint32_t)(count - base), a, nf);                   \
    }
FLOAT_STATS(float, uint32_t, stats_f32, UINT32_C(0x80000000), UINT32_C(0x7f800000))
FLOAT_STATS(double, uint64_t, stats_f64, UINT64_C(0x8000000000000000), UINT64_C(0x7ff0000000000000))

/* The narrow floating types: each chunk decoded into doubles (Half and
 * BFloat16 by their inline decoders, the Float8 kinds through theirs),
 * then classified and its finite values packed in place, branchless. */
static void stats_decoded(const etp_tensor_view *t, acc *a, nonfinite *nf)
{
    double buf[CHUNK];
    const uint8_t *p = t->data;
    for (uint64_t base = 0; base < t->numel; base += CHUNK) {
        uint32_t n = t->numel - base < CHUNK ? (uint32_t)(t->numel - base) : CHUNK, k = 0;
        uint32_t nan_ = 0, pinf = 0, ninf = 0, z = 0, i;
        switch (t->scalar_type) {
        case ETP_ST_HALF:
            for (i = 0; i < n; i++) {
                uint16_t h;
                memcpy(&h, p + (base + i) * 2, 2);
                buf[i] = etp_half_decode(h);
            }
            break;
        case ETP_ST_BFLOAT16:
            for (i = 0; i < n; i++) {
                uint16_t h;
                memcpy(&h, p + (base + i) * 2, 2);
                buf[i] = etp_bfloat16_decode(h);
            }
            break;
        default:
            for (i = 0; i < n; i++)
                buf[i] = etp_float8_to_double(t->scalar_type, p[base + i]);
            break;
        }
        for (i = 0; i < n; i++) {
            uint64_t b, e = UINT64_C(0x7ff0000000000000);
            memcpy(&b, &buf[i], sizeof b);
            uint64_t mag = b & ~(UINT64_C(1) << 63);
            nan_ += mag > e;
            pinf += b == e;
            ninf += b == (e | UINT64_C(1) << 63);
            z += mag == 0;
            buf[k] = buf[i];
            k += mag < e;
        }
        nf->nan += nan_;
        nf->pos_inf += pinf;
        nf->neg_inf += ninf;
        nf->zero += z;
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
