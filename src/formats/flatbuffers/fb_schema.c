/* fb_schema.c - schema-driven verification and JSON dumping of FlatBuffers. */
#include "formats/flatbuffers/fb_schema.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "util/thread.h"

static unsigned kind_size(int k)
{
    switch (k) {
    case FB_BOOL: case FB_I8: case FB_U8: case FB_UTYPE: return 1;
    case FB_I16: case FB_U16: return 2;
    case FB_I32: case FB_U32: case FB_F32: return 4;
    case FB_I64: case FB_U64: case FB_F64: return 8;
    default: return 4; /* offsets */
    }
}

static int is_scalar(int k) { return k >= FB_BOOL && k <= FB_F64; }

fb_limits fb_default_limits(uint32_t size)
{
    fb_limits l;
    l.max_depth = 64;
    /* Every distinct object needs at least 4 bytes, so a well-formed tree has
     * fewer than size/4 objects; sharing may revisit, allow some slack. */
    l.max_visits = (uint64_t)size + 1024;
    return l;
}

const char *fb_enum_name(const fb_enum *e, int64_t v)
{
    if (!e)
        return NULL;
    for (int i = 0; i < e->count; i++)
        if (e->values[i] == v)
            return e->names[i];
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Verification                                                              */

typedef struct vt_layout vt_layout;

typedef struct vctx {
    const fb_buf *b;
    fb_limits lim;
    uint64_t visits;
    const char *file;
    int64_t base;
    etp_error *err;
    struct vt_layout *cache;
    int parallel;          /* may split the root's table vector across threads */
    const fb_field *defer; /* vectors of this field: elements left to the caller */
} vctx;

/* Below this size a second thread costs more than it saves. */
#define PARALLEL_MIN_BYTES ((uint32_t)8 << 20)

static etp_status vfail(vctx *c, etp_status code, uint64_t pos, const char *fmt, const char *what,
                        const char *field)
{
    char msg[256];
    snprintf(msg, sizeof msg, fmt, what ? what : "?", field ? field : "?");
    return etp_error_set(c->err, code, c->file, c->base + (int64_t)pos, "%s", msg);
}

static etp_status verify_table(vctx *c, uint32_t t, const struct fb_table *d, int depth);

/* Resolve a uoffset stored at @p pos (already known to be in bounds). */
static etp_status v_deref(vctx *c, uint32_t pos, uint32_t *target, const char *tname,
                          const char *fname)
{
    if (pos % 4)
        return vfail(c, ETP_E_FORMAT, pos, "misaligned offset in %s.%s", tname, fname);
    uint64_t t = (uint64_t)pos + fb_u32(c->b, pos);
    if (fb_u32(c->b, pos) == 0 || t >= c->b->size)
        return vfail(c, t >= c->b->size ? ETP_E_TRUNCATED : ETP_E_FORMAT, pos,
                     "offset in %s.%s points outside the buffer", tname, fname);
    *target = (uint32_t)t;
    return ETP_OK;
}

static etp_status v_string(vctx *c, uint32_t s, const char *tname, const char *fname)
{
    if (s % 4)
        return vfail(c, ETP_E_FORMAT, s, "misaligned string in %s.%s", tname, fname);
    if ((uint64_t)s + 4 > c->b->size)
        return vfail(c, ETP_E_TRUNCATED, s, "string of %s.%s runs past the end", tname, fname);
    uint64_t len = fb_u32(c->b, s);
    if ((uint64_t)s + 4 + len + 1 > c->b->size)
        return vfail(c, ETP_E_TRUNCATED, s, "string of %s.%s runs past the end", tname, fname);
    if (c->b->p[s + 4 + len] != 0)
        return vfail(c, ETP_E_FORMAT, s + 4 + len, "string of %s.%s is not NUL-terminated", tname,
                     fname);
    return ETP_OK;
}

static etp_status v_elements(vctx *c, uint32_t v, uint32_t from, uint32_t to, const fb_field *f,
                             const char *tname, int depth);
static etp_status v_tables_parallel(vctx *c, uint32_t v, uint32_t n, const fb_field *f,
                                    const char *tname, int depth);

static etp_status v_vector(vctx *c, uint32_t v, const fb_field *f, const char *tname, int depth)
{
    if (v % 4)
        return vfail(c, ETP_E_FORMAT, v, "misaligned vector %s.%s", tname, f->name);
    if ((uint64_t)v + 4 > c->b->size)
        return vfail(c, ETP_E_TRUNCATED, v, "vector %s.%s runs past the end", tname, f->name);
    uint64_t n = fb_u32(c->b, v);
    unsigned es = kind_size(f->elem);
    if ((uint64_t)v + 4 + n * es > c->b->size)
        return vfail(c, ETP_E_TRUNCATED, v, "vector %s.%s runs past the end", tname, f->name);
    /* An empty vector has no elements to misalign (Arm's VGF writer leaves
     * empty 8-byte vectors 4-aligned, which its verifier accepts). */
    if (es == 8 && n && (v + 4) % 8)
        return vfail(c, ETP_E_FORMAT, v, "misaligned 8-byte elements in %s.%s", tname, f->name);
    if (is_scalar(f->elem) || f == c->defer)
        return ETP_OK;
    if (f->elem != FB_STR && f->elem != FB_TABLE)
        return vfail(c, ETP_E_INTERNAL, v, "unsupported vector element in %s.%s", tname, f->name);
    if (f->elem == FB_TABLE && depth == 0 && n >= 2 && c->b->size >= PARALLEL_MIN_BYTES && c->parallel)
        return v_tables_parallel(c, v, (uint32_t)n, f, tname, depth);
    return v_elements(c, v, 0, (uint32_t)n, f, tname, depth);
}

/* Elements [from, to) of a vector of strings or tables. */
static etp_status v_elements(vctx *c, uint32_t v, uint32_t from, uint32_t to, const fb_field *f,
                             const char *tname, int depth)
{
    for (uint32_t i = from; i < to; i++) {
        /* The elements are visited out of address order: fetch ahead. */
        if (i + 16 < to) {
            uint32_t ahead = v + 4 + 4 * (i + 16);
            uint64_t at = (uint64_t)ahead + fb_u32(c->b, ahead);
            if (at < c->b->size)
                __builtin_prefetch(c->b->p + at);
        }
        uint32_t ep = v + 4 + 4 * i, target = 0;
        etp_status s = v_deref(c, ep, &target, tname, f->name);
        if (s)
            return s;
        if (f->elem == FB_STR)
            s = v_string(c, target, tname, f->name);
        else
            s = verify_table(c, target, f->table, depth + 1);
        if (s)
            return s;
    }
    return ETP_OK;
}

/* The checked layout of one vtable for one table type: which fields are
 * references and where. Millions of ETDump tables share a handful of
 * vtables, so the per-field checks run once per vtable, not per table. */
#define VT_CACHE 64
#define VT_MAX_REFS 16

typedef struct vt_layout {
    uint32_t vt;                 /* vtable position; 0 = empty slot */
    const struct fb_table *d;
    uint8_t tmod8;               /* table position mod 8 (8-byte field alignment) */
    uint8_t nrefs;
    uint16_t tlen;
    uint32_t max_end;            /* furthest byte used by a field, from the table start */
    uint8_t ref_id[VT_MAX_REFS];
    uint16_t ref_off[VT_MAX_REFS];
} vt_layout;

/* Check the vtable and the scalar fields of the table at @p t; fill @p lay. */
static etp_status table_layout(vctx *c, uint32_t t, const struct fb_table *d, vt_layout *lay)
{
    const fb_buf *b = c->b;
    const char *tn = d->name;
    int64_t vt = (int64_t)t - fb_i32(b, t);
    if (vt < 0 || vt + 4 > (int64_t)b->size || vt % 2)
        return vfail(c, vt + 4 > (int64_t)b->size ? ETP_E_TRUNCATED : ETP_E_FORMAT, t,
                     "vtable of %s is outside the buffer%s", tn, "");
    uint16_t vtlen = fb_u16(b, (uint32_t)vt), tlen = fb_u16(b, (uint32_t)vt + 2);
    if (vtlen < 4 || vtlen % 2 || vt + vtlen > (int64_t)b->size)
        return vfail(c, ETP_E_FORMAT, (uint64_t)vt, "bad vtable size for %s%s", tn, "");
    if (tlen < 4 || (uint64_t)t + tlen > b->size)
        return vfail(c, ETP_E_TRUNCATED, t, "table %s runs past the end%s", tn, "");
    lay->vt = (uint32_t)vt;
    lay->d = d;
    lay->tmod8 = (uint8_t)(t % 8);
    lay->tlen = tlen;
    lay->max_end = tlen;
    lay->nrefs = 0;
    int cacheable = 1;
    for (int id = 0; id < d->count; id++) {
        const fb_field *f = &d->fields[id];
        unsigned slot = 4u + 2u * (unsigned)id;
        if (slot + 2u > vtlen)
            break;
        uint16_t off = fb_u16(b, (uint32_t)vt + slot);
        if (!off)
            continue;
        unsigned fs = kind_size(f->kind);
        /* Bounded by the buffer, not the table's declared size: some real
         * writers (exir's Python serializer) record a table size that ends
         * before their last 8-byte field. flatc's verifier accepts those. */
        uint32_t fp = t + off;
        if ((uint64_t)fp + fs > b->size)
            return vfail(c, ETP_E_TRUNCATED, fp, "field %s.%s runs past the end", tn, f->name);
        if (fp % fs)
            return vfail(c, ETP_E_FORMAT, fp, "misaligned field %s.%s", tn, f->name);
        if ((uint32_t)off + fs > lay->max_end)
            lay->max_end = (uint32_t)off + fs;
        if (is_scalar(f->kind) || f->kind == FB_UTYPE)
            continue;
        if (lay->nrefs == VT_MAX_REFS) {
            cacheable = 0;
            continue;
        }
        lay->ref_id[lay->nrefs] = (uint8_t)id;
        lay->ref_off[lay->nrefs] = off;
        lay->nrefs++;
    }
    if (!cacheable || d->count > 255)
        lay->vt = 0; /* too many references to cache: caller re-checks */
    return ETP_OK;
}

static etp_status verify_field_ref(vctx *c, uint32_t t, const struct fb_table *d, int id,
                                   uint32_t fp, int depth)
{
    const fb_field *f = &d->fields[id];
    const char *tn = d->name;
    uint32_t target = 0;
    etp_status s = v_deref(c, fp, &target, tn, f->name);
    if (s)
        return s;
    switch (f->kind) {
    case FB_STR:
        return v_string(c, target, tn, f->name);
    case FB_TABLE:
        return verify_table(c, target, f->table, depth + 1);
    case FB_VEC:
        return v_vector(c, target, f, tn, depth);
    case FB_UNION: {
        /* The tag is the previous field. */
        uint8_t type = id > 0 ? fb_get_u8(c->b, t, (unsigned)id - 1, 0) : 0;
        if (type == 0)
            return vfail(c, ETP_E_FORMAT, fp, "union %s.%s has a value but no type", tn, f->name);
        if (type >= f->un->count)
            return etp_error_set(c->err, ETP_E_FORMAT, c->file, c->base + fp,
                                 "unknown %s type %u in %s.%s", f->un->name, type, tn, f->name);
        return verify_table(c, target, f->un->tables[type], depth + 1);
    }
    default:
        return vfail(c, ETP_E_INTERNAL, fp, "unsupported field kind in %s.%s", tn, f->name);
    }
}

/* verify_table() when the vtable cache misses: check the layout, cache it
 * when it can be, and verify the references from a local copy of it (the
 * children's own layouts may take over the cache slot). */
static etp_status verify_table_uncached(vctx *c, uint32_t t, const struct fb_table *d, int depth,
                                        vt_layout *slot)
{
    vt_layout lay;
    etp_status s = table_layout(c, t, d, &lay);
    if (s)
        return s;
    if (!lay.vt) {
        /* Uncacheable (many references): check every reference field. */
        for (int id = 0; id < d->count; id++) {
            const fb_field *f = &d->fields[id];
            if (is_scalar(f->kind) || f->kind == FB_UTYPE)
                continue;
            uint32_t fp = fb_field_pos(c->b, t, (unsigned)id);
            if (fp && (s = verify_field_ref(c, t, d, id, fp, depth)))
                return s;
        }
        return ETP_OK;
    }
    *slot = lay;
    for (uint8_t k = 0; k < lay.nrefs; k++)
        if ((s = verify_field_ref(c, t, d, lay.ref_id[k], t + lay.ref_off[k], depth)))
            return s;
    return ETP_OK;
}

static etp_status verify_table(vctx *c, uint32_t t, const struct fb_table *d, int depth)
{
    const fb_buf *b = c->b;
    const char *tn = d->name;
    if (depth > c->lim.max_depth)
        return vfail(c, ETP_E_LIMIT, t, "%s nested too deeply%s", tn, "");
    if (++c->visits > c->lim.max_visits)
        return vfail(c, ETP_E_LIMIT, t, "too many objects while reading %s%s", tn, "");
    if (t % 4)
        return vfail(c, ETP_E_FORMAT, t, "misaligned table %s%s", tn, "");
    if ((uint64_t)t + 4 > b->size)
        return vfail(c, ETP_E_TRUNCATED, t, "table %s runs past the end%s", tn, "");
    int64_t svt = (int64_t)t - fb_i32(b, t);
    uint32_t vt = (uint32_t)svt;
    /* Tables of one type and vtable at both 4-byte alignments (writers pack
     * them back to back) get a slot each, or they would evict each other. */
    vt_layout *hit = &c->cache[((vt >> 1) ^ (uint32_t)(uintptr_t)d ^ ((t & 4u) << 3)) % VT_CACHE];
    /* Same vtable, same alignment, fits: the field checks hold. */
    if (!(hit->vt == vt && hit->d == d && hit->tmod8 == t % 8 && svt >= 0 &&
          (uint64_t)t + hit->max_end <= b->size))
        return verify_table_uncached(c, t, d, depth, hit);
    /* The common case reads the references straight from the cache slot,
     * as long as verifying a child has not taken it over (the same vtable
     * and type always give the same references). */
    uint8_t n = hit->nrefs;
    for (uint8_t k = 0; k < n; k++) {
        if (hit->vt != vt || hit->d != d) {
            vt_layout lay;
            etp_status s = table_layout(c, t, d, &lay);
            for (; !s && k < n; k++)
                s = verify_field_ref(c, t, d, lay.ref_id[k], t + lay.ref_off[k], depth);
            return s;
        }
        uint8_t id = hit->ref_id[k];
        uint32_t fp = t + hit->ref_off[k];
        const fb_field *f = &d->fields[id];
        /* Strings and tables, the bulk of an ETDump, checked right here;
         * anything else, or anything wrong, goes the general way (which
         * also words the error). */
        uint32_t target = fb_checked_ref(b, fp);
        if (target && f->kind == FB_TABLE) {
            etp_status s = verify_table(c, target, f->table, depth + 1);
            if (s)
                return s;
            continue;
        }
        if (target && f->kind == FB_STR && fb_checked_string(b, target))
            continue;
        etp_status s = verify_field_ref(c, t, d, id, fp, depth);
        if (s)
            return s;
    }
    return ETP_OK;
}

/* The root's vector of tables (an ETDump's runs, a program's plans) is split
 * between this thread and one helper: subtrees are independent, so each half
 * is verified with its own cache and budget. A failure in the first half is
 * reported before one in the second, so errors do not depend on timing. */
typedef struct half {
    vctx c;
    etp_error err;
    etp_claims *claims;
    uint32_t v, n;
    const fb_field *f;
    const char *tname;
    int depth;
    etp_status status;
} half;

/* Elements per claim: one root table (an ETDump run) is already a lot of
 * work; for long vectors, about 64 claims in all. */
static uint32_t claim_size(uint32_t n)
{
    return n / 64 ? n / 64 : 1;
}

static void *verify_half(void *arg)
{
    half *h = arg;
    uint32_t from, to;
    while (!h->status && etp_claim(h->claims, 1, claim_size(h->n), &from, &to))
        h->status = v_elements(&h->c, h->v, from, to, h->f, h->tname, h->depth);
    /* A failure here comes after every element the other thread still has
     * to check: it goes on up to this claim. */
    return NULL;
}

static etp_status v_tables_parallel(vctx *c, uint32_t v, uint32_t n, const fb_field *f,
                                    const char *tname, int depth)
{
    etp_claims claims;
    half h;
    memset(&h, 0, sizeof h);
    h.c = *c;
    h.c.err = &h.err;
    h.c.visits = 0;
    h.c.parallel = 0;
    h.c.cache = calloc(VT_CACHE, sizeof *h.c.cache);
    h.claims = &claims;
    h.v = v;
    h.n = n;
    h.f = f;
    h.tname = tname;
    h.depth = depth;
    pthread_t th;
    if (!h.c.cache || etp_claims_init(&claims, 0, n)) {
        free(h.c.cache);
        return v_elements(c, v, 0, n, f, tname, depth);
    }
    if (etp_thread_start(&th, verify_half, &h) != 0) {
        free(h.c.cache);
        etp_claims_fini(&claims);
        return v_elements(c, v, 0, n, f, tname, depth);
    }
    /* This thread from the front, the helper from the back. */
    etp_status first = ETP_OK;
    uint32_t from, to;
    while (!first && etp_claim(&claims, 0, claim_size(n), &from, &to))
        first = v_elements(c, v, from, to, f, tname, depth);
    if (first)
        etp_claims_stop(&claims);
    pthread_join(th, NULL);
    free(h.c.cache);
    etp_claims_fini(&claims);
    if (first)
        return first;
    if (h.status && c->err)
        *c->err = h.err;
    return h.status;
}

etp_status fb_verify(const fb_buf *b, uint32_t root_pos, const fb_table *root, fb_limits lim,
                     const char *file, int64_t base_offset, uint32_t *root_table, etp_error *err)
{
    return fb_verify_deferring(b, root_pos, root, lim, file, base_offset, NULL, root_table, err);
}

etp_status fb_verify_deferring(const fb_buf *b, uint32_t root_pos, const fb_table *root,
                               fb_limits lim, const char *file, int64_t base_offset,
                               const fb_field *defer, uint32_t *root_table, etp_error *err)
{
    vt_layout *cache = calloc(VT_CACHE, sizeof *cache);
    if (!cache)
        return etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET, "out of memory");
    /* With the bulk deferred, what is left is too little to split. */
    vctx c = {b, lim, 0, file, base_offset, err, cache, defer == NULL, defer};
    etp_status s;
    uint32_t t = 0;
    if ((uint64_t)root_pos + 8 > b->size)
        s = etp_error_set(err, ETP_E_TRUNCATED, file, base_offset + root_pos,
                          "too short for a FlatBuffer header");
    else if (!(s = v_deref(&c, root_pos, &t, root->name, "(root)")))
        s = verify_table(&c, t, root, 0);
    free(cache);
    if (!s && root_table)
        *root_table = t;
    return s;
}

int fb_layout_of(const fb_buf *b, uint32_t t, const fb_table *d, fb_layout *out)
{
    if (d->count > FB_LAYOUT_FIELDS || t % 4 || (uint64_t)t + 4 > b->size)
        return -1;
    vctx c;
    memset(&c, 0, sizeof c);
    c.b = b;
    vt_layout lay;
    if (table_layout(&c, t, d, &lay) || !lay.vt)
        return -1;
    memset(out, 0, sizeof *out);
    out->vt = lay.vt;
    out->tmod8 = lay.tmod8;
    out->max_end = lay.max_end;
    uint16_t vtlen = fb_u16(b, lay.vt); /* checked by table_layout() */
    for (int id = 0; id < d->count && 4u + 2u * (unsigned)id + 2u <= vtlen; id++)
        out->off[id] = fb_u16(b, lay.vt + 4u + 2u * (unsigned)id);
    return 0;
}

struct fb_verifier {
    vctx c;
};

fb_verifier *fb_verifier_new(const fb_buf *b, fb_limits lim, const char *file, int64_t base_offset)
{
    fb_verifier *v = calloc(1, sizeof *v);
    vt_layout *cache = calloc(VT_CACHE, sizeof *cache);
    if (!v || !cache) {
        free(v);
        free(cache);
        return NULL;
    }
    vctx c = {b, lim, 0, file, base_offset, NULL, cache, 0, NULL};
    v->c = c;
    return v;
}

etp_status fb_verifier_table(fb_verifier *v, uint32_t t, const fb_table *d, int depth,
                             etp_error *err)
{
    v->c.err = err;
    etp_status s = verify_table(&v->c, t, d, depth);
    v->c.err = NULL;
    return s;
}

uint64_t fb_verifier_visits(const fb_verifier *v)
{
    return v->c.visits;
}

void fb_verifier_set_visits(fb_verifier *v, uint64_t visits)
{
    v->c.visits = visits;
}

void fb_verifier_free(fb_verifier *v)
{
    if (!v)
        return;
    free(v->c.cache);
    free(v);
}

/* ------------------------------------------------------------------------ */
/* JSON dump                                                                 */

static void dump_scalar(const fb_buf *b, uint32_t pos, int kind, const fb_enum *e, etp_jw *w)
{
    int64_t iv = 0;
    switch (kind) {
    case FB_BOOL: etp_jw_bool(w, b->p[pos] != 0); return;
    case FB_I8: iv = (int8_t)b->p[pos]; break;
    case FB_U8: case FB_UTYPE: iv = b->p[pos]; break;
    case FB_I16: iv = (int16_t)fb_u16(b, pos); break;
    case FB_U16: iv = fb_u16(b, pos); break;
    case FB_I32: iv = fb_i32(b, pos); break;
    case FB_U32: iv = fb_u32(b, pos); break;
    case FB_I64: iv = (int64_t)fb_u64(b, pos); break;
    case FB_U64: {
        uint64_t u = fb_u64(b, pos);
        const char *n = e ? fb_enum_name(e, (int64_t)u) : NULL;
        if (n)
            etp_jw_str(w, n);
        else
            etp_jw_uint(w, u);
        return;
    }
    case FB_F32: {
        float f;
        memcpy(&f, b->p + pos, 4);
        etp_jw_float(w, f);
        return;
    }
    case FB_F64: {
        double d;
        memcpy(&d, b->p + pos, 8);
        etp_jw_double(w, d);
        return;
    }
    }
    const char *n = e ? fb_enum_name(e, iv) : NULL;
    if (n)
        etp_jw_str(w, n);
    else
        etp_jw_int(w, iv);
}

static void dump_default(const fb_field *f, etp_jw *w)
{
    if (f->kind == FB_BOOL) {
        etp_jw_bool(w, f->idef != 0);
        return;
    }
    if (f->kind == FB_F32 || f->kind == FB_F64) {
        etp_jw_double(w, f->fdef);
        return;
    }
    const char *n = NULL;
    if (f->kind == FB_UTYPE)
        n = f->un->names[0];
    else if (f->enm)
        n = fb_enum_name(f->enm, f->idef);
    if (n)
        etp_jw_str(w, n);
    else if (f->kind == FB_U64)
        etp_jw_uint(w, (uint64_t)f->idef);
    else
        etp_jw_int(w, f->idef);
}

void fb_dump_json(const fb_buf *b, uint32_t t, const fb_table *d, etp_jw *w)
{
    etp_jw_obj_begin(w);
    uint8_t last_type = 0;
    for (int id = 0; id < d->count; id++) {
        const fb_field *f = &d->fields[id];
        uint32_t fp = fb_field_pos(b, t, (unsigned)id);
        if (is_scalar(f->kind) || f->kind == FB_UTYPE) {
            etp_jw_key(w, f->name);
            if (f->kind == FB_UTYPE) {
                last_type = fp ? b->p[fp] : 0;
                const char *n = last_type < f->un->count ? f->un->names[last_type] : NULL;
                if (n)
                    etp_jw_str(w, n);
                else
                    etp_jw_int(w, last_type);
            } else if (fp)
                dump_scalar(b, fp, f->kind, f->enm, w);
            else
                dump_default(f, w);
            continue;
        }
        if (!fp)
            continue;
        uint32_t target = fb_deref(b, fp);
        switch (f->kind) {
        case FB_STR: {
            uint32_t len;
            const char *s = fb_str(b, target, &len);
            etp_jw_key(w, f->name);
            etp_jw_strn(w, s, len);
            break;
        }
        case FB_TABLE:
            etp_jw_key(w, f->name);
            fb_dump_json(b, target, f->table, w);
            break;
        case FB_UNION:
            if (last_type == 0 || last_type >= f->un->count)
                break;
            etp_jw_key(w, f->name);
            fb_dump_json(b, target, f->un->tables[last_type], w);
            break;
        case FB_VEC: {
            uint32_t n = fb_u32(b, target);
            unsigned es = kind_size(f->elem);
            etp_jw_key(w, f->name);
            etp_jw_arr_begin(w);
            for (uint32_t i = 0; i < n; i++) {
                uint32_t ep = target + 4 + es * i;
                if (f->elem == FB_STR) {
                    uint32_t len;
                    const char *s = fb_str(b, fb_deref(b, ep), &len);
                    etp_jw_strn(w, s, len);
                } else if (f->elem == FB_TABLE)
                    fb_dump_json(b, fb_deref(b, ep), f->table, w);
                else
                    dump_scalar(b, ep, f->elem, f->enm, w);
            }
            etp_jw_arr_end(w);
            break;
        }
        default:
            break;
        }
    }
    etp_jw_obj_end(w);
}
