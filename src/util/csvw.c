/* csvw.c - CSV writer (see csvw.h). */
#include "util/csvw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonw.h"

void etp_csvw_init(etp_csvw *w) { memset(w, 0, sizeof *w); }

void etp_csvw_discard(etp_csvw *w)
{
    free(w->buf);
    etp_csvw_init(w);
}

/* A file writer hands its buffer to the FILE at this size. */
#define FLUSH_AT ((size_t)1 << 16)

void etp_csvw_init_file(etp_csvw *w, FILE *fp)
{
    etp_csvw_init(w);
    w->fp = fp;
}

static void flush(etp_csvw *w)
{
    if (w->failed || !w->len)
        return;
    if (fwrite(w->buf, 1, w->len, w->fp) != w->len)
        w->failed = 1;
    w->len = 0;
}

int etp_csvw_finish(etp_csvw *w)
{
    if (w->fp)
        flush(w);
    int failed = w->failed;
    free(w->buf);
    etp_csvw_init(w);
    return failed ? -1 : 0;
}

static int reserve_slow(etp_csvw *w, size_t n)
{
    if (w->failed)
        return -1;
    if (w->len + n < w->cap)
        return 0;
    if (w->fp && w->len + n >= FLUSH_AT) {
        flush(w);
        if (w->failed)
            return -1;
        if (n < w->cap)
            return 0;
    }
    size_t cap = w->cap ? w->cap : 4096;
    while (cap <= w->len + n)
        cap *= 2;
    char *b = realloc(w->buf, cap);
    if (!b) {
        w->failed = 1;
        return -1;
    }
    w->buf = b;
    w->cap = cap;
    return 0;
}

/* Room for @p n more bytes: the common case inline. */
static inline int reserve(etp_csvw *w, size_t n)
{
    if (w->len + n < w->cap && !w->failed)
        return 0;
    return reserve_slow(w, n);
}

static void put(etp_csvw *w, const char *s, size_t n)
{
    if (reserve(w, n))
        return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static void putc_(etp_csvw *w, char c)
{
    if (reserve(w, 1))
        return;
    w->buf[w->len++] = c;
}

/* Start a field: a comma unless it is the row's first. */
static void next_field(etp_csvw *w)
{
    if (w->row_open)
        putc_(w, ',');
    w->row_open = 1;
}

/* Length of @p s and whether it needs quotes, in one pass (the common short
 * field: a call of strpbrk costs more than the scan). */
static size_t field_len(const char *s, int *quote)
{
    const char *p = s;
    for (; *p; p++)
        if (*p == ',' || *p == '"' || *p == '\r' || *p == '\n') {
            *quote = 1;
            return (size_t)(p - s) + strlen(p);
        }
    *quote = 0;
    return (size_t)(p - s);
}

static int needs_quotes(const char *s)
{
    int quote;
    field_len(s, &quote);
    return quote;
}

static void put_quoted_body(etp_csvw *w, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            putc_(w, '"');
        putc_(w, *p);
    }
}

char *etp_csvw_take(etp_csvw *w, size_t *len)
{
    if (reserve(w, 1)) {
        etp_csvw_discard(w);
        return NULL;
    }
    w->buf[w->len] = '\0';
    char *out = w->buf;
    if (len)
        *len = w->len;
    etp_csvw_init(w);
    return out;
}

void etp_csvw_str(etp_csvw *w, const char *s)
{
    next_field(w);
    if (!s)
        return;
    int quote;
    size_t n = field_len(s, &quote);
    if (!quote) {
        put(w, s, n);
        return;
    }
    putc_(w, '"');
    put_quoted_body(w, s);
    putc_(w, '"');
}

void etp_csvw_empty(etp_csvw *w) { next_field(w); }

void etp_csvw_uint(etp_csvw *w, uint64_t v)
{
    char b[24];
    char *end = b + sizeof b, *p = end;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    next_field(w);
    put(w, p, (size_t)(end - p));
}

void etp_csvw_int(etp_csvw *w, int64_t v)
{
    char b[24];
    int n = etp_format_int(b, v);
    next_field(w);
    put(w, b, (size_t)n);
}

void etp_csvw_double(etp_csvw *w, double v)
{
    char b[40];
    int n = etp_format_double(b, sizeof b, v);
    next_field(w);
    put(w, b, (size_t)n);
}

void etp_csvw_strs(etp_csvw *w, const char *const *items, uint32_t n)
{
    next_field(w);
    int quote = 0;
    for (uint32_t k = 0; k < n && !quote; k++)
        quote = needs_quotes(items[k]);
    if (quote)
        putc_(w, '"');
    for (uint32_t k = 0; k < n; k++) {
        if (k)
            putc_(w, ' ');
        if (quote)
            put_quoted_body(w, items[k]);
        else
            put(w, items[k], strlen(items[k]));
    }
    if (quote)
        putc_(w, '"');
}

void etp_csvw_ints(etp_csvw *w, const int64_t *v, uint32_t n)
{
    next_field(w);
    char b[24];
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(w, " ", 1);
        put(w, b, (size_t)etp_format_int(b, v[i]));
    }
}

void etp_csvw_raw(etp_csvw *w, const char *text, size_t n)
{
    next_field(w);
    put(w, text, n);
}

void etp_csvw_end_row(etp_csvw *w)
{
    put(w, "\r\n", 2);
    w->row_open = 0;
}
