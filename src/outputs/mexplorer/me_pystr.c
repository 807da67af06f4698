/* me_pystr.c - Python's repr(float) and UTF-8 "replace" decoding in C. */
#include "outputs/mexplorer/me_pystr.h"

#include "util/jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t etp_py_repr_double(char *out, size_t size, double v)
{
    if (size < 32) {
        if (size)
            out[0] = '\0';
        return 0;
    }
    if (isnan(v))
        return (size_t)snprintf(out, size, "nan");
    if (isinf(v))
        return (size_t)snprintf(out, size, v < 0 ? "-inf" : "inf");

    /* Shortest round-trip digits, in %e form. */
    char e[40];
    etp_format_shortest(e, sizeof e, v, 'e');
    /* e is "[-]d[.ddd]e[+-]XX": split into sign, digits and exponent. */
    const char *p = e;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    char digits[24];
    size_t nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && nd < sizeof digits - 1)
            digits[nd++] = *p;
    digits[nd] = '\0';
    int exp10 = *p == 'e' ? atoi(p + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0') /* %.Ne pads with zeros */
        digits[--nd] = '\0';

    char *o = out;
    if (neg)
        *o++ = '-';
    if (exp10 >= -4 && exp10 < 16) {
        if (exp10 < 0) {
            *o++ = '0';
            *o++ = '.';
            for (int i = -1; i > exp10; i--)
                *o++ = '0';
            memcpy(o, digits, nd);
            o += nd;
        } else {
            size_t intlen = (size_t)exp10 + 1;
            for (size_t i = 0; i < intlen; i++)
                *o++ = i < nd ? digits[i] : '0';
            *o++ = '.';
            if (nd > intlen) {
                memcpy(o, digits + intlen, nd - intlen);
                o += nd - intlen;
            } else
                *o++ = '0';
        }
        *o = '\0';
        return (size_t)(o - out);
    }
    *o++ = digits[0];
    if (nd > 1) {
        *o++ = '.';
        memcpy(o, digits + 1, nd - 1);
        o += nd - 1;
    }
    int n = snprintf(o, size - (size_t)(o - out), "e%c%02d", exp10 < 0 ? '-' : '+',
                     exp10 < 0 ? -exp10 : exp10);
    return (size_t)(o - out) + (size_t)n;
}

/* Length of the valid UTF-8 sequence at p[0..n), or 0 with *bad set to the
 * number of bytes forming the maximal invalid subpart. */
static size_t utf8_seq(const unsigned char *p, size_t n, size_t *bad)
{
    unsigned char c = p[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else {
        *bad = 1;
        return 0;
    }
    size_t k = 1;
    for (; k <= need; k++) {
        if (k >= n)
            break;
        unsigned char d = p[k];
        unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xbf;
        if (d < l || d > h)
            break;
    }
    if (k == need + 1)
        return need + 1;
    *bad = k;
    return 0;
}

char *etp_py_decode_utf8(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    /* Worst case: every byte becomes the 3-byte U+FFFD. */
    if (n > (((size_t)-1) - 1) / 3)
        return NULL;
    char *out = malloc(3 * n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t bad = 0, len = utf8_seq(p + i, n - i, &bad);
        if (len) {
            memcpy(out + o, p + i, len);
            o += len;
            i += len;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i += bad;
        }
    }
    out[o] = '\0';
    return out;
}
