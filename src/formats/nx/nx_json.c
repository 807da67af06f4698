/* nx_json.c - see nx_json.h. RFC 8259 grammar, UTF-8
 * checked, depth and node count capped for untrusted input. */
#include <stdlib.h>
#include <string.h>

#include "formats/nx/nx_json.h"

#define MAX_DEPTH 64
#define MAX_NODES (1u << 24)

typedef struct pstate {
    const char *p, *end, *start;
    nxj_doc *d;
    const char *msg;
    int rc;
} pstate;

static int fail(pstate *s, const char *msg)
{
    if (!s->rc) {
        s->rc = -1;
        s->msg = msg;
    }
    return 0;
}

static uint32_t new_node(pstate *s, uint8_t type)
{
    nxj_doc *d = s->d;
    if (d->count == d->cap) {
        if (d->cap >= MAX_NODES) {
            s->rc = -3;
            s->msg = "too many values";
            return 0;
        }
        uint32_t cap = d->cap ? d->cap * 2 : 64;
        nxj_node *n = realloc(d->n, cap * sizeof *n);
        if (!n) {
            s->rc = -2;
            s->msg = "out of memory";
            return 0;
        }
        d->n = n;
        d->cap = cap;
    }
    uint32_t i = d->count++;
    memset(&d->n[i], 0, sizeof d->n[i]);
    d->n[i].type = type;
    return i;
}

static void ws(pstate *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static int hex4(const char *p, uint32_t *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (uint32_t)d;
    }
    return 0;
}

/* One UTF-8 sequence at p (< end); its length, 0 when invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t k;
    uint32_t cp;
    if (c < 0xC2 || c > 0xF4)
        return 0;
    k = c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    cp = c & (k == 1 ? 0x1F : k == 2 ? 0x0F : 0x07);
    if ((size_t)(end - p) <= k)
        return 0;
    for (size_t j = 1; j <= k; j++) {
        if ((p[j] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[j] & 0x3F);
    }
    if ((k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k + 1;
}

static void put_utf8(char *o, size_t *w, uint32_t cp)
{
    if (cp < 0x80) {
        o[(*w)++] = (char)cp;
    } else if (cp < 0x800) {
        o[(*w)++] = (char)(0xC0 | cp >> 6);
        o[(*w)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        o[(*w)++] = (char)(0xE0 | cp >> 12);
        o[(*w)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*w)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        o[(*w)++] = (char)(0xF0 | cp >> 18);
        o[(*w)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[(*w)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*w)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* 1 for the bytes a string scan must stop at: '"', '\\', controls, non-ASCII. */
static const uint8_t stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

static int string(pstate *s, uint32_t node)
{
    const char *a = ++s->p; /* after the quote */
    int escaped = 0;
    while (s->p < s->end) {
        /* the plain run first, four bytes at a time */
        const unsigned char *q = (const unsigned char *)s->p, *e = (const unsigned char *)s->end;
        while (e - q >= 4 && !(stop[q[0]] | stop[q[1]] | stop[q[2]] | stop[q[3]]))
            q += 4;
        while (q < e && !stop[*q])
            q++;
        s->p = (const char *)q;
        if (s->p >= s->end)
            break;
        unsigned char c = (unsigned char)*s->p;
        if (c == '"')
            break;
        if (c < 0x20)
            return fail(s, "control character in a string");
        if (c == '\\') {
            escaped = 1;
            if (s->end - s->p < 2)
                return fail(s, "unterminated string");
            s->p += s->p[1] == 'u' ? 6 : 2;
            continue;
        }
        if (c >= 0x80) {
            size_t k = utf8_len((const unsigned char *)s->p, (const unsigned char *)s->end);
            if (!k)
                return fail(s, "invalid UTF-8 in a string");
            s->p += k;
            continue;
        }
        s->p++;
    }
    if (s->p >= s->end)
        return fail(s, "unterminated string");
    const char *b = s->p++;
    nxj_node *n = &s->d->n[node];
    if (!escaped) {
        n->str = a;
        n->len = (size_t)(b - a);
        return 1;
    }
    char *o = malloc((size_t)(b - a) + 1);
    if (!o) {
        s->rc = -2;
        return 0;
    }
    nxj_doc *d = s->d;
    if (d->nowned == d->owned_cap) {
        uint32_t cap = d->owned_cap ? d->owned_cap * 2 : 8;
        char **v = realloc(d->owned, cap * sizeof *v);
        if (!v) {
            free(o);
            s->rc = -2;
            return 0;
        }
        d->owned = v;
        d->owned_cap = cap;
    }
    d->owned[d->nowned++] = o;
    size_t w = 0;
    for (const char *p = a; p < b;) {
        if (*p != '\\') {
            o[w++] = *p++;
            continue;
        }
        char e = p[1];
        p += 2;
        switch (e) {
        case '"': o[w++] = '"'; break;
        case '\\': o[w++] = '\\'; break;
        case '/': o[w++] = '/'; break;
        case 'b': o[w++] = '\b'; break;
        case 'f': o[w++] = '\f'; break;
        case 'n': o[w++] = '\n'; break;
        case 'r': o[w++] = '\r'; break;
        case 't': o[w++] = '\t'; break;
        case 'u': {
            uint32_t cp, lo;
            if (b - p < 4 || hex4(p, &cp))
                return fail(s, "bad \\u escape");
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (b - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return fail(s, "unpaired surrogate");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(s, "unpaired surrogate");
            }
            if (cp == 0)
                return fail(s, "NUL in a string");
            put_utf8(o, &w, cp);
            break;
        }
        default: return fail(s, "bad escape");
        }
    }
    n = &s->d->n[node];
    n->str = o;
    n->len = w;
    return 1;
}

static int number(pstate *s, uint32_t node)
{
    const char *a = s->p;
    int neg = 0, isint = 1;
    if (s->p < s->end && *s->p == '-')
        neg = 1, s->p++;
    if (s->p >= s->end || *s->p < '0' || *s->p > '9')
        return fail(s, "bad number");
    if (*s->p == '0' && s->p + 1 < s->end && s->p[1] >= '0' && s->p[1] <= '9')
        return fail(s, "leading zero in a number");
    uint64_t v = 0;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
        unsigned dgt = (unsigned)(*s->p - '0');
        if (v > (UINT64_MAX - dgt) / 10)
            isint = 0;
        else
            v = v * 10 + dgt;
        s->p++;
    }
    if (s->p < s->end && *s->p == '.') {
        isint = 0;
        s->p++;
        if (s->p >= s->end || *s->p < '0' || *s->p > '9')
            return fail(s, "bad number");
        while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
            s->p++;
    }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        isint = 0;
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
            s->p++;
        if (s->p >= s->end || *s->p < '0' || *s->p > '9')
            return fail(s, "bad number");
        while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
            s->p++;
    }
    nxj_node *n = &s->d->n[node];
    if (isint && (neg ? v <= (uint64_t)INT64_MAX + 1 : v <= (uint64_t)INT64_MAX)) {
        n->is_int = 1;
        n->ival = neg ? (int64_t)(0 - v) : (int64_t)v;
    }
    (void)a;
    return 1;
}

static int value(pstate *s, uint32_t *out, int depth);

static int container(pstate *s, uint32_t node, int obj, int depth)
{
    s->p++;
    ws(s);
    uint32_t last = 0, count = 0;
    char close = obj ? '}' : ']';
    if (s->p < s->end && *s->p == close) {
        s->p++;
        return 1;
    }
    for (;;) {
        uint32_t k = 0, v = 0;
        if (obj) {
            ws(s);
            if (s->p >= s->end || *s->p != '"')
                return fail(s, "expected a member name");
            if (!(k = new_node(s, NXJ_STRING)) || !string(s, k))
                return 0;
            ws(s);
            if (s->p >= s->end || *s->p != ':')
                return fail(s, "expected ':'");
            s->p++;
        }
        if (!value(s, &v, depth + 1))
            return 0;
        nxj_node *n = s->d->n;
        if (obj)
            n[k].next = v;
        uint32_t head = obj ? k : v;
        if (last)
            n[last].next = head;
        else
            n[node].first = head;
        last = v;
        count++;
        ws(s);
        if (s->p < s->end && *s->p == ',') {
            s->p++;
            continue;
        }
        if (s->p < s->end && *s->p == close) {
            s->p++;
            break;
        }
        return fail(s, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    s->d->n[node].count = count;
    return 1;
}

static int literal(pstate *s, const char *w, size_t n)
{
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n))
        return fail(s, "invalid literal");
    s->p += n;
    return 1;
}

static int value(pstate *s, uint32_t *out, int depth)
{
    if (depth > MAX_DEPTH) {
        s->rc = -3;
        s->msg = "nested too deeply";
        return 0;
    }
    ws(s);
    if (s->p >= s->end)
        return fail(s, "unexpected end of text");
    char c = *s->p;
    uint8_t t = c == '{' ? NXJ_OBJECT : c == '[' ? NXJ_ARRAY : c == '"' ? NXJ_STRING
              : c == 't' ? NXJ_TRUE : c == 'f' ? NXJ_FALSE : c == 'n' ? NXJ_NULL : NXJ_NUMBER;
    uint32_t node = new_node(s, t);
    if (!node)
        return 0;
    *out = node;
    switch (t) {
    case NXJ_OBJECT: return container(s, node, 1, depth);
    case NXJ_ARRAY: return container(s, node, 0, depth);
    case NXJ_STRING: return string(s, node);
    case NXJ_TRUE: return literal(s, "true", 4);
    case NXJ_FALSE: return literal(s, "false", 5);
    case NXJ_NULL: return literal(s, "null", 4);
    default: return number(s, node);
    }
}

int nxj_parse(const char *text, size_t len, nxj_doc *d, size_t *pos, const char **msg)
{
    memset(d, 0, sizeof *d);
    pstate s = {text, text + len, text, d, NULL, 0};
    uint32_t root = 0;
    new_node(&s, NXJ_NULL); /* node 0 stands for "none" */
    if (s.rc) {
        *pos = 0;
        *msg = s.msg;
        return s.rc;
    }
    if (value(&s, &root, 0)) {
        ws(&s);
        if (s.p != s.end)
            fail(&s, "text after the JSON value");
    }
    if (s.rc) {
        *pos = (size_t)(s.p - text);
        *msg = s.msg ? s.msg : "invalid JSON";
        return s.rc;
    }
    return 0;
}

void nxj_free(nxj_doc *d)
{
    for (uint32_t i = 0; i < d->nowned; i++)
        free(d->owned[i]);
    free(d->owned);
    free(d->n);
    memset(d, 0, sizeof *d);
}

uint32_t nxj_get(const nxj_doc *d, uint32_t obj, const char *key, int *dups)
{
    size_t kl = strlen(key);
    uint32_t found = 0;
    int n = 0;
    if (!obj || d->n[obj].type != NXJ_OBJECT) {
        if (dups)
            *dups = 0;
        return 0;
    }
    for (uint32_t k = d->n[obj].first; k; k = d->n[d->n[k].next].next) {
        const nxj_node *kn = &d->n[k];
        if (kn->len == kl && !memcmp(kn->str, key, kl)) {
            if (!found)
                found = kn->next;
            n++;
        }
    }
    if (dups)
        *dups = n;
    return found;
}

uint32_t nxj_item_next(const nxj_doc *d, uint32_t item)
{
    return item ? d->n[item].next : 0;
}
