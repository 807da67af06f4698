/* nx_base64.c - strict standard base64, as the wrapper's blobs are
 * written (no line breaks, '=' padding only at the end). */
#include <stdlib.h>

#include "etprof/nx_record.h"

/* Value of each byte in the standard alphabet, -1 for any other byte. */
static const signed char table[256] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1, -1, 63,
    52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1,
    -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, -1,
    -1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

int etp_nx_base64_decode(const char *s, size_t n, uint8_t **out, size_t *len, size_t *bad)
{
    *out = NULL;
    *len = 0;
    if (n == 0)
        return 0;
    if (n % 4) {
        *bad = n;
        return -1;
    }
    size_t pad = 0;
    if (s[n - 1] == '=')
        pad = s[n - 2] == '=' ? 2 : 1;
    size_t bytes = n / 4 * 3 - pad;
    uint8_t *o = malloc(bytes ? bytes : 1);
    if (!o)
        return -2;
    const unsigned char *u = (const unsigned char *)s;
    size_t full = (n - (pad ? 4 : 0)) / 4, w = 0;
    for (size_t q = 0; q < full; q++) {
        const unsigned char *p = u + q * 4;
        int a = table[p[0]], b = table[p[1]], c = table[p[2]], d = table[p[3]];
        if ((a | b | c | d) < 0) {
            size_t k = 0;
            while (table[p[k]] >= 0)
                k++;
            free(o);
            *bad = q * 4 + k;
            return -1;
        }
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        o[w++] = (uint8_t)(v >> 16);
        o[w++] = (uint8_t)(v >> 8);
        o[w++] = (uint8_t)v;
    }
    if (pad) {
        const unsigned char *p = u + n - 4;
        int a = table[p[0]], b = table[p[1]], c = pad == 1 ? table[p[2]] : 0;
        if (a < 0 || b < 0 || c < 0) {
            free(o);
            *bad = n - 4 + (a < 0 ? 0 : b < 0 ? 1 : 2);
            return -1;
        }
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6;
        /* Strict: the bits the padding drops must be zero. */
        if ((pad == 2 && (v & 0xFFFF)) || (pad == 1 && (v & 0xFF))) {
            free(o);
            *bad = n - 4;
            return -1;
        }
        o[w++] = (uint8_t)(v >> 16);
        if (pad == 1)
            o[w++] = (uint8_t)(v >> 8);
    }
    *out = o;
    *len = w;
    return 0;
}
