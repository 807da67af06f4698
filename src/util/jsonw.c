/* jsonw.c - streaming JSON writer (see jsonw.h for why it exists). */
#include "util/jsonw.h"

#include "util/dtoa.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Record the first failure and its cause (the writer is sticky). */
static void jw_fail(etp_jw *w, int cause, int err_no)
{
    if (!w->failed) {
        w->cause = cause;
        w->err_no = err_no;
    }
    w->failed = 1;
}

#define FLUSH_AT ETP_JW_FLUSH_AT

static void jw_reserve(etp_jw *w, size_t extra)
{
    if (w->failed)
        return;
    if (w->len + extra + 1 <= w->cap)
        return;
    size_t ncap = w->cap ? w->cap : 4096;
    while (ncap < w->len + extra + 1) {
        if (ncap > SIZE_MAX / 2) {
            jw_fail(w, ETP_JW_NOMEM, ENOMEM);
            return;
        }
        ncap *= 2;
    }
    char *nb = realloc(w->buf, ncap);
    if (!nb) {
        jw_fail(w, ETP_JW_NOMEM, ENOMEM);
        return;
    }
    w->buf = nb;
    w->cap = ncap;
}

static void jw_flush(etp_jw *w)
{
    if (!w->fp || w->failed || w->len == 0)
        return;
    errno = 0;
    if (fwrite(w->buf, 1, w->len, w->fp) != w->len)
        jw_fail(w, ETP_JW_IO, errno ? errno : EIO);
    w->len = 0;
}

static void jw_put_slow(etp_jw *w, const char *s, size_t n)
{
    jw_reserve(w, n);
    if (w->failed)
        return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    if (w->fp && w->len >= FLUSH_AT)
        jw_flush(w);
}

/* The common case inline: room in the buffer and nothing to flush yet. */
static inline void jw_put(etp_jw *w, const char *s, size_t n)
{
    if (w->len + n < w->cap && !w->failed && (!w->fp || w->len + n < FLUSH_AT)) {
        memcpy(w->buf + w->len, s, n);
        w->len += n;
        return;
    }
    jw_put_slow(w, s, n);
}

static inline void jw_putc(etp_jw *w, char c)
{
    if (w->len + 1 < w->cap && !w->failed && (!w->fp || w->len + 1 < FLUSH_AT)) {
        w->buf[w->len++] = c;
        return;
    }
    jw_put_slow(w, &c, 1);
}

static void jw_newline(etp_jw *w)
{
    if (!w->pretty)
        return;
    jw_putc(w, '\n');
    for (int i = 0; i < w->depth; i++)
        jw_put(w, "  ", 2);
}

/* The rare cases of jw_pre: a requested line break, indentation. */
static void jw_pre_layout(etp_jw *w)
{
    if (w->line_break && !w->pretty)
        jw_putc(w, '\n');
    w->line_break = 0;
    jw_newline(w);
}

/* Separator and indentation before a value or key (inline: it precedes
 * every token). */
static inline void jw_pre(etp_jw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth > 0) {
        if (!w->first[w->depth - 1])
            jw_putc(w, ',');
        w->first[w->depth - 1] = 0;
        if (w->line_break | w->pretty)
            jw_pre_layout(w);
    }
}

void etp_jw_break(etp_jw *w)
{
    w->line_break = 1;
}

void etp_jw_init_file(etp_jw *w, FILE *fp, int pretty)
{
    memset(w, 0, sizeof *w);
    w->fp = fp;
    w->pretty = pretty;
}

void etp_jw_init_mem(etp_jw *w, int pretty)
{
    memset(w, 0, sizeof *w);
    w->pretty = pretty;
}

int etp_jw_finish(etp_jw *w)
{
    if (w->fp) {
        if (w->pretty)
            jw_putc(w, '\n');
        jw_flush(w);
        errno = 0;
        if (fflush(w->fp) != 0)
            jw_fail(w, ETP_JW_IO, errno ? errno : EIO);
        free(w->buf);
        w->buf = NULL;
        w->cap = w->len = 0;
    }
    return w->failed ? -1 : 0;
}

etp_status etp_jw_finish_status(etp_jw *w, const char *what, etp_error *err)
{
    if (!etp_jw_finish(w))
        return ETP_OK;
    switch (w->cause) {
    case ETP_JW_IO:
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "cannot write %s: %s", what,
                             strerror(w->err_no));
    case ETP_JW_NOMEM:
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET,
                             "cannot write %s: out of memory", what);
    case ETP_JW_DEPTH:
        return etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET,
                             "cannot write %s: nested deeper than %d levels", what,
                             ETP_JW_MAX_DEPTH);
    case ETP_JW_UNBALANCED:
        return etp_error_set(err, ETP_E_INTERNAL, NULL, ETP_NO_OFFSET,
                             "cannot write %s: unbalanced JSON containers", what);
    default: /* a caller marked the writer failed */
        return etp_error_set(err, ETP_E_INTERNAL, NULL, ETP_NO_OFFSET, "cannot write %s", what);
    }
}

char *etp_jw_take(etp_jw *w, size_t *len)
{
    if (w->pretty)
        jw_putc(w, '\n');
    jw_reserve(w, 1);
    if (w->failed) {
        etp_jw_discard(w);
        return NULL;
    }
    w->buf[w->len] = '\0';
    char *out = w->buf;
    if (len)
        *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return out;
}

void etp_jw_discard(etp_jw *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

static void jw_open(etp_jw *w, char c, int is_obj)
{
    jw_pre(w);
    jw_putc(w, c);
    if (w->depth >= ETP_JW_MAX_DEPTH) {
        jw_fail(w, ETP_JW_DEPTH, 0);
        return;
    }
    w->first[w->depth] = 1;
    w->is_obj[w->depth] = (uint8_t)is_obj;
    w->depth++;
}

static void jw_close(etp_jw *w, char c)
{
    if (w->depth <= 0) {
        jw_fail(w, ETP_JW_UNBALANCED, 0);
        return;
    }
    w->depth--;
    if (!w->first[w->depth])
        jw_newline(w);
    jw_putc(w, c);
}

void etp_jw_obj_begin(etp_jw *w) { jw_open(w, '{', 1); }
void etp_jw_obj_end(etp_jw *w) { jw_close(w, '}'); }
void etp_jw_arr_begin(etp_jw *w) { jw_open(w, '[', 0); }
void etp_jw_arr_end(etp_jw *w) { jw_close(w, ']'); }

/* The bytes a string cannot hold as they are: '"', '\\', controls, DEL,
 * and bytes >= 0x80 (passed through only as well-formed UTF-8); and '<',
 * which is looked at again (escaped only for escape_lt writers). */
static inline int needs_care(unsigned char c)
{
    return (unsigned)(c - 0x20) >= 0x5fu || c == '"' || c == '\\' || c == '<';
}

/* The first byte of p[i, n) that needs care, or n. */
static size_t first_care(const unsigned char *p, size_t i, size_t n)
{
    while (i < n && !needs_care(p[i]))
        i++;
    return i;
}

#if defined(__SSE2__)
/* Mask of the bytes of @p x that need care (needs_care): below 0x20 or
 * >= 0x80 is one signed comparison (those are the negative bytes). */
static inline unsigned block_needs_care(__m128i x)
{
    __m128i m = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
                             _mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f)));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('<')));
    return (unsigned)_mm_movemask_epi8(m);
}

/* Length of the longest prefix of @p p[0, n) without a byte that needs
 * care: sixteen bytes at a time, the last block overlapping the one before;
 * a short string as two overlapping 8- or 4-byte halves of one block
 * (nothing is read past the string). */
static size_t plain_prefix(const unsigned char *p, size_t n)
{
    if (n < 16) {
        __m128i x;
        if (n >= 8)
            x = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)p),
                                   _mm_loadl_epi64((const __m128i *)(const void *)(p + n - 8)));
        else if (n >= 4) {
            int a, b;
            memcpy(&a, p, 4);
            memcpy(&b, p + n - 4, 4);
            x = _mm_unpacklo_epi32(_mm_cvtsi32_si128(a), _mm_cvtsi32_si128(b));
            x = _mm_unpacklo_epi64(x, x); /* the upper half repeats: no zero bytes */
        } else
            return first_care(p, 0, n);
        return block_needs_care(x) ? first_care(p, 0, n) : n;
    }
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        unsigned m = block_needs_care(_mm_loadu_si128((const __m128i *)(const void *)(p + i)));
        if (m)
            return i + (size_t)__builtin_ctz(m);
    }
    if (i < n) {
        /* bytes before i are plain, so a flagged byte lies at i or after */
        unsigned m = block_needs_care(_mm_loadu_si128((const __m128i *)(const void *)(p + n - 16)));
        if (m)
            return n - 16 + (size_t)__builtin_ctz(m);
    }
    return n;
}
#else
/* Nonzero if one of the eight bytes of @p x needs care: (y - ones) & ~y has
 * a high bit set iff y has a zero byte; the same with 0x20 for a byte below
 * 0x20; x's own high bits for bytes >= 0x80. */
static inline uint64_t word_needs_care(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t q = x ^ (ones * '"'), bs = x ^ (ones * '\\'), del = x ^ (ones * 0x7f);
    uint64_t lt = x ^ (ones * '<');
    return (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((bs - ones) & ~bs) |
            ((del - ones) & ~del) | ((lt - ones) & ~lt) | x) & highs;
}

static inline uint64_t load8(const unsigned char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

static inline uint64_t load4(const unsigned char *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}

/* plain_prefix for n < 16: two overlapping loads cover the string without
 * reading past it; a flagged word is looked at byte by byte. */
static inline size_t plain_prefix_short(const unsigned char *p, size_t n)
{
    uint64_t care;
    if (n >= 8)
        care = word_needs_care(load8(p)) | word_needs_care(load8(p + n - 8));
    else if (n >= 4)
        care = word_needs_care(load4(p) | load4(p + n - 4) << 32);
    else
        return first_care(p, 0, n);
    return care ? first_care(p, 0, n) : n;
}

/* Length of the longest prefix of @p p[0, n) without a byte that needs
 * care, eight bytes at a time while they are all plain. */
static size_t plain_prefix(const unsigned char *p, size_t n)
{
    if (n < 16)
        return plain_prefix_short(p, n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        if (word_needs_care(load8(p + i)))
            return first_care(p, i, n);
    if (i < n && word_needs_care(load8(p + n - 8)))
        return first_care(p, i, n);
    return n;
}
#endif

static void jw_string_body(etp_jw *w, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t i = plain_prefix(p, n);
    if (i == n) { /* the common case: one copy */
        jw_reserve(w, n + 2);
        if (w->failed)
            return;
        char *o = w->buf + w->len;
        o[0] = '"';
        memcpy(o + 1, s, n);
        o[n + 1] = '"';
        w->len += n + 2;
        if (w->fp && w->len >= FLUSH_AT)
            jw_flush(w);
        return;
    }
    jw_putc(w, '"');
    size_t run = 0; /* start of a run of bytes that need no escaping */
    while (i < n) {
        unsigned char c = p[i];
        const char *esc = NULL;
        char ubuf[7];
        if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\t')
            esc = "\\t";
        else if (c == '<') {
            if (w->escape_lt)
                esc = "\\u003c";
            else { /* plain after all: the run goes on */
                i++;
                i += plain_prefix(p + i, n - i);
                continue;
            }
        }
        else if (c < 0x20 || c == 0x7f) {
            ubuf[0] = '\\'; ubuf[1] = 'u'; ubuf[2] = '0'; ubuf[3] = '0';
            ubuf[4] = hex[c >> 4]; ubuf[5] = hex[c & 15]; ubuf[6] = 0;
            esc = ubuf;
        } else {
            /* Pass well-formed UTF-8 through; escape stray bytes as U+00XX so
             * the output stays valid JSON whatever the input holds. */
            size_t need = (c >= 0xf0 && c <= 0xf4) ? 3 : (c >= 0xe0) ? 2 : (c >= 0xc2 && c < 0xe0) ? 1 : 0;
            int ok = need > 0 && i + need < n;
            for (size_t k = 1; ok && k <= need; k++)
                if ((p[i + k] & 0xc0) != 0x80)
                    ok = 0;
            if (ok) {
                i += need + 1;
                i += plain_prefix(p + i, n - i);
                continue;
            }
            ubuf[0] = '\\'; ubuf[1] = 'u'; ubuf[2] = '0'; ubuf[3] = '0';
            ubuf[4] = hex[c >> 4]; ubuf[5] = hex[c & 15]; ubuf[6] = 0;
            esc = ubuf;
        }
        if (i > run)
            jw_put(w, s + run, i - run);
        jw_put(w, esc, strlen(esc));
        run = i + 1;
        i = run + plain_prefix(p + run, n - run);
    }
    if (n > run)
        jw_put(w, s + run, n - run);
    jw_putc(w, '"');
}

void etp_jw_key(etp_jw *w, const char *key)
{
    jw_pre(w);
    jw_string_body(w, key, strlen(key));
    jw_put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
    w->after_key = 1;
}

void etp_jw_key_plain(etp_jw *w, const char *key, size_t n)
{
    jw_pre(w);
    jw_reserve(w, n + 4);
    if (w->failed)
        return;
    char *o = w->buf + w->len;
    o[0] = '"';
    memcpy(o + 1, key, n);
    o[n + 1] = '"';
    o[n + 2] = ':';
    o[n + 3] = ' ';
    w->len += n + (w->pretty ? 4 : 3);
    w->after_key = 1;
    if (w->fp && w->len >= FLUSH_AT)
        jw_flush(w);
}

static inline char *put_at(char *o, const char *s, size_t n)
{
    memcpy(o, s, n);
    return o + n;
}

void etp_jw_obj2s(etp_jw *w, const char *k1, size_t n1, const char *v1, const char *k2, size_t n2,
                  const char *v2)
{
    size_t l1 = v1 ? strlen(v1) : 0, l2 = v2 ? strlen(v2) : 0;
    const unsigned char *p1 = (const unsigned char *)v1, *p2 = (const unsigned char *)v2;
    /* The common case in one piece: compact, values present and plain. */
    if (w->pretty || !v1 || !v2 || w->depth >= ETP_JW_MAX_DEPTH || plain_prefix(p1, l1) != l1 ||
        plain_prefix(p2, l2) != l2) {
        etp_jw_obj_begin(w);
        etp_jw_key_plain(w, k1, n1);
        etp_jw_str(w, v1);
        etp_jw_key_plain(w, k2, n2);
        etp_jw_str(w, v2);
        etp_jw_obj_end(w);
        return;
    }
    jw_pre(w);
    jw_reserve(w, n1 + n2 + l1 + l2 + 13);
    if (w->failed)
        return;
    /* {"k1":"v1","k2":"v2"}: 13 bytes besides the four texts */
    char *o = w->buf + w->len;
    o = put_at(o, "{\"", 2);
    o = put_at(o, k1, n1);
    o = put_at(o, "\":\"", 3);
    o = put_at(o, v1, l1);
    o = put_at(o, "\",\"", 3);
    o = put_at(o, k2, n2);
    o = put_at(o, "\":\"", 3);
    o = put_at(o, v2, l2);
    o = put_at(o, "\"}", 2);
    w->len = (size_t)(o - w->buf);
    if (w->fp && w->len >= FLUSH_AT)
        jw_flush(w);
}

void etp_jw_strn(etp_jw *w, const char *s, size_t n)
{
    jw_pre(w);
    jw_string_body(w, s ? s : "", s ? n : 0);
}

void etp_jw_str(etp_jw *w, const char *s)
{
    if (!s) {
        etp_jw_null(w);
        return;
    }
    etp_jw_strn(w, s, strlen(s));
}

int etp_format_int(char *out, int64_t v)
{
    char b[24];
    char *end = b + sizeof b;
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    char *p = etp_u64_digits(mag, end);
    if (v < 0)
        *--p = '-';
    size_t n = (size_t)(end - p);
    memcpy(out, p, n);
    out[n] = '\0';
    return (int)n;
}

void etp_jw_int(etp_jw *w, int64_t v)
{
    char b[24];
    char *end = b + sizeof b;
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    char *p = etp_u64_digits(mag, end);
    if (v < 0)
        *--p = '-';
    jw_pre(w);
    jw_put(w, p, (size_t)(end - p));
}

void etp_jw_uint(etp_jw *w, uint64_t v)
{
    char b[24];
    char *end = b + sizeof b;
    char *p = etp_u64_digits(v, end);
    jw_pre(w);
    jw_put(w, p, (size_t)(end - p));
}

int etp_format_shortest(char *out, size_t size, double v, char conv)
{
    char b[ETP_DTOA_MAX];
    int n = etp_dtoa_format(b, v, conv);
    if (size > 0) {
        size_t m = (size_t)n < size ? (size_t)n : size - 1;
        memcpy(out, b, m);
        out[m] = '\0';
    }
    return n;
}

int etp_format_double(char *out, size_t size, double v)
{
    if (!isfinite(v))
        return snprintf(out, size, "null");
    char b[ETP_DTOA_MAX + 2];
    int n = etp_dtoa_format_json(b, v);
    if ((size_t)n < size) {
        memcpy(out, b, (size_t)n + 1);
        return n;
    }
    /* too small for the float form: the shortest text, cut to size */
    return etp_format_shortest(out, size, v, 'g');
}

void etp_jw_double(etp_jw *w, double v)
{
    if (!isfinite(v)) {
        etp_jw_null(w);
        return;
    }
    char b[ETP_DTOA_MAX + 2];
    int n = etp_dtoa_format_json(b, v); /* 2 -> 2.0, as etp_format_double */
    jw_pre(w);
    jw_put(w, b, (size_t)n);
}

void etp_jw_float(etp_jw *w, float v)
{
    char b[40];
    if (!isfinite(v)) {
        etp_jw_null(w);
        return;
    }
    int n = 0;
    for (int prec = 1; prec <= 9; prec++) {
        n = snprintf(b, sizeof b, "%.*g", prec, (double)v);
        if (strtof(b, NULL) == v)
            break;
    }
    if (!strpbrk(b, ".eE")) {
        b[n++] = '.';
        b[n++] = '0';
        b[n] = '\0';
    }
    jw_pre(w);
    jw_put(w, b, (size_t)n);
}

void etp_jw_bool(etp_jw *w, int v)
{
    jw_pre(w);
    if (v)
        jw_put(w, "true", 4);
    else
        jw_put(w, "false", 5);
}

void etp_jw_null(etp_jw *w)
{
    jw_pre(w);
    jw_put(w, "null", 4);
}

void etp_jw_raw_text(etp_jw *w, const char *text, size_t n) { jw_put(w, text, n); }

void etp_jw_raw(etp_jw *w, const char *json, size_t n)
{
    jw_pre(w);
    jw_put(w, json, n);
}

void etp_jw_kstr(etp_jw *w, const char *k, const char *v) { etp_jw_key(w, k); etp_jw_str(w, v); }
void etp_jw_kint(etp_jw *w, const char *k, int64_t v) { etp_jw_key(w, k); etp_jw_int(w, v); }
void etp_jw_kuint(etp_jw *w, const char *k, uint64_t v) { etp_jw_key(w, k); etp_jw_uint(w, v); }
void etp_jw_kdouble(etp_jw *w, const char *k, double v) { etp_jw_key(w, k); etp_jw_double(w, v); }
void etp_jw_kbool(etp_jw *w, const char *k, int v) { etp_jw_key(w, k); etp_jw_bool(w, v); }
void etp_jw_knull(etp_jw *w, const char *k) { etp_jw_key(w, k); etp_jw_null(w); }

void etp_jw_kstrs(etp_jw *w, const char *key, char *const *strs, uint32_t n)
{
    etp_jw_key(w, key);
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        etp_jw_str(w, strs[i]);
    etp_jw_arr_end(w);
}

#define KARRAY(fn, type, put)                                                                      \
    void fn(etp_jw *w, const char *key, const type *v, uint32_t n)                                \
    {                                                                                              \
        etp_jw_key(w, key);                                                                        \
        etp_jw_arr_begin(w);                                                                       \
        for (uint32_t i = 0; i < n; i++)                                                           \
            put(w, v[i]);                                                                          \
        etp_jw_arr_end(w);                                                                         \
    }
KARRAY(etp_jw_ku32s, uint32_t, etp_jw_uint)
KARRAY(etp_jw_ku64s, uint64_t, etp_jw_uint)
KARRAY(etp_jw_ki64s, int64_t, etp_jw_int)
