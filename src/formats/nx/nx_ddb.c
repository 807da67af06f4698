/* nx_ddb.c - the NX debug database: seven '----'-separated TAB
 * tables (TOSA ops, API labels, fused ops, chains, cascades, stripe ops,
 * stripe indexes) and the stripe -> chain / cascade -> fused -> TOSA maps. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "formats/nx/nx_internal.h"
#include "util/hashmap.h"
#include "util/str.h"

#define DDB_MAGIC 0x1122FFEEu
#define MAX_COLS 64u

typedef struct cell {
    char **v;
    uint32_t n;
} cell;

typedef struct row {
    char *id;
    cell *cells; /* one per column (column 0 is the id) */
} row;

typedef struct section {
    char **cols;
    uint32_t ncols;
    row *rows;
    uint32_t nrows, cap;
    etp_hm by_id;  /* id hash -> row (the last row of an id wins) */
} section;

/* Stripe index -> stripe op id. */
typedef struct stripe_map {
    uint32_t index;
    char *op;
} stripe_map;

struct etp_nx_ddb {
    section sec[7];
    stripe_map *stripes;
    uint32_t nstripes, cap;
    etp_hm by_stripe;
};

static const char *const section_name[7] = {"tosa_ops", "api_labels", "fused_ops", "cascade_ops",
                                            "cascade_groups", "stripe_ops", "stripe_indexes"};

static void cell_free(cell *c)
{
    for (uint32_t i = 0; i < c->n; i++)
        free(c->v[i]);
    free(c->v);
}

void etp_nx_ddb_free(etp_nx_ddb *d)
{
    if (!d)
        return;
    for (int k = 0; k < 7; k++) {
        section *s = &d->sec[k];
        for (uint32_t r = 0; r < s->nrows; r++) {
            free(s->rows[r].id);
            for (uint32_t c = 0; c < s->ncols; c++)
                cell_free(&s->rows[r].cells[c]);
            free(s->rows[r].cells);
        }
        for (uint32_t c = 0; c < s->ncols; c++)
            free(s->cols[c]);
        free(s->cols);
        free(s->rows);
        etp_hm_free(&s->by_id);
    }
    for (uint32_t i = 0; i < d->nstripes; i++)
        free(d->stripes[i].op);
    free(d->stripes);
    etp_hm_free(&d->by_stripe);
    free(d);
}

uint32_t etp_nx_ddb_rows(const etp_nx_ddb *d, int k)
{
    return d && k >= 0 && k < 7 ? d->sec[k].nrows : 0;
}

/* A line of the text: [start, start + len). */
typedef struct line {
    const char *p;
    size_t len;
} line;

static int utf8_valid(const uint8_t *s, size_t n, size_t *bad)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t k;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            k = 1;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            k = 2;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            k = 3;
            cp = c & 0x07;
        } else {
            *bad = i;
            return 0;
        }
        for (size_t j = 1; j <= k; j++) {
            if (i + j >= n || (s[i + j] & 0xC0) != 0x80) {
                *bad = i;
                return 0;
            }
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        /* Overlong forms, surrogates and values above U+10FFFF are not UTF-8. */
        if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF)) {
            *bad = i;
            return 0;
        }
        i += k + 1;
    }
    return 1;
}

static etp_status nomem(etp_error *err, const char *where)
{
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "%s: out of memory", where);
}

/* Split a cell on ';', trimming items and dropping empty ones. */
static int split_semicolons(const char *p, size_t len, cell *c)
{
    size_t i = 0;
    while (i <= len) {
        const char *semi = memchr(p + i, ';', len - i);
        size_t end = semi ? (size_t)(semi - p) : len, a = i, b = end;
        while (a < b && isspace((unsigned char)p[a]))
            a++;
        while (b > a && isspace((unsigned char)p[b - 1]))
            b--;
        if (b > a && etp_strs_push(&c->v, &c->n, p + a, b - a))
            return -1;
        i = end + 1;
    }
    return 0;
}

static int col_index(const section *s, const char *name)
{
    for (uint32_t c = 0; c < s->ncols; c++)
        if (!strcmp(s->cols[c], name))
            return (int)c;
    return -1;
}

static etp_status parse_section(etp_nx_ddb *d, int k, const line *lines, size_t nl, size_t first_line,
                                const char *const *known, size_t known_count, const char *where, etp_error *err)
{
    section *s = &d->sec[k];
    etp_hm_init(&s->by_id);
    const line *h = &lines[0];
    int tabbed = memchr(h->p, '\t', h->len) != NULL;
    size_t i = 0;
    while (i < h->len) {
        size_t a = i, b;
        if (tabbed) {
            const char *t = memchr(h->p + i, '\t', h->len - i);
            b = t ? (size_t)(t - h->p) : h->len;
            i = b + 1;
        } else {
            while (a < h->len && isspace((unsigned char)h->p[a]))
                a++;
            b = a;
            while (b < h->len && !isspace((unsigned char)h->p[b]))
                b++;
            i = b;
            if (a == b)
                break;
        }
        if (s->ncols == MAX_COLS)
            return etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET,
                                 "%s: debug_database line %zu: more than %u columns", where, first_line + 1,
                                 MAX_COLS);
        size_t x = a, y = b;
        while (x < y && isspace((unsigned char)h->p[x]))
            x++;
        while (y > x && isspace((unsigned char)h->p[y - 1]))
            y--;
        if (etp_strs_push(&s->cols, &s->ncols, h->p + x, y - x))
            return nomem(err, where);
        if (tabbed && b == h->len)
            break;
    }
    if (!s->ncols || strcmp(s->cols[0], "id"))
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: debug_database line %zu: section %d (%s) does not start with an \"id\" column",
                             where, first_line + 1, k + 1, section_name[k]);
    int labels_col = col_index(s, "api_labels"), label_col = col_index(s, "api_label");
    for (size_t r = 1; r < nl; r++) {
        const line *l = &lines[r];
        const char *tab = memchr(l->p, '\t', l->len);
        size_t idlen = tab ? (size_t)(tab - l->p) : l->len;
        size_t a = 0, b = idlen;
        while (a < b && isspace((unsigned char)l->p[a]))
            a++;
        while (b > a && isspace((unsigned char)l->p[b - 1]))
            b--;
        if (a == b)
            continue; /* rows without an id are ignored */
        if (s->nrows == s->cap) {
            uint32_t cap = s->cap ? s->cap * 2 : 16;
            row *rows = realloc(s->rows, cap * sizeof *rows);
            if (!rows)
                return nomem(err, where);
            s->rows = rows;
            s->cap = cap;
        }
        row *w = &s->rows[s->nrows];
        memset(w, 0, sizeof *w);
        if (!(w->cells = calloc(s->ncols, sizeof *w->cells)) || !(w->id = etp_strndup(l->p + a, b - a))) {
            free(w->cells);
            return nomem(err, where);
        }
        s->nrows++;
        size_t pos = 0;
        for (uint32_t c = 0; c < s->ncols && pos <= l->len; c++) {
            const char *t = memchr(l->p + pos, '\t', l->len - pos);
            size_t end = t ? (size_t)(t - l->p) : l->len;
            const char *cp = l->p + pos;
            size_t clen = end - pos;
            int rc = 0;
            if (c == 0) {
                rc = etp_strs_push(&w->cells[0].v, &w->cells[0].n, w->id, strlen(w->id));
            } else if ((int)c == labels_col) {
                if (etp_nx_split_labels(cp, clen, known, known_count, &w->cells[c].v, &w->cells[c].n))
                    rc = -1;
            } else if ((int)c == label_col) {
                size_t x = 0, y = clen;
                while (x < y && isspace((unsigned char)cp[x]))
                    x++;
                while (y > x && isspace((unsigned char)cp[y - 1]))
                    y--;
                if (y > x)
                    rc = etp_strs_push(&w->cells[c].v, &w->cells[c].n, cp + x, y - x);
            } else {
                rc = split_semicolons(cp, clen, &w->cells[c]);
            }
            if (rc)
                return nomem(err, where);
            if (!t)
                break;
            pos = end + 1;
        }
    }
    /* Last row of an id wins: index from the end, first insertion kept. */
    for (uint32_t r = s->nrows; r-- > 0;) {
        uint64_t hsh = etp_hash_bytes(s->rows[r].id, strlen(s->rows[r].id), 7);
        size_t cur = 0;
        uint32_t v;
        int dup = 0;
        while (etp_hm_next(&s->by_id, hsh, &cur, &v))
            if (!strcmp(s->rows[v].id, s->rows[r].id))
                dup = 1;
        if (!dup && etp_hm_put(&s->by_id, hsh, r))
            return nomem(err, where);
    }
    return ETP_OK;
}

static const row *find_row(const section *s, const char *id)
{
    if (!id)
        return NULL;
    uint64_t h = etp_hash_bytes(id, strlen(id), 7);
    size_t cur = 0;
    uint32_t v;
    while (etp_hm_next(&s->by_id, h, &cur, &v))
        if (!strcmp(s->rows[v].id, id))
            return &s->rows[v];
    return NULL;
}

static etp_nx_strlist cell_of(const section *s, const row *r, const char *col)
{
    etp_nx_strlist out = {NULL, 0};
    int c = r ? col_index(s, col) : -1;
    if (c >= 0) {
        out.v = (const char *const *)r->cells[c].v;
        out.n = r->cells[c].n;
    }
    return out;
}

static int parse_index(const char *s, uint32_t *out)
{
    if (!*s)
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > UINT32_MAX)
            return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static const char *stripe_op_of(const etp_nx_ddb *d, uint32_t stripe)
{
    size_t cur = 0;
    uint32_t v;
    while (etp_hm_next(&d->by_stripe, etp_hash_u64(3, stripe), &cur, &v))
        if (d->stripes[v].index == stripe)
            return d->stripes[v].op;
    return NULL;
}

static etp_status map_stripe(etp_nx_ddb *d, uint32_t index, const char *op, size_t oplen, const char *where,
                             etp_error *err)
{
    if (stripe_op_of(d, index))
        return ETP_OK;
    if (d->nstripes == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 16;
        stripe_map *m = realloc(d->stripes, cap * sizeof *m);
        if (!m)
            return nomem(err, where);
        d->stripes = m;
        d->cap = cap;
    }
    char *copy = etp_strndup(op, oplen);
    if (!copy || etp_hm_put(&d->by_stripe, etp_hash_u64(3, index), d->nstripes)) {
        free(copy);
        return nomem(err, where);
    }
    d->stripes[d->nstripes].index = index;
    d->stripes[d->nstripes++].op = copy;
    return ETP_OK;
}

/* Section 7: stripe index -> stripe op (stripe_op_id), then every index a
 * stripe_op_indexs list names maps to the stripe op of the same number. */
static etp_status build_stripe_map(etp_nx_ddb *d, const char *where, etp_error *err)
{
    const section *s = &d->sec[6];
    int c_op = col_index(s, "stripe_op_id"), c_list = col_index(s, "stripe_op_indexs");
    if (c_op < 0 && c_list < 0)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: debug_database section 7 (stripe_indexes) has neither a stripe_op_id nor a "
                             "stripe_op_indexs column",
                             where);
    etp_hm_init(&d->by_stripe);
    for (uint32_t r = 0; r < s->nrows; r++) {
        const row *w = find_row(s, s->rows[r].id);
        if (w != &s->rows[r] || c_op < 0 || !w->cells[c_op].n)
            continue;
        uint32_t idx;
        if (parse_index(w->id, &idx))
            return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                 "%s: debug_database section 7 (stripe_indexes): stripe index \"%.40s\" is not an "
                                 "unsigned integer",
                                 where, w->id);
        const char *op = w->cells[c_op].v[0];
        etp_status st = map_stripe(d, idx, op, strlen(op), where, err);
        if (st)
            return st;
    }
    for (uint32_t r = 0; c_list >= 0 && r < s->nrows; r++) {
        const cell *c = &s->rows[r].cells[c_list];
        for (uint32_t k = 0; k < c->n; k++) {
            uint32_t idx;
            if (parse_index(c->v[k], &idx))
                return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                     "%s: debug_database section 7 (stripe_indexes): stripe index \"%.40s\" is "
                                     "not an unsigned integer",
                                     where, c->v[k]);
            etp_status st = map_stripe(d, idx, c->v[k], strlen(c->v[k]), where, err);
            if (st)
                return st;
        }
    }
    return ETP_OK;
}

static etp_status need_column(const etp_nx_ddb *d, int k, const char *col, const char *where, etp_error *err)
{
    if (col_index(&d->sec[k], col) >= 0)
        return ETP_OK;
    return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                         "%s: debug_database section %d (%s) has no \"%s\" column", where, k + 1,
                         section_name[k], col);
}

etp_status etp_nx_ddb_parse(const uint8_t *data, size_t n, const char *const *known, size_t known_count,
                            const char *where, etp_nx_ddb **out, etp_error *err)
{
    *out = NULL;
    if (!where)
        where = "VGF_NEURAL_STATISTICS";
    const uint8_t *p;
    size_t len;
    etp_status st = etp_nx_unframe(data, n, DDB_MAGIC, "debug_database", where, &p, &len, err);
    if (st)
        return st;
    while (len && p[len - 1] == 0)
        len--;
    size_t badpos;
    if (!utf8_valid(p, len, &badpos))
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "%s: debug_database is not UTF-8 text (byte %zu of the payload)", where, badpos);
    /* Lines (\n, \r\n or \r), without trailing \r and NUL. */
    line *lines = NULL;
    size_t nl = 0, cap = 0;
    size_t *lineno = NULL;
    for (size_t i = 0, no = 0; i <= len; no++) {
        size_t e = i;
        while (e < len && p[e] != '\n' && p[e] != '\r')
            e++;
        size_t l = e - i;
        while (l && (p[i + l - 1] == '\r' || p[i + l - 1] == 0))
            l--;
        if (nl == cap) {
            cap = cap ? cap * 2 : 64;
            line *nlp = realloc(lines, cap * sizeof *nlp);
            size_t *nno = realloc(lineno, cap * sizeof *nno);
            if (nlp)
                lines = nlp;
            if (nno)
                lineno = nno;
            if (!nlp || !nno) {
                free(lines);
                free(lineno);
                return nomem(err, where);
            }
        }
        lines[nl].p = (const char *)p + i;
        lines[nl].len = l;
        lineno[nl++] = no;
        if (e >= len)
            break;
        i = e + (p[e] == '\r' && e + 1 < len && p[e + 1] == '\n' ? 2 : 1);
    }
    etp_nx_ddb *d = calloc(1, sizeof *d);
    if (!d) {
        free(lines);
        free(lineno);
        return nomem(err, where);
    }
    int has_sep = 0;
    for (size_t i = 0; i < nl; i++)
        if (lines[i].len == 4 && !memcmp(lines[i].p, "----", 4))
            has_sep = 1;
    /* Sections: runs of non-empty lines between '----' lines (without any
     * separator, each non-empty line is its own section); empty ones are
     * dropped, not counted. */
    int found = 0;
    line *buf = malloc((nl ? nl : 1) * sizeof *buf);
    if (!buf) {
        st = nomem(err, where);
        goto done;
    }
    size_t i = 0;
    while (i < nl && found < 7) {
        size_t nb = 0, first = lineno[i];
        while (i < nl) {
            const line *l = &lines[i];
            int sep = l->len == 4 && !memcmp(l->p, "----", 4);
            if (sep) {
                i++;
                break;
            }
            int blank = 1;
            for (size_t k = 0; k < l->len && blank; k++)
                blank = isspace((unsigned char)l->p[k]) != 0;
            if (!blank) {
                if (!nb)
                    first = lineno[i];
                buf[nb++] = *l;
            }
            i++;
            if (!has_sep && nb)
                break;
        }
        if (!nb)
            continue;
        st = parse_section(d, found, buf, nb, first, known, known_count, where, err);
        if (st)
            goto done;
        found++;
    }
    if (found < 7) {
        st = etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                           "%s: debug_database does not contain all expected profiling sections (%d of 7)",
                           where, found);
        goto done;
    }
    if ((st = need_column(d, 0, "tosa_op", where, err)) || (st = need_column(d, 2, "tosa_op_ids", where, err)) ||
        (st = need_column(d, 3, "fused_op_ids", where, err)) || (st = need_column(d, 5, "op_id", where, err)) ||
        (st = need_column(d, 5, "cascade_op_id", where, err)) || (st = build_stripe_map(d, where, err)))
        goto done;
done:
    free(buf);
    free(lines);
    free(lineno);
    if (st) {
        /* sections never parsed still need their maps initialised to free */
        etp_nx_ddb_free(d);
        return st;
    }
    *out = d;
    return ETP_OK;
}

etp_nx_strlist etp_nx_ddb_stripe_chains(const etp_nx_ddb *d, uint32_t stripe)
{
    const char *op = stripe_op_of(d, stripe);
    return cell_of(&d->sec[5], find_row(&d->sec[5], op), "op_id");
}

etp_nx_strlist etp_nx_ddb_stripe_cascades(const etp_nx_ddb *d, uint32_t stripe)
{
    const char *op = stripe_op_of(d, stripe);
    return cell_of(&d->sec[5], find_row(&d->sec[5], op), "cascade_op_id");
}

etp_nx_strlist etp_nx_ddb_chain_fused(const etp_nx_ddb *d, const char *chain)
{
    return cell_of(&d->sec[3], find_row(&d->sec[3], chain), "fused_op_ids");
}

etp_nx_strlist etp_nx_ddb_fused_tosa(const etp_nx_ddb *d, const char *fused)
{
    return cell_of(&d->sec[2], find_row(&d->sec[2], fused), "tosa_op_ids");
}

etp_nx_strlist etp_nx_ddb_tosa_types(const etp_nx_ddb *d, const char *tosa, int *found)
{
    const row *r = find_row(&d->sec[0], tosa);
    if (found)
        *found = r != NULL;
    return cell_of(&d->sec[0], r, "tosa_op");
}

etp_nx_strlist etp_nx_ddb_tosa_labels(const etp_nx_ddb *d, const char *tosa)
{
    return cell_of(&d->sec[0], find_row(&d->sec[0], tosa), "api_labels");
}
