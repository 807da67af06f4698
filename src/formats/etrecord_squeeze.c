/* etrecord_squeeze.c - copy JSON text while dropping its huge strings.
 *
 * Delegate nodes carry the whole compiled blob as base64 (hundreds of MB)
 * and nested program JSON inside one string. Giving that to jansson would
 * copy it at least twice; holding it at all would double peak memory. The
 * filter runs while the entry is being decompressed: it tracks whether it
 * is inside a string token (quotes and backslash escapes only, so it works
 * on any byte stream), and once a string grows past the threshold it stops
 * keeping its bytes and, at the closing quote, writes a short placeholder
 * string instead. The kept text is still valid JSON if the input was. A skip
 * map translates positions in the kept text back to entry offsets for error
 * messages. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/etrecord_internal.h"

void etr_squeeze_init(etr_squeeze *s, size_t threshold, size_t max_len)
{
    memset(s, 0, sizeof *s);
    s->threshold = threshold;
    s->max_len = max_len;
}

void etr_squeeze_free(etr_squeeze *s)
{
    free(s->buf);
    free(s->map_at);
    free(s->map_removed);
    memset(s, 0, sizeof *s);
}

static int sq_reserve(etr_squeeze *s, size_t extra)
{
    if (s->failed)
        return -1;
    if (extra > s->max_len || s->len > s->max_len - extra) {
        s->failed = 2;
        return -1;
    }
    size_t need = s->len + extra + 1; /* room for the final NUL */
    if (need <= s->cap)
        return 0;
    size_t cap = s->cap ? s->cap : 64 * 1024;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *nb = realloc(s->buf, cap);
    if (!nb) {
        s->failed = 1;
        return -1;
    }
    s->buf = nb;
    s->cap = cap;
    return 0;
}

static int sq_put(etr_squeeze *s, const char *p, size_t n)
{
    if (n == 0)
        return 0;
    if (sq_reserve(s, n))
        return -1;
    memcpy(s->buf + s->len, p, n);
    s->len += n;
    return 0;
}

/* The closing quote of a dropped string: write the placeholder and record
 * how many raw bytes are now missing before this point. */
static int sq_close_skipped(etr_squeeze *s)
{
    char ph[64];
    int n = snprintf(ph, sizeof ph, "\"<etprof: %" PRIu64 "-byte string skipped>\"", s->str_raw_len);
    s->len = s->str_start;
    if (sq_put(s, ph, (size_t)n))
        return -1;
    if (s->map_n == s->map_cap) {
        size_t cap = s->map_cap ? s->map_cap * 2 : 16;
        uint64_t *na = realloc(s->map_at, cap * sizeof *na);
        if (na)
            s->map_at = na;
        uint64_t *nr = na ? realloc(s->map_removed, cap * sizeof *nr) : NULL;
        if (!nr) {
            s->failed = 1;
            return -1;
        }
        s->map_removed = nr;
        s->map_cap = cap;
    }
    uint64_t prev = s->map_n ? s->map_removed[s->map_n - 1] : 0;
    s->map_at[s->map_n] = s->len;
    s->map_removed[s->map_n] = prev + (s->str_raw_len + 2) - (uint64_t)n;
    s->map_n++;
    s->skipped_strings++;
    s->skipped_bytes += s->str_raw_len;
    return 0;
}

/* Account for @p n string-body bytes at @p p: keep them, or switch to
 * skipping when the string crosses the threshold. */
static int sq_string_bytes(etr_squeeze *s, const char *p, size_t n)
{
    s->str_raw_len += n;
    if (s->skipping)
        return 0;
    if (s->str_raw_len > s->threshold) {
        s->skipping = 1;
        s->len = s->str_start; /* forget the part kept so far */
        return 0;
    }
    return sq_put(s, p, n);
}

int etr_squeeze_feed(etr_squeeze *s, const char *data, size_t n)
{
    if (s->failed)
        return -1;
    const char *p = data, *end = data + n;
    s->raw_pos += n;
    while (p < end) {
        if (!s->in_string) {
            const char *q = memchr(p, '"', (size_t)(end - p));
            if (!q)
                return sq_put(s, p, (size_t)(end - p));
            if (sq_put(s, p, (size_t)(q - p) + 1))
                return -1;
            s->in_string = 1;
            s->str_start = s->len - 1;
            s->str_raw_len = 0;
            s->skipping = 0;
            s->escape = 0;
            p = q + 1;
            continue;
        }
        if (s->escape) { /* the byte after a backslash, whatever it is */
            s->escape = 0;
            if (sq_string_bytes(s, p, 1))
                return -1;
            p++;
            continue;
        }
        const char *q = memchr(p, '"', (size_t)(end - p));
        const char *lim = q ? q : end;
        const char *b = memchr(p, '\\', (size_t)(lim - p));
        const char *stop = b ? b : lim;
        if (sq_string_bytes(s, p, (size_t)(stop - p)))
            return -1;
        p = stop;
        if (p == end)
            break;
        if (*p == '\\') {
            s->escape = 1;
            if (sq_string_bytes(s, p, 1))
                return -1;
            p++;
            continue;
        }
        /* closing quote */
        if (s->skipping) {
            if (sq_close_skipped(s))
                return -1;
        } else if (sq_put(s, p, 1)) {
            return -1;
        }
        s->in_string = 0;
        s->skipping = 0;
        p++;
    }
    return s->failed ? -1 : 0;
}

int etr_squeeze_finish(etr_squeeze *s)
{
    if (s->failed)
        return -1;
    if (sq_reserve(s, 0))
        return -1;
    s->buf[s->len] = '\0';
    return 0;
}

uint64_t etr_squeeze_raw_offset(const etr_squeeze *s, uint64_t pos)
{
    /* last map entry with map_at <= pos */
    size_t lo = 0, hi = s->map_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->map_at[mid] <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return pos + (lo ? s->map_removed[lo - 1] : 0);
}
