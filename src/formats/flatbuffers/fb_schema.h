/*
 * fb_schema.h - table descriptions that drive verification and JSON dumps.
 *
 * Each FlatBuffers schema etprof reads (ETDump, program, bundled program) is
 * described once as static fb_table arrays (etdump_schema.c, ...). Two
 * generic walkers use them:
 *   - fb_verify(): the full bounds/alignment/UTF-8-independent check of every
 *     reachable object, run before any typed accessor touches the tree;
 *   - fb_dump_json(): the lossless JSON view, shaped like
 *     `flatc --json --strict-json --defaults-json` output for the same schema.
 */
#ifndef ETP_FB_SCHEMA_H
#define ETP_FB_SCHEMA_H

#include "etprof/error.h"
#include "formats/flatbuffers/fb.h"
#include "util/jsonw.h"

typedef enum fb_kind {
    FB_BOOL = 1, FB_I8, FB_U8, FB_I16, FB_U16, FB_I32, FB_U32, FB_I64, FB_U64, FB_F32, FB_F64,
    FB_STR,    /* string */
    FB_TABLE,  /* sub-table */
    FB_VEC,    /* vector; element kind in fb_field.elem */
    FB_UTYPE,  /* union type tag (u8); the value field follows it */
    FB_UNION   /* union value; its tag is the previous field */
} fb_kind;

typedef struct fb_enum {
    const char *name;
    int count;
    const int64_t *values;
    const char *const *names;
} fb_enum;

struct fb_table;

typedef struct fb_union {
    const char *name;
    int count;                            /* members, including NONE at 0 */
    const char *const *names;             /* names[type] */
    const struct fb_table *const *tables; /* tables[type]; NULL at 0 */
} fb_union;

typedef struct fb_field {
    const char *name;
    uint8_t kind;                /* fb_kind */
    uint8_t elem;                /* element kind for FB_VEC */
    const struct fb_table *table; /* FB_TABLE, or FB_VEC of FB_TABLE */
    const fb_enum *enm;          /* enum-typed scalars (and FB_UTYPE names via un) */
    const fb_union *un;          /* FB_UTYPE / FB_UNION */
    int64_t idef;                /* default for integer kinds */
    double fdef;                 /* default for float kinds */
} fb_field;

typedef struct fb_table {
    const char *name;
    int count;
    const fb_field *fields; /* fields[id] */
} fb_table;

/* Caps applied while walking untrusted trees. */
typedef struct fb_limits {
    int max_depth;          /* nesting of tables/vectors */
    uint64_t max_visits;    /* objects visited (guards against shared-subtree blowup) */
} fb_limits;

/* Default caps: depth 64, visits bounded by the buffer size. */
fb_limits fb_default_limits(uint32_t size);

/*
 * Check the root offset (at @p root_pos) and everything reachable from it
 * against @p root. On success *root_table is the root table position.
 * @p file names the input in errors; @p base_offset is added to reported
 * offsets (for buffers that start inside a file, e.g. after a size prefix).
 */
etp_status fb_verify(const fb_buf *b, uint32_t root_pos, const fb_table *root, fb_limits lim,
                     const char *file, int64_t base_offset, uint32_t *root_table, etp_error *err);

/*
 * fb_verify(), except that the elements of every vector described by
 * @p defer (one field of the schema) are left unvisited: the vectors
 * themselves are checked, their tables are not. The caller must check each
 * of those tables (fb_layout_of(), fb_verifier_table()) before reading it.
 */
etp_status fb_verify_deferring(const fb_buf *b, uint32_t root_pos, const fb_table *root,
                               fb_limits lim, const char *file, int64_t base_offset,
                               const fb_field *defer, uint32_t *root_table, etp_error *err);

/* The target of the uoffset at @p pos when fb_verify() would follow it
 * (aligned, non-zero, inside the buffer), else 0. The caller knows that
 * pos + 4 is inside the buffer. */
static inline uint32_t fb_checked_ref(const fb_buf *b, uint32_t pos)
{
    uint32_t rel = fb_u32(b, pos);
    uint64_t to = (uint64_t)pos + rel;
    return pos % 4 == 0 && rel != 0 && to < b->size ? (uint32_t)to : 0;
}

/* Whether fb_verify() accepts the string at @p s (aligned, its length and
 * NUL terminator inside the buffer). */
static inline int fb_checked_string(const fb_buf *b, uint32_t s)
{
    if (s % 4 || (uint64_t)s + 4 > b->size)
        return 0;
    uint64_t nul = (uint64_t)s + 4 + fb_u32(b, s);
    return nul < b->size && b->p[nul] == 0;
}

/*
 * Where the fields of one table are, checked the way fb_verify() checks a
 * table itself (its vtable, the bounds and alignment of each field; not
 * what its references point to). It holds for every table of the same type
 * with the same vtable (vt), the same position mod 8 (tmod8) and room for
 * max_end bytes: a reader can check those three facts per table instead.
 */
#define FB_LAYOUT_FIELDS 16
typedef struct fb_layout {
    uint32_t vt;
    uint32_t tmod8;
    uint32_t max_end;
    uint16_t off[FB_LAYOUT_FIELDS]; /* per field id: offset from the table, 0 if absent */
} fb_layout;

/* Check the table at @p t (of a type with at most FB_LAYOUT_FIELDS fields)
 * and fill @p out: 0, or -1 where fb_verify() would fail on the table. */
int fb_layout_of(const fb_buf *b, uint32_t t, const fb_table *d, fb_layout *out);

/* fb_verify()'s walk for single subtrees, with one budget of visits and one
 * layout cache across calls (one verifier per thread). */
typedef struct fb_verifier fb_verifier;
fb_verifier *fb_verifier_new(const fb_buf *b, fb_limits lim, const char *file, int64_t base_offset);
/* Verify the table at @p t (type @p d, nested @p depth deep in its tree)
 * and everything it references, as fb_verify() would there. */
etp_status fb_verifier_table(fb_verifier *v, uint32_t t, const fb_table *d, int depth,
                             etp_error *err);
/* The tables visited so far, on one budget with fb_limits.max_visits; a
 * caller that checks some tables itself keeps the count with these. */
uint64_t fb_verifier_visits(const fb_verifier *v);
void fb_verifier_set_visits(fb_verifier *v, uint64_t visits);
void fb_verifier_free(fb_verifier *v);

/* Write the table at @p table as JSON in flatc's --defaults-json shape. */
void fb_dump_json(const fb_buf *b, uint32_t table, const fb_table *desc, etp_jw *w);

/* Name of enum value @p v, or NULL. */
const char *fb_enum_name(const fb_enum *e, int64_t v);

#endif
