/* tensor_decode.h - ExecuTorch ScalarType codes and the element decoders
 * of the narrow floating types, shared by tensor readers below the public
 * etprof/tensor.h. */
#ifndef ETP_TENSOR_DECODE_H
#define ETP_TENSOR_DECODE_H

#include <stdint.h>
#include <string.h>

/* c10 / ExecuTorch ScalarType (the runtime's enum). */
enum {
    ETP_ST_BYTE = 0, ETP_ST_CHAR, ETP_ST_SHORT, ETP_ST_INT, ETP_ST_LONG, ETP_ST_HALF, ETP_ST_FLOAT,
    ETP_ST_DOUBLE, ETP_ST_COMPLEX_HALF, ETP_ST_COMPLEX_FLOAT, ETP_ST_COMPLEX_DOUBLE, ETP_ST_BOOL,
    ETP_ST_QINT8, ETP_ST_QUINT8, ETP_ST_QINT32, ETP_ST_BFLOAT16, ETP_ST_QUINT4X2, ETP_ST_QUINT2X4,
    ETP_ST_BITS1X8, ETP_ST_BITS2X4, ETP_ST_BITS4X2, ETP_ST_BITS8, ETP_ST_BITS16, ETP_ST_F8_E5M2,
    ETP_ST_F8_E4M3FN, ETP_ST_F8_E5M2FNUZ, ETP_ST_F8_E4M3FNUZ, ETP_ST_UINT16, ETP_ST_UINT32,
    ETP_ST_UINT64
};

double etp_half_to_double(uint16_t h);

/* Half to double without branches or ldexp (the loops of tensor_stats.c
 * inline it): exponent rebiased 15 -> 1023 (31 -> 2047: Inf, NaN with its
 * payload), mantissa to the top of the double's; a subnormal is its
 * mantissa x 2^-24, exact. */
static inline double etp_half_decode(uint16_t h)
{
    uint64_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    uint64_t bits = ((e == 31 ? UINT64_C(2047) : e + 1008) << 52) | (m << 42);
    double v, sub = (double)m * 0x1p-24;
    memcpy(&v, &bits, sizeof v);
    v = e == 0 ? sub : v;
    memcpy(&bits, &v, sizeof bits);
    bits |= (uint64_t)(h >> 15) << 63;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* BFloat16: the top half of a float. */
static inline double etp_bfloat16_decode(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
double etp_bfloat16_to_double(uint16_t h);
/* @p type is one of the four ETP_ST_F8_* codes. */
double etp_float8_to_double(int type, uint8_t b);

#endif
