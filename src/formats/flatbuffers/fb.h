/*
 * fb.h - FlatBuffers primitives over untrusted bytes.
 *
 * A buffer is a (pointer, size) pair; positions are byte offsets inside it.
 * Position 0 always holds the root offset, so 0 doubles as "absent".
 * Every scalar is read with memcpy (no alignment assumptions on the host).
 *
 * The accessors below do NOT bounds-check: they are only used on trees that
 * fb_verify() (fb_schema.h) has walked completely. Anything that reads a
 * buffer before verification must use the checked helpers in fb_schema.c.
 */
#ifndef ETP_FB_H
#define ETP_FB_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "etprof's FlatBuffers reader assumes a little-endian host"
#endif

typedef struct fb_buf {
    const uint8_t *p;
    uint32_t size;
} fb_buf;

static inline uint8_t fb_u8(const fb_buf *b, uint32_t pos) { return b->p[pos]; }
static inline uint16_t fb_u16(const fb_buf *b, uint32_t pos)
{
    uint16_t v;
    memcpy(&v, b->p + pos, 2);
    return v;
}
static inline uint32_t fb_u32(const fb_buf *b, uint32_t pos)
{
    uint32_t v;
    memcpy(&v, b->p + pos, 4);
    return v;
}
static inline int32_t fb_i32(const fb_buf *b, uint32_t pos)
{
    int32_t v;
    memcpy(&v, b->p + pos, 4);
    return v;
}
static inline uint64_t fb_u64(const fb_buf *b, uint32_t pos)
{
    uint64_t v;
    memcpy(&v, b->p + pos, 8);
    return v;
}

/* Position of field @p id's data in the table at @p table, or 0 if absent. */
static inline uint32_t fb_field_pos(const fb_buf *b, uint32_t table, unsigned id)
{
    uint32_t vt = (uint32_t)((int64_t)table - fb_i32(b, table));
    uint16_t vtlen = fb_u16(b, vt);
    unsigned slot = 4u + 2u * id;
    if (slot + 2u > vtlen)
        return 0;
    uint16_t off = fb_u16(b, vt + slot);
    return off ? table + off : 0;
}

/* A table with its vtable located once, for reading several fields. */
typedef struct fb_tv {
    uint32_t t;
    uint32_t vt;
    uint16_t vtlen;
} fb_tv;

static inline fb_tv fb_tv_of(const fb_buf *b, uint32_t table)
{
    fb_tv v;
    v.t = table;
    v.vt = (uint32_t)((int64_t)table - fb_i32(b, table));
    v.vtlen = fb_u16(b, v.vt);
    return v;
}

/* Position of field @p id of a located table, or 0 if absent. */
static inline uint32_t fb_tv_pos(const fb_buf *b, const fb_tv *v, unsigned id)
{
    unsigned slot = 4u + 2u * id;
    if (slot + 2u > v->vtlen)
        return 0;
    uint16_t off = fb_u16(b, v->vt + slot);
    return off ? v->t + off : 0;
}

static inline uint32_t fb_tv_ref(const fb_buf *b, const fb_tv *v, unsigned id)
{
    uint32_t f = fb_tv_pos(b, v, id);
    return f ? f + fb_u32(b, f) : 0;
}

static inline int32_t fb_tv_i32(const fb_buf *b, const fb_tv *v, unsigned id, int32_t def)
{
    uint32_t f = fb_tv_pos(b, v, id);
    return f ? fb_i32(b, f) : def;
}

static inline uint64_t fb_tv_u64(const fb_buf *b, const fb_tv *v, unsigned id, uint64_t def)
{
    uint32_t f = fb_tv_pos(b, v, id);
    return f ? fb_u64(b, f) : def;
}

/* Follow the uoffset stored at @p pos. */
static inline uint32_t fb_deref(const fb_buf *b, uint32_t pos) { return pos + fb_u32(b, pos); }

/* Referenced object (string, vector, table) of field @p id, or 0. */
static inline uint32_t fb_ref(const fb_buf *b, uint32_t table, unsigned id)
{
    uint32_t f = fb_field_pos(b, table, id);
    return f ? fb_deref(b, f) : 0;
}

static inline int32_t fb_get_i32(const fb_buf *b, uint32_t t, unsigned id, int32_t def)
{
    uint32_t f = fb_field_pos(b, t, id);
    return f ? fb_i32(b, f) : def;
}
static inline uint32_t fb_get_u32(const fb_buf *b, uint32_t t, unsigned id, uint32_t def)
{
    uint32_t f = fb_field_pos(b, t, id);
    return f ? fb_u32(b, f) : def;
}
static inline uint64_t fb_get_u64(const fb_buf *b, uint32_t t, unsigned id, uint64_t def)
{
    uint32_t f = fb_field_pos(b, t, id);
    return f ? fb_u64(b, f) : def;
}
static inline int64_t fb_get_i64(const fb_buf *b, uint32_t t, unsigned id, int64_t def)
{
    uint32_t f = fb_field_pos(b, t, id);
    return f ? (int64_t)fb_u64(b, f) : def;
}
static inline uint8_t fb_get_u8(const fb_buf *b, uint32_t t, unsigned id, uint8_t def)
{
    uint32_t f = fb_field_pos(b, t, id);
    return f ? fb_u8(b, f) : def;
}
static inline double fb_get_f64(const fb_buf *b, uint32_t t, unsigned id, double def)
{
    uint32_t f = fb_field_pos(b, t, id);
    if (!f)
        return def;
    double v;
    memcpy(&v, b->p + f, 8);
    return v;
}

/* Vector helpers: @p vec is the position of the vector's length word. */
static inline uint32_t fb_vec_len(const fb_buf *b, uint32_t vec) { return vec ? fb_u32(b, vec) : 0; }
/* Element @p i of a vector of tables or strings: its position. */
static inline uint32_t fb_vec_ref(const fb_buf *b, uint32_t vec, uint32_t i)
{
    return fb_deref(b, vec + 4 + 4 * i);
}
/* Start of a vector's element bytes. */
static inline const uint8_t *fb_vec_data(const fb_buf *b, uint32_t vec) { return b->p + vec + 4; }

/* A string field: pointer to its NUL-terminated bytes (or NULL) and length. */
static inline const char *fb_str(const fb_buf *b, uint32_t spos, uint32_t *len)
{
    if (!spos) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = fb_u32(b, spos);
    return (const char *)b->p + spos + 4;
}

#endif
