/* etrecord_fastgraph.c - an exported program's nodes straight from its JSON
 * text, without building a jansson DOM.
 *
 * jansson allocates a value per token and hashes every key; on a large edge
 * program (tens of MB, >10k nodes) that is most of the time spent opening an
 * ETRecord, to end up keeping a few strings per node. This file scans the
 * squeezed, pruned text once with a recursive-descent reader (depth capped,
 * no DOM), validates the syntax of everything it passes over, and copies
 * only the strings etr_program_decode would keep into the record's arena.
 *
 * The contract: when this returns ETR_FAST_OK, json_loadb(JSON_DECODE_ANY)
 * would have accepted the text and etr_program_decode would have produced
 * the same program, field for field. To keep that easy to trust, the reader
 * never emulates jansson's corner cases; it declines (the caller then runs
 * the jansson path, which also writes the right error message) on anything
 * unusual: syntax errors, a repeated key in an object whose keys matter
 * (jansson keeps the last value), escaped keys there, \u escapes, numbers
 * jansson might reject or that sit near a limit, values of an unexpected
 * type, nesting deeper than FG_MAX_DEPTH, anything decode would report.
 *
 * What decode reads, and how (etrecord_program.c is the reference):
 *   root.schema_version                     int, "major"/"minor" object or string
 *   root.graph_module.graph.inputs/outputs  Argument lists -> tensor names
 *   root.graph_module.graph.nodes[]         name, target, inputs[].arg,
 *                                           outputs[], metadata.{debug_handle,
 *                                           stack_trace, nn_module_stack,
 *                                           source_fn_stack}
 * An Argument's tensor names come out in a fixed member order (see
 * ARG_KEYS), whatever the order of the members in the text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/etrecord/etrecord_internal.h"

/* jansson allows 2048; deeper than this is not an exported program. */
#define FG_MAX_DEPTH 512
/* Members of one as_string_to_argument object checked for repeats. */
#define FG_MAX_DICT_KEYS 64
/* A debug_handle string longer than this is declined (a valid one is at
 * most 20 characters unless padded with zeros). */
#define FG_MAX_HANDLE_TEXT 64

/* A string token: the raw bytes between the quotes, still escaped. */
typedef struct fg_str {
    const char *p;
    size_t len;
    int esc; /* contains a backslash escape */
} fg_str;

typedef struct fg_name {
    const char *s;
    size_t n;
} fg_name;

#define FG_NAME(lit) {lit, sizeof lit - 1}

typedef struct fg {
    const unsigned char *s;
    size_t n, i;              /* text, length, cursor */
    int depth;
    etr_fast_status st;       /* why the scan stopped */
    etr_arena *a;
    etr_ptrvec names;         /* tensor names of the list being read */
    const void **tmp;         /* scratch for reordering an Argument's names */
    size_t tmp_cap;
    etr_fast_raw *raw;        /* unsqueezed text: the huge-string rule */
    int in_skip;              /* scanning a string value that skip_value drops */
    etp_graph_node *nodes;    /* malloc'd while growing, copied to the arena */
    size_t node_n, node_cap;
    /* results, given to the program only on success */
    const char *schema_version;
    const char **inputs, **outputs;
    uint32_t input_count, output_count;
} fg;

static int decline(fg *f)
{
    f->st = ETR_FAST_DECLINE;
    return -1;
}

static int nomem(fg *f)
{
    f->st = ETR_FAST_NOMEM;
    return -1;
}

/* ---- tokens ------------------------------------------------------------- */

/* 1 for a byte that stands for itself inside a string: printable ASCII but
 * the quote and the backslash. Control bytes (NUL included, which is also
 * the end-of-text sentinel) and bytes >= 0x80 need a closer look. */
static const unsigned char plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10 */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20: '"' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x30 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x50: '\\' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x70 */
};

static void skip_ws(fg *f)
{
    /* jansson's whitespace: exactly these four */
    while (f->s[f->i] == ' ' || f->s[f->i] == '\n' || f->s[f->i] == '\t' || f->s[f->i] == '\r')
        f->i++;
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Length of the UTF-8 sequence at @p s if it is one jansson accepts (no
 * overlongs, no surrogates, at most U+10FFFF), else 0. */
static size_t utf8_seq(const unsigned char *s, size_t left)
{
    unsigned c = s[0];
    size_t n;
    uint32_t v;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        v = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        v = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        v = c & 0x07u;
    } else {
        return 0; /* continuation byte, C0/C1 overlong lead, F5..FF */
    }
    if (n > left)
        return 0;
    for (size_t k = 1; k < n; k++) {
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
        v = (v << 6) | (s[k] & 0x3Fu);
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000))
        return 0;
    return n;
}

/* Does any of the 8 bytes of @p w need a closer look (quote, backslash,
 * control byte, >= 0x80)? Exact "has byte" tests, so plain runs of a
 * string (stack traces are long) go 8 bytes per step. */
static int special8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    uint64_t any = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w) | w;
    return (any & highs) != 0;
}

#if defined(__SSE2__)
/* The same test on 16 bytes with SSE2 (part of every x86-64 CPU): the
 * offset of the first byte that needs a closer look, or 16. A signed
 * "less than 0x20" also catches every byte >= 0x80. */
static inline unsigned special16(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                          _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                             _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    unsigned mask = (unsigned)_mm_movemask_epi8(m);
    return mask ? (unsigned)__builtin_ctz(mask) : 16u;
}
#endif

/* Cursor on '"': check the string token, leave the cursor after it. */
static int scan_string(fg *f, fg_str *out)
{
    const unsigned char *s = f->s;
    size_t i = f->i + 1;
    int esc = 0;
    for (;;) {
#if defined(__SSE2__)
        while (i + 16 <= f->n) {
            unsigned k = special16(s + i);
            i += k;
            if (k < 16)
                break;
        }
#endif
        uint64_t w;
        while (i + 8 <= f->n) {
            memcpy(&w, s + i, 8);
            if (special8(w))
                break;
            i += 8;
        }
        while (plain[s[i]])
            i++;
        unsigned char c = s[i];
        if (c == '"')
            break;
        if (c == '\\') {
            /* \u is declined rather than decoded: surrogate pairs and \u0000
             * are where decoders differ, and exported programs are ASCII */
            if (!strchr("\"\\/bfnrt", s[i + 1]) || s[i + 1] == '\0')
                return decline(f);
            esc = 1;
            i += 2;
            continue;
        }
        size_t k = c >= 0x80 ? utf8_seq(s + i, f->n - i) : 0;
        if (!k) /* control byte, NUL, end of text, bad UTF-8 */
            return decline(f);
        i += k;
    }
    out->p = (const char *)s + f->i + 1;
    out->len = i - f->i - 1;
    out->esc = esc;
    f->i = i + 1;
    if (f->raw && out->len > f->raw->max_string) {
        /* Squeezing would have put a placeholder here: equivalent only
         * where the value is not read. */
        if (!f->in_skip)
            return decline(f);
        f->raw->skipped_strings++;
        f->raw->skipped_bytes += out->len;
    }
    return 0;
}

/* The decoded string (only the simple escapes occur: scan_string checked). */
static char *str_copy(fg *f, const fg_str *v)
{
    if (!v->esc) {
        char *d = etr_strndup(f->a, v->p, v->len);
        if (!d)
            nomem(f);
        return d;
    }
    char *d = etr_alloc(f->a, v->len + 1); /* decoding only shortens */
    if (!d) {
        nomem(f);
        return NULL;
    }
    size_t w = 0;
    for (size_t r = 0; r < v->len; r++) {
        char c = v->p[r];
        if (c == '\\') {
            switch (v->p[++r]) {
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            default: c = v->p[r]; break; /* '"', '\\', '/' */
            }
        }
        d[w++] = c;
    }
    d[w] = '\0';
    return d;
}

typedef struct fg_num {
    int is_int;
    int64_t v; /* when is_int */
} fg_num;

/* Cursor on '-' or a digit: a number in strict JSON grammar that jansson
 * certainly accepts: integers of at most 18 digits (jansson fails on
 * int64 overflow), reals that cannot overflow a double (jansson fails on
 * that too; underflow is fine). */
static int scan_number(fg *f, fg_num *out)
{
    const unsigned char *s = f->s;
    size_t i = f->i;
    int neg = s[i] == '-';
    i += (size_t)neg;
    size_t int_from = i;
    if (s[i] == '0')
        i++;
    else if (is_digit(s[i]))
        while (is_digit(s[i]))
            i++;
    else
        return decline(f);
    size_t int_digits = i - int_from;
    if (is_digit(s[i])) /* a leading zero */
        return decline(f);
    int is_int = 1;
    if (s[i] == '.') {
        i++;
        if (!is_digit(s[i]))
            return decline(f);
        while (is_digit(s[i]))
            i++;
        is_int = 0;
    }
    long exp10 = 0;
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        int exp_neg = s[i] == '-';
        if (s[i] == '+' || s[i] == '-')
            i++;
        size_t exp_from = i;
        while (is_digit(s[i]) && i - exp_from < 3)
            exp10 = exp10 * 10 + (s[i++] - '0');
        if (i == exp_from || i - exp_from > 2) /* 1e100 may already overflow */
            return decline(f);
        exp10 = exp_neg ? 0 : exp10; /* only a positive exponent can overflow */
        is_int = 0;
    }
    if (is_int ? int_digits > 18 : int_digits + (size_t)exp10 > 300)
        return decline(f);
    out->is_int = is_int;
    out->v = 0;
    if (is_int) {
        for (size_t k = int_from; k < i; k++)
            out->v = out->v * 10 + (s[k] - '0');
        if (neg)
            out->v = -out->v;
    }
    f->i = i;
    return 0;
}

static int scan_literal(fg *f)
{
    static const char *const lits[] = {"true", "false", "null"};
    for (size_t k = 0; k < 3; k++) {
        size_t n = strlen(lits[k]);
        if (f->n - f->i >= n && memcmp(f->s + f->i, lits[k], n) == 0) {
            f->i += n;
            return 0;
        }
    }
    return decline(f);
}

/* ---- containers --------------------------------------------------------- */

/* Cursor on '{' or '['. */
static int open_container(fg *f)
{
    if (++f->depth > FG_MAX_DEPTH)
        return decline(f);
    f->i++;
    return 0;
}

/* Step to the next slot of the container being read (*count slots so
 * far), which @p close ends: 1 on it, 0 after the closing bracket, -1 to
 * stop. */
static int next_slot(fg *f, size_t *count, unsigned char close)
{
    skip_ws(f);
    if (f->s[f->i] == close) {
        f->i++;
        f->depth--;
        return 0;
    }
    if (*count) {
        if (f->s[f->i] != ',')
            return decline(f);
        f->i++;
        skip_ws(f);
    }
    (*count)++;
    return 1;
}

/* The next member of an object: 1 with its key and the cursor on its
 * value, 0 after the closing brace, -1 to stop. */
static int next_member(fg *f, size_t *count, fg_str *key)
{
    int r = next_slot(f, count, '}');
    if (r != 1)
        return r;
    if (f->s[f->i] != '"' || scan_string(f, key))
        return decline(f);
    skip_ws(f);
    if (f->s[f->i] != ':')
        return decline(f);
    f->i++;
    skip_ws(f);
    return 1;
}

/* The next item of an array: 1 with the cursor on it. */
static int next_item(fg *f, size_t *count)
{
    return next_slot(f, count, ']');
}

static int skip_value(fg *f)
{
    size_t count = 0;
    int r;
    fg_str str;
    fg_num num;
    switch (f->s[f->i]) {
    case '{':
        if (open_container(f))
            return -1;
        while ((r = next_member(f, &count, &str)) == 1)
            if (skip_value(f))
                return -1;
        return r;
    case '[':
        if (open_container(f))
            return -1;
        while ((r = next_item(f, &count)) == 1)
            if (skip_value(f))
                return -1;
        return r;
    case '"':
        f->in_skip = 1;
        r = scan_string(f, &str);
        f->in_skip = 0;
        return r;
    case 't':
    case 'f':
    case 'n':
        return scan_literal(f);
    default:
        return scan_number(f, &num);
    }
}

/* Which of @p names key @p k is, or -1 for none. A key seen twice, or an
 * escaped key (it could spell a known name), declines: -2. */
static int key_index(fg *f, const fg_str *k, const fg_name *names, int count, unsigned *seen)
{
    if (k->esc)
        return decline(f), -2;
    for (int j = 0; j < count; j++)
        if (names[j].n == k->len && memcmp(names[j].s, k->p, k->len) == 0) {
            if (*seen & (1u << j))
                return decline(f), -2;
            *seen |= 1u << j;
            return j;
        }
    return -1;
}

#define KEY_COUNT(arr) ((int)(sizeof arr / sizeof arr[0]))

/* Reads the value of member @p k (an index into the caller's key list). */
typedef int (*fg_member)(fg *f, int k, void *ctx);

/* Cursor on '{': every member whose key is one of @p keys goes to
 * @p member, the others are skipped; *seen gets the bit of each known key
 * met (a key twice, or escaped, declines). 0 after the closing brace. */
static int read_members(fg *f, const fg_name *keys, int nkeys, fg_member member, void *ctx,
                        unsigned *seen)
{
    size_t count = 0;
    fg_str key;
    int r;
    *seen = 0;
    if (open_container(f))
        return -1;
    while ((r = next_member(f, &count, &key)) == 1) {
        int k = key_index(f, &key, keys, nkeys, seen);
        if (k == -2 || (k >= 0 ? member(f, k, ctx) : skip_value(f)))
            return -1;
    }
    return r;
}

/* ---- Arguments: tensor names -------------------------------------------- */

static int push_name(fg *f, const fg_str *v)
{
    if (f->names.n >= ETR_MAX_NAMES_PER_NODE) /* decode reports the limit */
        return decline(f);
    char *s = str_copy(f, v);
    if (!s)
        return -1;
    return etr_ptrvec_push(&f->names, s, ETR_MAX_NAMES_PER_NODE) ? nomem(f) : 0;
}

static int tensor_ref_member(fg *f, int k, void *ctx)
{
    (void)k;
    (void)ctx;
    fg_str v;
    if (f->s[f->i] != '"')
        return skip_value(f);
    return scan_string(f, &v) || push_name(f, &v) ? -1 : 0;
}

/* A TensorArgument {"name": "..."}, or (old writers) the bare name. */
static int read_tensor_ref(fg *f)
{
    fg_str v;
    if (f->s[f->i] == '"')
        return scan_string(f, &v) || push_name(f, &v) ? -1 : 0;
    if (f->s[f->i] != '{')
        return skip_value(f);
    static const fg_name keys[] = {FG_NAME("name")};
    unsigned seen;
    return read_members(f, keys, KEY_COUNT(keys), tensor_ref_member, NULL, &seen);
}

static int optional_member(fg *f, int k, void *ctx)
{
    (void)k;
    (void)ctx;
    return read_tensor_ref(f);
}

/* An OptionalTensorArgument: {"as_tensor": ref} names a tensor, anything
 * else ({"as_none": ...}, null) does not. */
static int read_optional(fg *f)
{
    if (f->s[f->i] != '{')
        return skip_value(f);
    static const fg_name keys[] = {FG_NAME("as_tensor")};
    unsigned seen;
    return read_members(f, keys, KEY_COUNT(keys), optional_member, NULL, &seen);
}

/* An array whose items @p item reads; anything else names nothing. */
static int read_list(fg *f, int (*item)(fg *))
{
    if (f->s[f->i] != '[')
        return skip_value(f);
    size_t count = 0;
    int r;
    if (open_container(f))
        return -1;
    while ((r = next_item(f, &count)) == 1)
        if (item(f))
            return -1;
    return r;
}

static int read_ref_list(fg *f)
{
    return read_list(f, read_tensor_ref);
}

static int read_arg(fg *f, int depth);

/* as_string_to_argument: every value is an Argument, in member order. */
static int read_arg_dict(fg *f, int depth)
{
    if (f->s[f->i] != '{')
        return skip_value(f);
    fg_str keys[FG_MAX_DICT_KEYS], key;
    size_t count = 0;
    int r;
    if (open_container(f))
        return -1;
    while ((r = next_member(f, &count, &key)) == 1) {
        if (key.esc || count > FG_MAX_DICT_KEYS)
            return decline(f);
        for (size_t j = 0; j + 1 < count; j++)
            if (keys[j].len == key.len && memcmp(keys[j].p, key.p, key.len) == 0)
                return decline(f); /* jansson would keep one of the two */
        keys[count - 1] = key;
        if (read_arg(f, depth + 1))
            return -1;
    }
    return r;
}

/* The Argument members that name tensors, in the order decode's walk_arg
 * visits them. */
static const fg_name ARG_KEYS[] = {
    FG_NAME("as_tensor"),           FG_NAME("as_tensors"),
    FG_NAME("as_optional_tensor"),  FG_NAME("as_optional_tensors"),
    FG_NAME("as_nested_tensors"),   FG_NAME("as_string_to_argument"),
};
#define N_ARG_KEYS KEY_COUNT(ARG_KEYS)

static int read_arg_member(fg *f, int k, int depth)
{
    switch (k) {
    case 0: return read_tensor_ref(f);
    case 1: return read_list(f, read_tensor_ref);
    case 2: return read_optional(f);
    case 3: return read_list(f, read_optional);
    case 4: return read_list(f, read_ref_list);
    default: return read_arg_dict(f, depth);
    }
}

/* Names pushed since @p base came in text order, one run per member; put
 * the runs in ARG_KEYS order. */
static int reorder_runs(fg *f, uint32_t base, const uint32_t *from, const uint32_t *to,
                        unsigned seen)
{
    size_t n = f->names.n - base;
    if (n > f->tmp_cap) {
        const void **t = realloc(f->tmp, n * sizeof *t);
        if (!t)
            return nomem(f);
        f->tmp = t;
        f->tmp_cap = n;
    }
    memcpy(f->tmp, f->names.v + base, n * sizeof *f->tmp);
    uint32_t w = base;
    for (int k = 0; k < N_ARG_KEYS; k++)
        if (seen & (1u << k)) {
            memcpy(f->names.v + w, f->tmp + (from[k] - base), (to[k] - from[k]) * sizeof *f->tmp);
            w += to[k] - from[k];
        }
    return 0;
}

/* Where each ARG_KEYS member's names went, and whether they came in
 * ARG_KEYS order. */
typedef struct arg_runs {
    int depth;
    uint32_t from[N_ARG_KEYS], to[N_ARG_KEYS];
    int last, sorted;
} arg_runs;

static int arg_member(fg *f, int k, void *ctx)
{
    arg_runs *a = ctx;
    a->from[k] = f->names.n;
    if (read_arg_member(f, k, a->depth))
        return -1;
    a->to[k] = f->names.n;
    a->sorted &= k > a->last;
    a->last = k;
    return 0;
}

/* An Argument: append the tensor names it mentions, as walk_arg does
 * (which ignores non-objects and anything nested deeper than its cap). */
static int read_arg(fg *f, int depth)
{
    if (f->s[f->i] != '{' || depth > ETR_MAX_ARG_DEPTH)
        return skip_value(f);
    uint32_t base = f->names.n;
    arg_runs a = {depth, {0}, {0}, -1, 1};
    unsigned seen;
    int r = read_members(f, ARG_KEYS, N_ARG_KEYS, arg_member, &a, &seen);
    if (r == 0 && !a.sorted)
        return reorder_runs(f, base, a.from, a.to, seen);
    return r;
}

/* Commit the names collected so far into the arena. */
static int take_names(fg *f, const char ***out, uint32_t *count)
{
    int failed = 0;
    *out = (const char **)etr_ptrvec_commit(&f->names, f->a, count, &failed);
    return failed ? nomem(f) : 0;
}

/* A list of Arguments (graph inputs/outputs, node outputs). */
static int read_arg_list_item(fg *f)
{
    return read_arg(f, 0);
}

static int node_input_member(fg *f, int k, void *ctx)
{
    (void)k;
    (void)ctx;
    return read_arg(f, 0);
}

/* A node input: {"name": ..., "arg": Argument}. */
static int read_node_input(fg *f)
{
    if (f->s[f->i] != '{')
        return skip_value(f);
    static const fg_name keys[] = {FG_NAME("arg")};
    unsigned seen;
    return read_members(f, keys, KEY_COUNT(keys), node_input_member, NULL, &seen);
}

/* ---- nodes -------------------------------------------------------------- */

/* metadata.debug_handle: null, an integer, or a decimal string. */
static int read_debug_handle(fg *f, etp_graph_node *nd)
{
    unsigned char c = f->s[f->i];
    if (c == 'n')
        return scan_literal(f); /* "null" or a decline */
    if (c == '-' || is_digit(c)) {
        fg_num num;
        if (scan_number(f, &num))
            return -1;
        if (!num.is_int)
            return decline(f);
        nd->has_debug_handle = 1;
        nd->debug_handle = num.v;
        return 0;
    }
    fg_str v;
    if (c != '"' || scan_string(f, &v) || v.len >= FG_MAX_HANDLE_TEXT)
        return decline(f);
    char buf[FG_MAX_HANDLE_TEXT];
    size_t w = 0;
    for (size_t r = 0; r < v.len; r++) {
        if (v.p[r] == '\\') /* no escaped digit exists: decode would fail */
            return decline(f);
        buf[w++] = v.p[r];
    }
    buf[w] = '\0';
    if (etr_parse_int64(buf, &nd->debug_handle))
        return decline(f);
    nd->has_debug_handle = 1;
    return 0;
}

/* A metadata string member: copied when it is a string, else ignored. */
static int read_meta_string(fg *f, const char **out)
{
    fg_str v;
    if (f->s[f->i] != '"')
        return skip_value(f);
    if (scan_string(f, &v) || !(*out = str_copy(f, &v)))
        return -1;
    return 0;
}

static int metadata_member(fg *f, int k, void *ctx)
{
    etp_graph_node *nd = ctx;
    switch (k) {
    case 0: return read_debug_handle(f, nd);
    case 1: return read_meta_string(f, &nd->stack_trace);
    case 2: return read_meta_string(f, &nd->source_fn_stack);
    default: return read_meta_string(f, &nd->nn_module_stack);
    }
}

static int read_metadata(fg *f, etp_graph_node *nd)
{
    if (f->s[f->i] != '{')
        return skip_value(f);
    static const fg_name keys[] = {FG_NAME("debug_handle"), FG_NAME("stack_trace"),
                                   FG_NAME("source_fn_stack"), FG_NAME("nn_module_stack")};
    unsigned seen;
    int r = read_members(f, keys, KEY_COUNT(keys), metadata_member, nd, &seen);
    if (r == 0 && nd->nn_module_stack &&
        etr_parse_module_stack(f->a, nd->nn_module_stack, &nd->modules, &nd->module_depth))
        return nomem(f);
    return r;
}

/* The node's name as decode_node picks it (see etr_name_unnamed_node). */
static int name_node(fg *f, etp_graph_node *nd, const fg_str *name, uint32_t j)
{
    if (name) {
        nd->name = str_copy(f, name);
        nd->name_source = ETP_NAME_FROM_NODE;
    } else {
        etr_name_unnamed_node(f->a, nd, j);
    }
    return nd->name ? 0 : nomem(f);
}

/* What read_node keeps of a node's members until the node is complete. */
typedef struct node_read {
    etp_graph_node *nd;
    fg_str target, name;
    int has_name;
} node_read;

static int node_member(fg *f, int k, void *ctx)
{
    node_read *n = ctx;
    switch (k) {
    case 0: /* decode: "has no target string" */
        return f->s[f->i] == '"' ? scan_string(f, &n->target) : decline(f);
    case 1:
        n->has_name = f->s[f->i] == '"';
        return n->has_name ? scan_string(f, &n->name) : skip_value(f);
    case 2:
        return read_list(f, read_node_input) || take_names(f, &n->nd->inputs, &n->nd->input_count)
                   ? -1
                   : 0;
    case 3:
        return read_list(f, read_arg_list_item) ||
                       take_names(f, &n->nd->outputs, &n->nd->output_count)
                   ? -1
                   : 0;
    default:
        return read_metadata(f, n->nd);
    }
}

static int read_node(fg *f, etp_graph_node *nd, uint32_t j)
{
    if (f->s[f->i] != '{') /* decode: "is not an object" */
        return decline(f);
    static const fg_name keys[] = {FG_NAME("target"), FG_NAME("name"), FG_NAME("inputs"),
                                   FG_NAME("outputs"), FG_NAME("metadata")};
    node_read n = {nd, {NULL, 0, 0}, {NULL, 0, 0}, 0};
    unsigned seen;
    if (read_members(f, keys, KEY_COUNT(keys), node_member, &n, &seen))
        return -1;
    if (!(seen & 1u))
        return decline(f);
    if (!(nd->target = str_copy(f, &n.target)))
        return -1;
    if (!(nd->op_type = etr_op_type(f->a, nd->target, &nd->is_delegate_call)))
        return nomem(f);
    return name_node(f, nd, n.has_name ? &n.name : NULL, j);
}

static int read_nodes(fg *f)
{
    if (f->s[f->i] != '[') /* decode: "nodes is not an array" */
        return decline(f);
    size_t count = 0;
    int r;
    if (open_container(f))
        return -1;
    while ((r = next_item(f, &count)) == 1) {
        if (f->node_n >= ETR_MAX_NODES) /* decode reports the limit */
            return decline(f);
        if (f->node_n == f->node_cap) {
            size_t cap = f->node_cap ? f->node_cap * 2 : 256;
            etp_graph_node *nn = realloc(f->nodes, cap * sizeof *nn);
            if (!nn)
                return nomem(f);
            f->nodes = nn;
            f->node_cap = cap;
        }
        etp_graph_node *nd = &f->nodes[f->node_n];
        memset(nd, 0, sizeof *nd);
        if (read_node(f, nd, (uint32_t)f->node_n))
            return -1;
        f->node_n++;
    }
    return r;
}

/* ---- the document ------------------------------------------------------- */

static int graph_member(fg *f, int k, void *ctx)
{
    (void)ctx;
    switch (k) {
    case 0: return read_nodes(f);
    case 1: return read_list(f, read_arg_list_item) || take_names(f, &f->inputs, &f->input_count) ? -1 : 0;
    default: return read_list(f, read_arg_list_item) || take_names(f, &f->outputs, &f->output_count) ? -1 : 0;
    }
}

static int read_graph(fg *f)
{
    if (f->s[f->i] != '{') /* decode: "no graph_module.graph object" */
        return decline(f);
    static const fg_name keys[] = {FG_NAME("nodes"), FG_NAME("inputs"), FG_NAME("outputs")};
    unsigned seen;
    int r = read_members(f, keys, KEY_COUNT(keys), graph_member, NULL, &seen);
    return r == 0 && !(seen & 1u) ? decline(f) : r;
}

static int graph_module_member(fg *f, int k, void *ctx)
{
    (void)k;
    (void)ctx;
    return read_graph(f);
}

static int read_graph_module(fg *f)
{
    if (f->s[f->i] != '{')
        return decline(f);
    static const fg_name keys[] = {FG_NAME("graph")};
    unsigned seen;
    int r = read_members(f, keys, KEY_COUNT(keys), graph_module_member, NULL, &seen);
    return r == 0 && !(seen & 1u) ? decline(f) : r;
}

/* "major" or "minor": an integer, else nothing. */
static int version_member(fg *f, int k, void *ctx)
{
    fg_num *parts = ctx;
    unsigned char c = f->s[f->i];
    return c == '-' || is_digit(c) ? scan_number(f, &parts[k]) : skip_value(f);
}

/* schema_version as decode's schema_version() renders it: an integer, a
 * {"major", "minor"} object ("5.4", or "5" without an integer minor; NULL
 * without an integer major), a string, else NULL. */
static int read_schema_version(fg *f)
{
    char buf[64];
    fg_num num;
    fg_str v;
    unsigned char c = f->s[f->i];
    if (c == '"') {
        if (scan_string(f, &v) || !(f->schema_version = str_copy(f, &v)))
            return -1;
        return 0;
    }
    if (c == '-' || is_digit(c)) {
        if (scan_number(f, &num))
            return -1;
        if (!num.is_int)
            return 0;
        snprintf(buf, sizeof buf, "%lld", (long long)num.v);
    } else if (c == '{') {
        static const fg_name keys[] = {FG_NAME("major"), FG_NAME("minor")};
        fg_num parts[2] = {{0, 0}, {0, 0}};
        unsigned seen;
        if (read_members(f, keys, KEY_COUNT(keys), version_member, parts, &seen))
            return -1;
        if (!parts[0].is_int)
            return 0;
        if (parts[1].is_int)
            snprintf(buf, sizeof buf, "%lld.%lld", (long long)parts[0].v, (long long)parts[1].v);
        else
            snprintf(buf, sizeof buf, "%lld", (long long)parts[0].v);
    } else {
        return skip_value(f);
    }
    return (f->schema_version = etr_strdup(f->a, buf)) ? 0 : nomem(f);
}

static int root_member(fg *f, int k, void *ctx)
{
    (void)ctx;
    return k == 0 ? read_graph_module(f) : read_schema_version(f);
}

static int read_root(fg *f)
{
    if (f->s[f->i] != '{') /* decode: "top level is not an object" */
        return decline(f);
    static const fg_name keys[] = {FG_NAME("graph_module"), FG_NAME("schema_version")};
    unsigned seen;
    int r = read_members(f, keys, KEY_COUNT(keys), root_member, NULL, &seen);
    return r == 0 && !(seen & 1u) ? decline(f) : r;
}

/* The whole text: one object, then only whitespace. */
static int read_document(fg *f)
{
    skip_ws(f);
    if (read_root(f))
        return -1;
    skip_ws(f);
    return f->i == f->n ? 0 : decline(f);
}

/* Hand the results to @p p (untouched until now). */
static int publish(fg *f, etp_exported_program *p)
{
    etp_graph_node *nodes = NULL;
    if (f->node_n) {
        nodes = etr_alloc_array(f->a, f->node_n, sizeof *nodes);
        if (!nodes)
            return nomem(f);
        memcpy(nodes, f->nodes, f->node_n * sizeof *nodes);
    }
    etp_exported_program q = *p;
    q.schema_version = f->schema_version;
    q.nodes = nodes;
    q.node_count = (uint32_t)f->node_n;
    q.inputs = f->inputs;
    q.input_count = f->input_count;
    q.outputs = f->outputs;
    q.output_count = f->output_count;
    etp_error err;
    if (etr_program_index(&q, f->a, "", &err))
        return nomem(f);
    *p = q;
    return 0;
}

etr_fast_status etr_program_decode_fast(const char *text, size_t len, etp_exported_program *p,
                                        etr_arena *a, etr_fast_raw *raw)
{
    fg f;
    memset(&f, 0, sizeof f);
    f.s = (const unsigned char *)text;
    f.n = len;
    f.a = a;
    f.raw = raw;
    f.st = ETR_FAST_OK;
    if (!text || text[len] != '\0')
        f.st = ETR_FAST_DECLINE;
    else if (read_document(&f) == 0)
        publish(&f, p);
    etr_ptrvec_free(&f.names);
    free(f.tmp);
    free(f.nodes);
    return f.st;
}
