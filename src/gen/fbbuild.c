/* fbbuild.c - back-to-front FlatBuffers builder (see fbbuild.h). */
#include "gen/fbbuild.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Buffers of this size and more come from mmap, marked for transparent huge
 * pages: first-touch page faults dominate building a 1 GB file otherwise. */
#define BIG_ALLOC ((size_t)8 << 20)

static uint8_t *buf_alloc(size_t n)
{
    if (n < BIG_ALLOC)
        return malloc(n);
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

static void buf_free(uint8_t *p, size_t n)
{
    if (!p)
        return;
    if (n < BIG_ALLOC)
        free(p);
    else
        munmap(p, n);
}

static void fail(fbb *b, const char *msg)
{
    if (!b->error)
        b->error = msg;
}

int fbb_init(fbb *b, size_t initial_cap)
{
    memset(b, 0, sizeof *b);
    b->minalign = 1;
    b->cap = initial_cap < 1024 ? 1024 : initial_cap;
    b->buf = buf_alloc(b->cap);
    b->vt_mask = 63;
    b->vt_slots = calloc(b->vt_mask + 1, sizeof *b->vt_slots);
    if (!b->buf || !b->vt_slots) {
        fail(b, "out of memory");
        return -1;
    }
    return 0;
}

void fbb_free(fbb *b)
{
    buf_free(b->buf, b->cap);
    free(b->vt_slots);
    memset(b, 0, sizeof *b);
}

void fbb_reset(fbb *b)
{
    b->size = 0;
    b->minalign = 1;
    b->error = b->buf && b->vt_slots ? NULL : "out of memory";
    b->in_table = 0;
    b->nfields = 0;
    if (b->vt_slots)
        memset(b->vt_slots, 0, (b->vt_mask + 1) * sizeof *b->vt_slots);
    b->vt_count = 0;
}

const char *fbb_error(const fbb *b) { return b->error; }

int fbb_grow(fbb *b, size_t n)
{
    if (b->error)
        return -1;
    if (n > FBB_MAX_SIZE - b->size) {
        fail(b, "FlatBuffer would exceed 4 GiB");
        return -1;
    }
    size_t need = b->size + n;
    size_t ncap = b->cap;
    while (ncap < need)
        ncap = ncap < ((size_t)1 << 30) ? ncap * 2 : ncap + ncap / 2;
    if (ncap > FBB_MAX_SIZE + 64)
        ncap = FBB_MAX_SIZE + 64;
    /* The data lives at the end: copy it to the end of the new block. */
    uint8_t *nb = buf_alloc(ncap);
    if (!nb) {
        fail(b, "out of memory");
        return -1;
    }
    memcpy(nb + ncap - b->size, b->buf + b->cap - b->size, b->size);
    buf_free(b->buf, b->cap);
    b->buf = nb;
    b->cap = ncap;
    return 0;
}

void fbb_force_minalign(fbb *b, size_t align)
{
    if (align > b->minalign)
        b->minalign = align;
}

void fbb_prep(fbb *b, size_t align, size_t extra)
{
    if (align > b->minalign)
        b->minalign = align;
    size_t pad = (0 - (b->size + extra)) & (align - 1);
    if (!pad || fbb_ensure(b, pad))
        return;
    b->size += pad;
    uint8_t *p = b->buf + b->cap - b->size;
    for (size_t i = 0; i < pad; i++) /* at most 15 bytes: no libc call */
        p[i] = 0;
}

/* Prepend a uoffset to @p ref at a 4-aligned position. */
static void push_ref(fbb *b, fbb_ref ref)
{
    fbb_prep(b, 4, 4);
    if (fbb_ensure(b, 4))
        return;
    b->size += 4;
    uint32_t v = (uint32_t)(b->size - ref);
    memcpy(b->buf + b->cap - b->size, &v, 4);
}

static int no_table(fbb *b)
{
    if (b->in_table) {
        fail(b, "object created while a table is open");
        return 0;
    }
    return !b->error;
}

fbb_ref fbb_string(fbb *b, const char *s, size_t len)
{
    if (!no_table(b))
        return 0;
    if (len > FBB_MAX_SIZE) {
        fail(b, "string too long");
        return 0;
    }
    fbb_prep(b, 4, len + 1);
    if (fbb_ensure(b, len + 5))
        return 0;
    b->size += len + 5;
    uint8_t *dst = b->buf + b->cap - b->size;
    uint32_t n = (uint32_t)len;
    memcpy(dst, &n, 4);
    if (len)
        memcpy(dst + 4, s, len);
    dst[4 + len] = 0;
    return (fbb_ref)b->size;
}

fbb_ref fbb_cstring(fbb *b, const char *s) { return fbb_string(b, s, strlen(s)); }

fbb_ref fbb_vec_scalars(fbb *b, const void *data, size_t count, size_t elem_size)
{
    if (!no_table(b))
        return 0;
    if (count > FBB_MAX_SIZE / (elem_size ? elem_size : 1)) {
        fail(b, "vector too long");
        return 0;
    }
    size_t bytes = count * elem_size;
    /* The length word must be 4-aligned and the elements elem-aligned. */
    fbb_prep(b, 4, bytes);
    fbb_prep(b, elem_size < 4 ? 1 : elem_size, bytes);
    if (fbb_ensure(b, bytes))
        return 0;
    b->size += bytes;
    uint8_t *dst = b->buf + b->cap - b->size;
    if (bytes && data)
        memcpy(dst, data, bytes);
    else if (bytes)
        memset(dst, 0, bytes);
    uint32_t n = (uint32_t)count;
    fbb_push_bytes(b, &n, 4);
    return b->error ? 0 : (fbb_ref)b->size;
}

fbb_ref fbb_vec_refs(fbb *b, const fbb_ref *refs, size_t count)
{
    if (!no_table(b))
        return 0;
    if (count > FBB_MAX_SIZE / 4) {
        fail(b, "vector too long");
        return 0;
    }
    fbb_prep(b, 4, count * 4);
    if (fbb_ensure(b, count * 4 + 4))
        return 0;
    for (size_t i = count; i-- > 0;) {
        if (!refs[i]) {
            fail(b, "null element in a vector of offsets");
            return 0;
        }
        b->size += 4;
        uint32_t v = (uint32_t)(b->size - refs[i]);
        memcpy(b->buf + b->cap - b->size, &v, 4);
    }
    uint32_t n = (uint32_t)count;
    fbb_push_bytes(b, &n, 4);
    return b->error ? 0 : (fbb_ref)b->size;
}

void fbb_table_begin(fbb *b)
{
    if (!no_table(b))
        return;
    b->in_table = 1;
    b->table_start = b->size;
    b->nfields = 0;
    b->max_id = -1;
}

static void add_field(fbb *b, int id, const void *v, size_t n)
{
    if (b->error)
        return;
    if (!b->in_table || id < 0 || id >= FBB_MAX_FIELDS || b->nfields >= FBB_MAX_FIELDS) {
        fail(b, "field added outside a table or with a bad id");
        return;
    }
    fbb_prep(b, n, 0);
    /* Padding before the first field stays outside the table's recorded
     * size, so equal layouts give equal vtables wherever they start. */
    if (!b->nfields)
        b->table_start = b->size;
    if (fbb_ensure(b, n))
        return;
    b->size += n;
    uint8_t *dst = b->buf + b->cap - b->size;
    /* constant-size copies compile to single stores */
    switch (n) {
    case 1: memcpy(dst, v, 1); break;
    case 2: memcpy(dst, v, 2); break;
    case 4: memcpy(dst, v, 4); break;
    default: memcpy(dst, v, 8); break;
    }
    b->field_id[b->nfields] = (uint16_t)id;
    b->field_pos[b->nfields] = (uint32_t)b->size;
    b->nfields++;
    if (id > b->max_id)
        b->max_id = id;
}

void fbb_add_u8(fbb *b, int id, uint8_t v, uint8_t def)
{
    if (v != def)
        add_field(b, id, &v, 1);
}
void fbb_add_i8(fbb *b, int id, int8_t v, int8_t def)
{
    if (v != def)
        add_field(b, id, &v, 1);
}
void fbb_add_u16(fbb *b, int id, uint16_t v, uint16_t def)
{
    if (v != def)
        add_field(b, id, &v, 2);
}
void fbb_add_i32(fbb *b, int id, int32_t v, int32_t def)
{
    if (v != def)
        add_field(b, id, &v, 4);
}
void fbb_add_u32(fbb *b, int id, uint32_t v, uint32_t def)
{
    if (v != def)
        add_field(b, id, &v, 4);
}
void fbb_add_i64(fbb *b, int id, int64_t v, int64_t def)
{
    if (v != def)
        add_field(b, id, &v, 8);
}
void fbb_add_u64(fbb *b, int id, uint64_t v, uint64_t def)
{
    if (v != def)
        add_field(b, id, &v, 8);
}
void fbb_add_f64(fbb *b, int id, double v, double def)
{
    if (v != def)
        add_field(b, id, &v, 8);
}

void fbb_add_ref(fbb *b, int id, fbb_ref ref)
{
    if (!ref || b->error)
        return;
    if (!b->in_table || id < 0 || id >= FBB_MAX_FIELDS || b->nfields >= FBB_MAX_FIELDS) {
        fail(b, "field added outside a table or with a bad id");
        return;
    }
    fbb_prep(b, 4, 0);
    if (!b->nfields)
        b->table_start = b->size;
    push_ref(b, ref);
    if (b->error)
        return;
    b->field_id[b->nfields] = (uint16_t)id;
    b->field_pos[b->nfields] = (uint32_t)b->size;
    b->nfields++;
    if (id > b->max_id)
        b->max_id = id;
}

static uint32_t vt_hash(const uint16_t *vt, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ vt[i]) * 16777619u;
    return h;
}

static void vt_insert(fbb *b, uint32_t pos, uint32_t h)
{
    size_t i = h & b->vt_mask;
    while (b->vt_slots[i])
        i = (i + 1) & b->vt_mask;
    b->vt_slots[i] = pos;
    b->vt_count++;
}

/* Keep the hash set at most half full. */
static void vt_rehash(fbb *b)
{
    if ((b->vt_count + 1) * 2 <= b->vt_mask + 1)
        return;
    size_t old_n = b->vt_mask + 1;
    uint32_t *old = b->vt_slots;
    uint32_t *ns = calloc(old_n * 2, sizeof *ns);
    if (!ns) {
        fail(b, "out of memory");
        return;
    }
    b->vt_slots = ns;
    b->vt_mask = old_n * 2 - 1;
    b->vt_count = 0;
    for (size_t i = 0; i < old_n; i++) {
        if (!old[i])
            continue;
        const uint8_t *p = fbb_at(b, old[i]);
        uint16_t len;
        memcpy(&len, p, 2);
        uint16_t tmp[FBB_MAX_FIELDS + 2];
        memcpy(tmp, p, len);
        vt_insert(b, old[i], vt_hash(tmp, len / 2));
    }
    free(old);
}

fbb_ref fbb_table_end(fbb *b)
{
    if (b->error)
        return 0;
    if (!b->in_table) {
        fail(b, "table end without a table");
        return 0;
    }
    /* The soffset to the vtable comes first in the table. */
    fbb_prep(b, 4, 4);
    if (fbb_ensure(b, 4))
        return 0;
    b->size += 4; /* the soffset, written below */
    b->in_table = 0;
    uint32_t table = (uint32_t)b->size;
    size_t obj_size = b->size - b->table_start;
    if (obj_size > 0xffff) {
        fail(b, "table larger than 64 KiB");
        return 0;
    }
    size_t nslots = (size_t)(b->max_id + 1);
    uint16_t vt[FBB_MAX_FIELDS + 2];
    vt[0] = (uint16_t)(4 + 2 * nslots);
    vt[1] = (uint16_t)obj_size;
    memset(vt + 2, 0, nslots * 2);
    for (int i = 0; i < b->nfields; i++)
        vt[2 + b->field_id[i]] = (uint16_t)(table - b->field_pos[i]);
    size_t vtlen = vt[0];
    uint32_t h = vt_hash(vt, vtlen / 2);

    /* Reuse an identical vtable if one is within soffset reach. */
    size_t i = h & b->vt_mask;
    for (; b->vt_slots[i]; i = (i + 1) & b->vt_mask) {
        uint32_t pos = b->vt_slots[i];
        uint16_t len;
        memcpy(&len, fbb_at(b, pos), 2); /* compare lengths first: stay inside it */
        if (len != vtlen || memcmp(fbb_at(b, pos), vt, vtlen) != 0)
            continue;
        if (table - pos > (uint32_t)INT32_MAX)
            break; /* too far away: write a fresh copy below */
        int32_t so = (int32_t)((int64_t)pos - (int64_t)table);
        memcpy(fbb_at(b, table), &so, 4);
        return table;
    }
    if (!fbb_push_bytes(b, vt, vtlen))
        return 0;
    uint32_t pos = (uint32_t)b->size;
    int32_t so = (int32_t)(pos - table);
    memcpy(fbb_at(b, table), &so, 4);
    if (b->vt_slots[i]) {
        /* The loop stopped at a copy too far away: point its slot at the
         * new one so later tables find the near copy. */
        b->vt_slots[i] = pos;
        return table;
    }
    vt_rehash(b);
    if (!b->error)
        vt_insert(b, pos, h);
    return table;
}

int fbb_finish(fbb *b, fbb_ref root, const char *ident, int size_prefixed)
{
    if (b->in_table)
        fail(b, "finish with a table open");
    if (!root)
        fail(b, "finish without a root table");
    if (b->error)
        return -1;
    size_t head = 4 + (ident ? 4 : 0) + (size_prefixed ? 4 : 0);
    size_t align = b->minalign < 4 ? 4 : b->minalign;
    fbb_prep(b, align, head);
    if (ident)
        fbb_push_bytes(b, ident, 4);
    push_ref(b, root);
    if (size_prefixed) {
        uint32_t n = (uint32_t)b->size;
        fbb_push_bytes(b, &n, 4);
    }
    return b->error ? -1 : 0;
}

const uint8_t *fbb_data(const fbb *b, size_t *len)
{
    if (len)
        *len = b->size;
    return b->buf + b->cap - b->size;
}
