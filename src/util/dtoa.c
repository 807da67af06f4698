/*
 * dtoa.c - shortest round-trip digits of a double (see dtoa.h for why).
 *
 * A finite double v = c * 2^q reads back from every decimal inside its
 * rounding interval R (half-way to its neighbours; the ends belong to R when
 * c is even, as strtod rounds ties to even). The "%.*g" text at precision P
 * is v rounded to P significant digits, so the least P that reads back is
 * the first P whose rounding lies in R. We scale by 10^-k so that R is at
 * least one unit wide, and compute 4 * (v and R's ends) * 10^-k rounded to
 * odd from a 126-bit approximation of 10^-k: Schubfach's result is that
 * comparing these against multiples of 4 gives exactly the answer the exact
 * values would (R. Giulietti, "The Schubfach way to render doubles", 2020).
 * Rounding to 10^j units, j from coarse to fine, is then integer work.
 */
#include "util/dtoa.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* 10^i for i in [G_MIN, G_MAX]: g = floor(10^i * 2^(125 - e)) + 1 with
 * e = floor(log2(10^i)), so 2^125 < g <= 2^126. */
#define G_MIN (-292)
#define G_MAX 326
#define G_COUNT (G_MAX - G_MIN + 1)

static u128 g_pow[G_COUNT];
static int16_t g_log2[G_COUNT]; /* e = floor(log2(10^i)) */
static uint64_t pow5[28];       /* 5^m, exact, for the tie test */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* Little-endian 32-bit limbs, wide enough for 2^(125 + 1100). */
#define BIG_LIMBS 48
typedef struct {
    uint32_t v[BIG_LIMBS];
    int n; /* limbs in use; v[n - 1] != 0 */
} big;

static void big_mul_small(big *b, uint32_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < b->n; i++) {
        uint64_t t = (uint64_t)b->v[i] * m + carry;
        b->v[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry)
        b->v[b->n++] = (uint32_t)carry;
}

/* b = floor(b / d). */
static void big_div_small(big *b, uint32_t d)
{
    uint64_t rem = 0;
    for (int i = b->n - 1; i >= 0; i--) {
        uint64_t t = (rem << 32) | b->v[i];
        b->v[i] = (uint32_t)(t / d);
        rem = t % d;
    }
    while (b->n > 0 && b->v[b->n - 1] == 0)
        b->n--;
}

static int big_bits(const big *b)
{
    if (b->n == 0)
        return 0;
    return 32 * (b->n - 1) + (32 - __builtin_clz(b->v[b->n - 1]));
}

/* Bits [lo, lo + 128) of b. */
static u128 big_bits_at(const big *b, int lo)
{
    u128 r = 0;
    for (int i = 127; i >= 0; i--) {
        int bit = lo + i;
        int limb = bit / 32;
        uint32_t x = (bit >= 0 && limb < b->n) ? (b->v[limb] >> (bit % 32)) & 1u : 0u;
        r = (r << 1) | x;
    }
    return r;
}

static void table_init(void)
{
    pow5[0] = 1;
    for (int m = 1; m < 28; m++)
        pow5[m] = pow5[m - 1] * 5;
    big p = {.v = {1}, .n = 1}; /* 10^i */
    int bits_of_pow[G_MAX + 1];
    for (int i = 0; i <= G_MAX; i++) {
        int bits = big_bits(&p);
        bits_of_pow[i] = bits;
        int e = bits - 1;
        /* floor(10^i * 2^(125 - e)): the top 126 bits of 10^i. */
        g_pow[i - G_MIN] = big_bits_at(&p, e - 125) + 1;
        g_log2[i - G_MIN] = (int16_t)e;
        big_mul_small(&p, 10);
    }
    for (int m = 1; m <= -G_MIN; m++) {
        /* floor(log2(10^-m)) = -bits(10^m), as 10^m is no power of two. */
        int e = -bits_of_pow[m];
        int shift = 125 - e; /* g = floor(2^shift / 10^m) + 1 */
        big a;
        memset(&a, 0, sizeof a);
        a.n = shift / 32 + 1;
        a.v[shift / 32] = 1u << (shift % 32);
        /* floor(floor(a / x) / y) = floor(a / (x y)). */
        int left = m;
        for (; left >= 9; left -= 9)
            big_div_small(&a, 1000000000u);
        uint32_t rest = 1;
        while (left-- > 0)
            rest *= 10;
        big_div_small(&a, rest);
        g_pow[-m - G_MIN] = big_bits_at(&a, 0) + 1;
        g_log2[-m - G_MIN] = (int16_t)e;
    }
}

/* floor(q * log10(2)) and floor(q * log10(2) + log10(3/4)), for |q| < 2^20
 * (the constants of the Schubfach paper; tests/unit/test_dtoa.c checks them
 * for every exponent a double has). */
static int flog10_pow2(int q) { return (int)(((int64_t)q * 661971961083LL) >> 41); }
static int flog10_three_quarters_pow2(int q)
{
    return (int)(((int64_t)q * 661971961083LL - 274743187321LL) >> 41);
}

/* g * cp / 2^127 rounded to odd (the low bit set when inexact); g has 126
 * bits, cp fewer than 64. */
static uint64_t round_to_odd(u128 g, uint64_t cp)
{
    uint64_t g1 = (uint64_t)(g >> 63), g0 = (uint64_t)g & 0x7fffffffffffffffull;
    uint64_t x1 = (uint64_t)(((u128)g0 * cp) >> 64);
    u128 y = (u128)g1 * cp;
    uint64_t y0 = (uint64_t)y, y1 = (uint64_t)(y >> 64);
    uint64_t z = (y0 >> 1) + x1;
    uint64_t vbp = y1 + (z >> 63);
    return vbp | (((z & 0x7fffffffffffffffull) + 0x7fffffffffffffffull) >> 63);
}

static const uint64_t pow10_u64[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

static int digit_count(uint64_t x)
{
    /* x has t = floor(bits log10 2) digits or t + 1 (1233 / 4096 ~ log10 2,
     * exact enough for 64 bits). */
    int bits = 64 - __builtin_clzll(x | 1);
    int t = (bits * 1233) >> 12;
    return t + (x >= pow10_u64[t]);
}

static int strip_zeros(uint64_t *d, int *e)
{
    /* Eight, four, two, then one at a time: a short value found at 17
     * digits' scale ends in a dozen zeros. d is never 0. */
    while (*d % 100000000 == 0) {
        *d /= 100000000;
        *e += 8;
    }
    if (*d % 10000 == 0) {
        *d /= 10000;
        *e += 4;
    }
    if (*d % 100 == 0) {
        *d /= 100;
        *e += 2;
    }
    if (*d % 10 == 0) {
        *d /= 10;
        *e += 1;
    }
    return digit_count(*d);
}

/* x = v 10^-k as the digit search sees it: s = floor(x), the three
 * round-to-odd values, and whether x is exactly an integer or a half. */
typedef struct level {
    uint64_t s, vb, vbl, vbr, out;
    int exact, half;
} level;

/* Round x to a multiple of 10^j as printf does (ties to even); 1 with the
 * result in *d if it lies in R. */
static int level_reads_back(const level *lv, int j, uint64_t *d)
{
    uint64_t s = lv->s, r;
    if (j == 0) {
        if (lv->exact)
            r = lv->half && (s & 1) ? s + 1 : s;
        else
            r = lv->vb > ((2 * s + 1) << 1) ? s + 1 : s; /* 4x against 4s + 2 */
    } else {
        uint64_t u = pow10_u64[j], q = s / u, rem = s - q * u;
        int up = rem > u / 2 || (rem == u / 2 && (!lv->exact || lv->half || (q & 1)));
        r = (q + (uint64_t)up) * u;
    }
    *d = r;
    return r != 0 && lv->vbl + lv->out <= r << 2 && (r << 2) + lv->out <= lv->vbr;
}

int etp_dtoa_digits(double v, uint64_t *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t t = bits & ((1ull << 52) - 1);
    int bq = (int)((bits >> 52) & 0x7ff);
    uint64_t c = bq ? (1ull << 52) | t : t;
    int q = bq ? bq - 1075 : -1074;

    /* Integers below 2^53: R holds no other integer, and no shorter decimal
     * than the integer's own digits. */
    if (q <= 0 && q > -53) {
        uint64_t f = c >> -q;
        if (f << -q == c) {
            *digits = f;
            *exp10 = 0;
            return strip_zeros(digits, exp10);
        }
    }

    pthread_once(&g_once, table_init);
    int out = (int)(c & 1); /* odd c: R's ends do not read back as v */
    uint64_t cb = c << 2, cbr = cb + 2, cbl;
    int k;
    /* A power of two's lower neighbour is half as far as its upper one. */
    int asym = t == 0 && bq > 1;
    if (!asym) {
        cbl = cb - 2;
        k = flog10_pow2(q);
    } else {
        cbl = cb - 1;
        k = flog10_three_quarters_pow2(q);
    }
    int gi = -k - G_MIN;
    int h = q + g_log2[gi] + 2;
    u128 g = g_pow[gi];
    uint64_t vb = round_to_odd(g, cb << h);
    uint64_t vbl = round_to_odd(g, cbl << h);
    uint64_t vbr = round_to_odd(g, cbr << h);

    /* x = v * 10^-k; s = floor(x). Precision P rounds x to 10^(n - P).
     * printf rounds ties to even, and a tie can decide which candidate is
     * tried; only an x that is exactly an integer or a half can tie, which
     * needs k < 0 with 10^-k = 5^m 2^m small: then test exactly whether 2x
     * = c 5^m 2^(q + m + 1) is an integer. */
    uint64_t s = vb >> 2;
    int exact = 0, half = 0, upin = 0;
    /* Symmetric R is less than 10 units wide (10^k <= 2^q < 10^(k+1)), so
     * it holds at most one multiple of 10, one of the two around s. If it
     * holds one, the coarsest level that reads back is that multiple's (any
     * rounding in R at a level j >= 1 is a multiple of 10 in R, and the
     * rounding to the multiple's own trailing zeros is in R by symmetry):
     * the answer, without the tie test below. */
    if (!asym) {
        uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
        upin = sp10 != 0 && vbl + (uint64_t)out <= sp10 << 2;
        int wpin = (tp10 << 2) + (uint64_t)out <= vbr;
        if (upin != wpin) {
            *digits = upin ? sp10 : tp10;
            *exp10 = k;
            return strip_zeros(digits, exp10);
        }
    }
    if (k < 0 && -k < 28) {
        int m = -k, sh = -(q + m + 1);
        u128 x2 = (u128)c * pow5[m];
        if (sh <= 0) {
            exact = 1;
            half = sh == 0 && (x2 & 1);
        } else if (sh < 128 && (x2 & (((u128)1 << sh) - 1)) == 0) {
            exact = 1;
            half = (int)((x2 >> sh) & 1);
        }
    }
    int n = digit_count(s);
    if (!asym) {
        /* R is symmetric: a finer rounding is never farther from x, so once
         * a level reads back every finer one does. Bisect for the coarsest
         * level that reads back (the least precision). */
        level lv = {s, vb, vbl, vbr, (uint64_t)out, exact, half};
        uint64_t d0, best;
        /* No multiple of 10 in R (upin == wpin == 0 above): level 0. Both
         * of them (not expected): the bisection. */
        if (!upin && level_reads_back(&lv, 0, &d0)) {
            *digits = d0;
            *exp10 = k;
            return strip_zeros(digits, exp10);
        }
        if (level_reads_back(&lv, 0, &d0)) {
            int lo = 0, hi = n - 1;
            best = d0;
            while (lo < hi) {
                int mid = (lo + hi + 1) / 2;
                uint64_t dm;
                if (level_reads_back(&lv, mid, &dm)) {
                    lo = mid;
                    best = dm;
                } else {
                    hi = mid - 1;
                }
            }
            /* best = its quotient times 10^lo. */
            *digits = best / pow10_u64[lo];
            *exp10 = k + lo;
            return strip_zeros(digits, exp10);
        }
    }
    /* From the coarsest level down, as printf's precisions go up. */
    for (int j = n - 1; j >= 0; j--) {
        uint64_t d;
        if (j > 0) {
            uint64_t u = pow10_u64[j];
            uint64_t a = s - s % u, r = s - a;
            int up = r > u / 2 || (r == u / 2 && (!exact || half || ((a / u) & 1)));
            d = up ? a + u : a;
        } else if (exact) {
            d = half && (s & 1) ? s + 1 : s;
        } else {
            d = vb > ((2 * s + 1) << 1) ? s + 1 : s; /* 4x against 4s + 2 */
        }
        if (d != 0 && vbl + (uint64_t)out <= d << 2 && (d << 2) + (uint64_t)out <= vbr) {
            *digits = d;
            *exp10 = k;
            return strip_zeros(digits, exp10);
        }
    }

    /* Only a power of two gets here: the nearest integer lay below x, past
     * R's nearer lower end. One more digit always reads back (R reaches at
     * least 1/3 unit below x): round 10x = 2^(52+q) * 10^(1-k). */
    gi = 1 - k - G_MIN;
    int sh = 73 - q - g_log2[gi];
    uint64_t d = (uint64_t)(((g_pow[gi] >> (sh - 1)) + 1) >> 1);
    *digits = d;
    *exp10 = k - 1;
    return strip_zeros(digits, exp10);
}

char *etp_u64_digits(uint64_t v, char *end)
{
    /* "00" to "99": two digits a step */
    static const char pairs[201] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        end -= 2;
        memcpy(end, pairs + 2 * r, 2);
    }
    if (v >= 10) {
        end -= 2;
        memcpy(end, pairs + 2 * v, 2);
    } else
        *--end = (char)('0' + v);
    return end;
}

/* The text of etp_dtoa_format(); @p json_float adds ".0" to a text without
 * a point or an exponent, as JSON writers do to keep a float a float. */
static int format(char *out, double v, char conv, int json_float)
{
    char *p = out;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (bits >> 63)
        *p++ = '-';
    if ((bits << 1) == 0) {
        const char *z = conv == 'e' ? "0e+00" : json_float ? "0.0" : "0";
        size_t zn = strlen(z);
        memcpy(p, z, zn + 1);
        return (int)(p - out) + (int)zn;
    }
    uint64_t d;
    int e;
    int n = etp_dtoa_digits(v, &d, &e);
    char dig[20];
    etp_u64_digits(d, dig + n); /* d has exactly n digits */
    int x = n - 1 + e; /* decimal exponent of the first digit */
    if (conv != 'e' && x >= -4 && x < n) {
        if (x >= 0) {
            memcpy(p, dig, (size_t)x + 1);
            p += x + 1;
            if (n > x + 1) {
                *p++ = '.';
                memcpy(p, dig + x + 1, (size_t)(n - x - 1));
                p += n - x - 1;
            } else if (json_float) {
                *p++ = '.';
                *p++ = '0';
            }
        } else {
            *p++ = '0';
            *p++ = '.';
            for (int k = 0; k < -x - 1; k++)
                *p++ = '0';
            memcpy(p, dig, (size_t)n);
            p += n;
        }
    } else {
        *p++ = dig[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, dig + 1, (size_t)n - 1);
            p += n - 1;
        }
        *p++ = 'e';
        *p++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            *p++ = (char)('0' + ax / 100);
        *p++ = (char)('0' + ax / 10 % 10);
        *p++ = (char)('0' + ax % 10);
    }
    *p = '\0';
    return (int)(p - out);
}

int etp_dtoa_format(char *out, double v, char conv) { return format(out, v, conv, 0); }

int etp_dtoa_format_json(char *out, double v) { return format(out, v, 'g', 1); }

int etp_format_fixed1(char *out, double v)
{
    if (!(fabs(v) <= 1e15))
        return snprintf(out, ETP_FIXED1_MAX, "%.1f", v);
    /* 10v rounds to t within half an ulp of t; unless t's fraction is that
     * close to .5, the exact 10v rounds to the same integer as t. */
    double t = v * 10.0, fl = floor(t), frac = t - fl;
    double ulp = nextafter(fabs(t), INFINITY) - fabs(t);
    if (fabs(frac - 0.5) <= 2 * ulp)
        return snprintf(out, ETP_FIXED1_MAX, "%.1f", v);
    int64_t r = (int64_t)(frac > 0.5 ? fl + 1 : fl);
    char *p = out;
    if (r < 0 || (r == 0 && signbit(v)))
        *p++ = '-'; /* printf keeps the sign of a value that rounds to 0 */
    uint64_t m = r < 0 ? (uint64_t)(-r) : (uint64_t)r;
    char b[24], *e = b + sizeof b, *q = e;
    *--q = (char)('0' + m % 10);
    *--q = '.';
    q = etp_u64_digits(m / 10, q);
    memcpy(p, q, (size_t)(e - q));
    p += e - q;
    *p = '\0';
    return (int)(p - out);
}
