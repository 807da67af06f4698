/* trace_text.c - JSON text appended to a byte buffer (see trace_text.h). */
#include "outputs/trace/trace_text.h"

#include <stdlib.h>

#include "util/jsonw.h"

void etp_tt_init(etp_tt *b)
{
    memset(b, 0, sizeof *b);
}

void etp_tt_free(etp_tt *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

int etp_tt_grow(etp_tt *b, size_t extra)
{
    if (b->failed)
        return -1;
    size_t need = b->len + extra;
    if (need < b->len) {
        b->failed = 1;
        return -1;
    }
    size_t ncap = b->cap ? b->cap : 4096;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) {
            b->failed = 1;
            return -1;
        }
        ncap *= 2;
    }
    char *np = realloc(b->p, ncap);
    if (!np) {
        b->failed = 1;
        return -1;
    }
    b->p = np;
    b->cap = ncap;
    return 0;
}

/* Two decimal digits per table lookup: half the divisions of one at a time. */
static const char digit_pairs[201] = "00010203040506070809"
                                     "10111213141516171819"
                                     "20212223242526272829"
                                     "30313233343536373839"
                                     "40414243444546474849"
                                     "50515253545556575859"
                                     "60616263646566676869"
                                     "70717273747576777879"
                                     "80818283848586878889"
                                     "90919293949596979899";

void etp_tt_u64(etp_tt *b, uint64_t v)
{
    char tmp[20];
    char *end = tmp + sizeof tmp, *q = end;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        q[0] = digit_pairs[2 * r];
        q[1] = digit_pairs[2 * r + 1];
    }
    if (v >= 10) {
        q -= 2;
        q[0] = digit_pairs[2 * v];
        q[1] = digit_pairs[2 * v + 1];
    } else {
        *--q = (char)('0' + v);
    }
    etp_tt_put(b, q, (size_t)(end - q));
}

void etp_tt_i64(etp_tt *b, int64_t v)
{
    if (v < 0) {
        etp_tt_put(b, "-", 1);
        etp_tt_u64(b, 0u - (uint64_t)v); /* exact for INT64_MIN too */
    } else {
        etp_tt_u64(b, (uint64_t)v);
    }
}

void etp_tt_strn(etp_tt *b, const char *s, size_t n)
{
    if (!s)
        n = 0;
    /* Printable ASCII other than quote and backslash is copied as is: the
     * names in a trace are nearly always of that kind. */
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
            break;
        i++;
    }
    if (i == n) {
        if (b->cap - b->len < n + 2 && etp_tt_grow(b, n + 2))
            return;
        b->p[b->len++] = '"';
        if (n)
            memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len++] = '"';
        return;
    }
    /* Anything else is escaped by the JSON writer itself, so the rules
     * (control bytes, stray UTF-8) stay in one place. */
    etp_jw m;
    etp_jw_init_mem(&m, 0);
    etp_jw_strn(&m, s, n);
    size_t len = 0;
    char *text = etp_jw_take(&m, &len);
    if (!text) {
        b->failed = 1;
        return;
    }
    etp_tt_put(b, text, len);
    free(text);
}

void etp_tt_str(etp_tt *b, const char *s)
{
    if (!s)
        ETP_TT_LIT(b, "null");
    else
        etp_tt_strn(b, s, strlen(s));
}

void etp_tt_double(etp_tt *b, double v)
{
    char text[40];
    int n = etp_format_double(text, sizeof text, v);
    etp_tt_put(b, text, (size_t)n);
}
