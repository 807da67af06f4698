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

#include "formats/etrecord/etrecord_internal.h"

/* ---- scanning ---------------------------------------------------------- */

/* 8 bytes of @p w: is any of them equal to @p b? (Exact: the classic
 * "has zero byte" test on w ^ b repeated.) */
static int has_byte(uint64_t w, unsigned char b)
{
    uint64_t x = w ^ (0x0101010101010101ull * b);
    return ((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull) != 0;
}

/* Index of the first @p b in p[0, n), or n. JSON tokens are short, so an
 * inline word-at-a-time search beats a memchr call per token. */
static size_t find_byte(const char *p, size_t n, unsigned char b)
{
    size_t i = 0;
    uint64_t w;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        if (has_byte(w, b))
            break;
    }
    while (i < n && (unsigned char)p[i] != b)
        i++;
    return i;
}

/* Index of the first quote or backslash in p[0, n), or n: the end of a
 * string body's plain run. */
static size_t find_quote_or_backslash(const char *p, size_t n)
{
    size_t i = 0;
    uint64_t w;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        if (has_byte(w, '"') || has_byte(w, '\\'))
            break;
    }
    while (i < n && p[i] != '"' && p[i] != '\\')
        i++;
    return i;
}

/* Index of the quote closing the string whose body starts at buf[i], or
 * @p len if it does not close. A backslash takes the next byte with it,
 * whatever it is. */
static size_t string_close(const char *buf, size_t len, size_t i)
{
    for (;;) {
        i += find_quote_or_backslash(buf + i, len - i);
        if (i >= len || buf[i] == '"')
            return i;
        i += 2; /* the escape and the byte it takes */
        if (i >= len)
            return len;
    }
}

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

/* Most text reserved up front from an entry's declared size; beyond it the
 * buffer grows by doubling as usual. */
#define SQ_EXPECT_MAX ((size_t)256 << 20)

void etr_squeeze_expect(etr_squeeze *s, uint64_t size)
{
    if (s->failed || s->cap || size < 64 * 1024)
        return;
    size_t want = size > SQ_EXPECT_MAX ? SQ_EXPECT_MAX : (size_t)size;
    if (want > s->max_len)
        want = s->max_len;
    char *nb = malloc(want + 1);
    if (!nb)
        return; /* not an error: sq_reserve grows the buffer as needed */
    s->buf = nb;
    s->cap = want + 1;
    /* One allocation written front to back, never reallocated while the
     * declared size holds: huge pages save most of its page faults. (Not
     * done on realloc'd buffers: the hint splits the mapping, and glibc
     * can then no longer grow it in place.) */
    etr_hint_huge_pages(nb, want + 1);
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

/* The string being read grew past the threshold: keep the bytes of the
 * pending run @p *run that precede its opening quote, forget the rest. */
static int sq_start_skipping(etr_squeeze *s, const char **run)
{
    if (s->str_start >= s->len && sq_put(s, *run, s->str_start - s->len))
        return -1;
    s->len = s->str_start;
    s->skipping = 1;
    *run = NULL;
    return 0;
}

/* Switch to skipping once the current string is over the threshold. */
static int sq_check_length(etr_squeeze *s, const char **run)
{
    if (s->skipping || s->str_raw_len <= s->threshold)
        return 0;
    return sq_start_skipping(s, run);
}

/* Bytes are not copied one token at a time: [run, p) is the pending run of
 * input that is kept, copied in one go when it ends (at a string that turns
 * out to be huge, or at the end of the chunk). */
int etr_squeeze_feed(etr_squeeze *s, const char *data, size_t n)
{
    if (s->failed)
        return -1;
    const char *p = data, *end = data + n;
    const char *run = s->skipping ? NULL : data;
    s->raw_pos += n;
    while (p < end) {
        if (!s->in_string) {
            const char *q = p + find_byte(p, (size_t)(end - p), '"');
            if (q == end)
                break;
            s->in_string = 1;
            s->str_start = s->len + (size_t)(q - run); /* where the quote will be */
            s->str_raw_len = 0;
            s->skipping = 0;
            s->escape = 0;
            p = q + 1;
            continue;
        }
        /* string body: the byte a backslash takes, whatever it is, or the
         * plain run up to the next quote or backslash */
        size_t k = s->escape ? 1 : find_quote_or_backslash(p, (size_t)(end - p));
        int quote_or_backslash = !s->escape;
        s->escape = 0;
        s->str_raw_len += k;
        p += k;
        /* judged before the closing quote: the body may be complete */
        if (sq_check_length(s, &run))
            return -1;
        if (!quote_or_backslash || p == end)
            continue;
        if (*p == '\\') {
            s->escape = 1;
            s->str_raw_len++;
            p++;
            if (sq_check_length(s, &run))
                return -1;
            continue;
        }
        if (s->skipping) { /* the closing quote */
            if (sq_close_skipped(s))
                return -1;
            run = p + 1;
        }
        s->in_string = 0;
        s->skipping = 0;
        p++;
    }
    if (run && sq_put(s, run, (size_t)(end - run)))
        return -1;
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

/* ---- pruning members etprof never reads ------------------------------------
 * An exported program's graph carries `tensor_values` (shape metadata of every
 * tensor), and the graph module its `signature` and `module_call_graph`; on
 * large models they are over a third of the text, and jansson's lexer costs
 * the same per byte whatever the byte is. They are cut out before parsing:
 * each value becomes `null` and the text is compacted; the skip map is
 * rebuilt so error offsets still point into the original entry. A malformed
 * entry stops the pass early; jansson then reports the error. */

typedef struct prune_rule {
    int depth;              /* object nesting of the member (root object = 1) */
    const char *parent;     /* key holding that object ("" for the root) */
    const char *grandparent;
    const char *key;
} prune_rule;

static const prune_rule prune_rules[] = {
    {3, "graph", "graph_module", "tensor_values"},
    {3, "graph", "graph_module", "sym_int_values"},
    {3, "graph", "graph_module", "sym_bool_values"},
    {3, "graph", "graph_module", "custom_obj_values"},
    {2, "graph_module", "", "signature"},
    {2, "graph_module", "", "module_call_graph"},
};

#define PRUNE_DEPTH 4
#define PRUNE_KEY 32
#define PRUNE_MAX_CUTS 64

/* Skip the JSON object or array starting at buf[i] (after whitespace);
 * return the index just past it, or 0 if it is not one or does not end. */
static size_t value_end(const char *buf, size_t len, size_t i)
{
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    if (i >= len || (buf[i] != '{' && buf[i] != '['))
        return 0;
    size_t depth = 0;
    for (; i < len; i++) {
        char c = buf[i];
        if (c == '"') {
            i = string_close(buf, len, i + 1);
            if (i >= len)
                return 0;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return 0;
            if (--depth == 0)
                return i + 1;
        }
    }
    return 0;
}

typedef struct cut {
    size_t at, len;         /* in the uncompacted buffer: bytes [at, at+len) removed */
} cut;

/* Find the values to cut (at most PRUNE_MAX_CUTS). */
static size_t find_cuts(const char *buf, size_t len, cut *cuts)
{
    char keys[PRUNE_DEPTH + 1][PRUNE_KEY];
    char last[PRUNE_KEY] = "";
    int depth = 0, last_ok = 0;
    size_t n = 0;
    memset(keys, 0, sizeof keys);
    for (size_t i = 0; i < len && n < PRUNE_MAX_CUTS; i++) {
        char c = buf[i];
        switch (c) {
        case '"': {
            size_t end = string_close(buf, len, i + 1);
            if (end >= len)
                return n;
            size_t l = end - (i + 1);
            last_ok = l < PRUNE_KEY;
            if (last_ok) {
                memcpy(last, buf + i + 1, l);
                last[l] = '\0';
            }
            i = end;
            break;
        }
        case '{':
        case '[':
            depth++;
            if (depth <= PRUNE_DEPTH)
                snprintf(keys[depth], PRUNE_KEY, "%s", c == '{' && last_ok ? last : "");
            last_ok = 0;
            break;
        case '}':
        case ']':
            if (--depth < 0)
                return n;
            last_ok = 0;
            break;
        case ':':
            if (!last_ok || depth < 1 || depth > 3)
                break;
            for (size_t r = 0; r < sizeof prune_rules / sizeof prune_rules[0]; r++) {
                const prune_rule *pr = &prune_rules[r];
                if (pr->depth != depth || strcmp(pr->key, last) || strcmp(keys[depth], pr->parent) ||
                    (depth >= 2 && strcmp(keys[depth - 1], pr->grandparent)))
                    continue;
                size_t end = value_end(buf, len, i + 1);
                if (!end)
                    return n;
                if (end - (i + 1) > 4) { /* keep "null" in place of the value */
                    cuts[n].at = i + 1 + 4;
                    cuts[n].len = end - (i + 1) - 4;
                    memcpy((char *)buf + i + 1, "null", 4);
                    n++;
                }
                i = end - 1;
                last_ok = 0;
                break;
            }
            /* keep `last`: a '{' that follows is the value of this key */
            break;
        case ',':
            last_ok = 0;
            break;
        default:
            break;
        }
    }
    return n;
}

void etr_squeeze_prune(etr_squeeze *s)
{
    cut cuts[PRUNE_MAX_CUTS];
    size_t n = find_cuts(s->buf, s->len, cuts);
    if (!n)
        return;
    /* New skip map: old entries shifted left by the bytes cut before them,
     * merged with one entry per cut. Removed counts stay cumulative. */
    size_t cap = s->map_n + n;
    uint64_t *at = malloc(cap * sizeof *at), *rem = malloc(cap * sizeof *rem);
    if (!at || !rem) {
        free(at);
        free(rem);
        for (size_t k = 0; k < n; k++) /* fall back: blank instead of cutting */
            memset(s->buf + cuts[k].at, ' ', cuts[k].len);
        return;
    }
    size_t m = 0, oi = 0, shift = 0;
    uint64_t old_cum = 0;
    for (size_t k = 0; k <= n; k++) {
        size_t limit = k < n ? cuts[k].at : SIZE_MAX;
        while (oi < s->map_n && s->map_at[oi] <= limit) {
            old_cum = s->map_removed[oi];
            at[m] = s->map_at[oi] - shift;
            rem[m] = old_cum + shift;
            m++;
            oi++;
        }
        if (k == n)
            break;
        shift += cuts[k].len;
        at[m] = cuts[k].at - (shift - cuts[k].len);
        rem[m] = old_cum + shift;
        m++;
        s->pruned_bytes += cuts[k].len;
    }
    /* Compact the text. */
    size_t w = cuts[0].at;
    for (size_t k = 0; k < n; k++) {
        size_t from = cuts[k].at + cuts[k].len;
        size_t to = k + 1 < n ? cuts[k + 1].at : s->len;
        memmove(s->buf + w, s->buf + from, to - from);
        w += to - from;
    }
    s->len = w;
    s->buf[w] = '\0';
    free(s->map_at);
    free(s->map_removed);
    s->map_at = at;
    s->map_removed = rem;
    s->map_n = s->map_cap = m;
}
