/* tensor_view.c - a tensor's element types and values as the runtime stores
 * them (etprof/tensor.h): little-endian, contiguous in the order of its
 * sizes. The element decoders of the narrow floating types live here once;
 * statistics and comparisons (analysis/numerics/) read through them. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "etprof/etdump.h"
#include "etprof/tensor.h"
#include "analysis/numerics/tensor_decode.h"

etp_dtype_class etp_dtype_class_of(int type)
{
    switch (type) {
    case ETP_ST_BYTE: case ETP_ST_CHAR: case ETP_ST_SHORT: case ETP_ST_INT: case ETP_ST_LONG:
    case ETP_ST_BOOL: case ETP_ST_QINT8: case ETP_ST_QUINT8: case ETP_ST_QINT32: case ETP_ST_BITS8:
    case ETP_ST_BITS16: case ETP_ST_UINT16: case ETP_ST_UINT32: case ETP_ST_UINT64:
        return ETP_DTYPE_INTEGER;
    case ETP_ST_HALF: case ETP_ST_FLOAT: case ETP_ST_DOUBLE: case ETP_ST_BFLOAT16:
    case ETP_ST_F8_E5M2: case ETP_ST_F8_E4M3FN: case ETP_ST_F8_E5M2FNUZ: case ETP_ST_F8_E4M3FNUZ:
        return ETP_DTYPE_FLOAT;
    default:
        return etp_scalar_type_size(type) ? ETP_DTYPE_UNDECODED : ETP_DTYPE_UNKNOWN;
    }
}

double etp_half_to_double(uint16_t h)
{
    return etp_half_decode(h);
}

double etp_bfloat16_to_double(uint16_t h)
{
    return etp_bfloat16_decode(h);
}

/* The four 8-bit floating formats: exponent bits, bias, and which codes are
 * special. e5m2 is IEEE-like (Inf and NaN at the top exponent); e4m3fn has
 * no Inf, NaN only at S.1111.111; the "fnuz" kinds have no Inf and no -0:
 * 0x80 is their only NaN. */
double etp_float8_to_double(int type, uint8_t b)
{
    int e5 = type == ETP_ST_F8_E5M2 || type == ETP_ST_F8_E5M2FNUZ;
    int fnuz = type == ETP_ST_F8_E5M2FNUZ || type == ETP_ST_F8_E4M3FNUZ;
    int mbits = e5 ? 2 : 3, ebits = e5 ? 5 : 4;
    int bias = (1 << (ebits - 1)) - 1 + fnuz;
    int sign = b >> 7, exp = (b >> mbits) & ((1 << ebits) - 1), mant = b & ((1 << mbits) - 1);
    if (fnuz && b == 0x80)
        return NAN;
    if (type == ETP_ST_F8_E5M2 && exp == 31)
        return mant ? NAN : (sign ? -INFINITY : INFINITY);
    if (type == ETP_ST_F8_E4M3FN && exp == 15 && mant == 7)
        return NAN;
    double v = exp ? ldexp(mant | (1 << mbits), exp - bias - mbits) : ldexp(mant, 1 - bias - mbits);
    return sign ? -v : v;
}

#define LOADER(T)                                                                                  \
    static inline T load_##T(const uint8_t *p, uint64_t i)                                         \
    {                                                                                              \
        T v;                                                                                       \
        memcpy(&v, p + (size_t)i * sizeof v, sizeof v);                                            \
        return v;                                                                                  \
    }
LOADER(int16_t)
LOADER(uint16_t)
LOADER(int32_t)
LOADER(uint32_t)
LOADER(int64_t)
LOADER(uint64_t)
LOADER(float)
LOADER(double)
#define LOAD(T, p, i) load_##T(p, i)

double etp_tensor_value(const etp_tensor_view *t, uint64_t i)
{
    const uint8_t *p = t->data;
    switch (t->scalar_type) {
    case ETP_ST_BYTE: case ETP_ST_QUINT8: case ETP_ST_BITS8: return p[i];
    case ETP_ST_CHAR: case ETP_ST_QINT8: return (int8_t)p[i];
    case ETP_ST_BOOL: return p[i] != 0;
    case ETP_ST_SHORT: return LOAD(int16_t, p, i);
    case ETP_ST_UINT16: case ETP_ST_BITS16: return LOAD(uint16_t, p, i);
    case ETP_ST_INT: case ETP_ST_QINT32: return LOAD(int32_t, p, i);
    case ETP_ST_UINT32: return LOAD(uint32_t, p, i);
    case ETP_ST_LONG: return (double)LOAD(int64_t, p, i);
    case ETP_ST_UINT64: return (double)LOAD(uint64_t, p, i);
    case ETP_ST_FLOAT: return LOAD(float, p, i);
    case ETP_ST_DOUBLE: return LOAD(double, p, i);
    case ETP_ST_HALF: return etp_half_to_double(LOAD(uint16_t, p, i));
    case ETP_ST_BFLOAT16: return etp_bfloat16_to_double(LOAD(uint16_t, p, i));
    case ETP_ST_F8_E5M2: case ETP_ST_F8_E4M3FN: case ETP_ST_F8_E5M2FNUZ: case ETP_ST_F8_E4M3FNUZ:
        return etp_float8_to_double(t->scalar_type, p[i]);
    default: return NAN;
    }
}

void etp_tensor_values(const etp_tensor_view *t, uint64_t first, uint64_t n, double *out)
{
    for (uint64_t k = 0; k < n; k++)
        out[k] = etp_tensor_value(t, first + k);
}

etp_status etp_tensor_view_init(etp_tensor_view *out, int scalar_type, uint32_t rank, const int64_t *sizes,
                                const int32_t *sizes32, const uint8_t *data, const char *path, int64_t offset,
                                const char *what, etp_error *err)
{
    memset(out, 0, sizeof *out);
    uint64_t esize = etp_scalar_type_size(scalar_type);
    if (!esize)
        return etp_error_set(err, ETP_E_FORMAT, path, offset, "%s: unknown scalar type %d (its size is not known)",
                             what, scalar_type);
    if (rank > ETP_TENSOR_MAX_RANK)
        return etp_error_set(err, ETP_E_FORMAT, path, offset,
                             "%s: rank %" PRIu32 " above the runtime's limit of %d dimensions", what, rank,
                             ETP_TENSOR_MAX_RANK);
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) {
        int64_t s = sizes ? sizes[i] : sizes32[i];
        if (s < 0)
            return etp_error_set(err, ETP_E_FORMAT, path, offset, "%s: size %" PRId64 " of dimension %" PRIu32
                                 " is negative", what, s, i);
        /* n * s * esize < 2^62, i.e. n <= (2^62 - 1) / (s * esize). */
        if (s && n > ((UINT64_C(1) << 62) - 1) / (uint64_t)s / esize)
            return etp_error_set(err, ETP_E_FORMAT, path, offset, "%s: more than 2^62 bytes", what);
        n *= (uint64_t)s;
        out->sizes[i] = s;
    }
    out->scalar_type = (int8_t)scalar_type;
    out->rank = rank;
    out->numel = n;
    out->nbytes = n * esize;
    out->data = data;
    return ETP_OK;
}
