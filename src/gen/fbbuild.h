/*
 * fbbuild.h - a small FlatBuffers builder (back to front, like every
 * FlatBuffers builder): what `etprof gen` writes ETDumps and programs with.
 *
 * Objects are appended in front of what is already built, so children are
 * created before their parents and the root last. An object is named by an
 * fbb_ref: its distance from the END of the buffer, which never changes as
 * the buffer grows. Alignment is computed from the end too; fbb_finish()
 * pads the front so the total size is a multiple of the largest alignment
 * used, which makes every position aligned relative to the START of the
 * final bytes (including a size prefix), as FlatCC lays ETDumps out.
 *
 * Tables: fbb_table_begin(), then fbb_add_*() for each field (scalars equal
 * to their schema default are omitted, like the runtime's writer does), then
 * fbb_table_end(). Add the widest fields first (8-byte before 4-byte before
 * 1-byte) to avoid padding. Strings and vectors cannot be created while a
 * table is open. Identical vtables are shared (looked up in a hash table).
 * A union field is two fields: its type tag (fbb_add_u8 at id n-1) and its
 * value (fbb_add_ref at id n), as flatc lays unions out.
 *
 * Errors are sticky: after an allocation failure, a size overflow or API
 * misuse, calls do nothing and fbb_error() says what went wrong. Check it
 * once after fbb_finish().
 */
#ifndef ETP_FBBUILD_H
#define ETP_FBBUILD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "etprof's FlatBuffers builder assumes a little-endian host"
#endif

/* Position of an object counted from the end of the buffer; 0 means none. */
typedef uint32_t fbb_ref;

/* Most fields a table may have (the largest schema etprof writes has 10). */
#define FBB_MAX_FIELDS 64
/* A FlatBuffer is addressed with 32-bit offsets. */
#define FBB_MAX_SIZE ((size_t)UINT32_MAX - 64)

typedef struct fbb {
    uint8_t *buf;      /* allocation; the data is its last `size` bytes */
    size_t cap;
    size_t size;
    size_t minalign;   /* largest alignment requested so far */
    const char *error; /* sticky failure message, or NULL */
    /* the table being built */
    int in_table;
    size_t table_start;
    int nfields;
    int max_id;
    uint16_t field_id[FBB_MAX_FIELDS];
    uint32_t field_pos[FBB_MAX_FIELDS];
    /* vtable cache: open-addressed hash set of vtable positions */
    uint32_t *vt_slots;
    size_t vt_mask;
    size_t vt_count;
} fbb;

/* Start an empty builder with room for @p initial_cap bytes (0 = small).
 * Returns 0, or -1 if the first allocation failed (fbb_error says so). */
int fbb_init(fbb *b, size_t initial_cap);
/* Release the builder's memory. Safe on a zeroed struct. */
void fbb_free(fbb *b);
/* Forget all content but keep the allocation (for building another buffer). */
void fbb_reset(fbb *b);
/* NULL while everything succeeded, else a constant message. */
const char *fbb_error(const fbb *b);

/* Make room for @p n more bytes in front (slow path of fbb_ensure). */
int fbb_grow(fbb *b, size_t n);
/* Pad with zeros so that after @p extra more bytes the size is a multiple
 * of @p align (a power of two <= 16). */
void fbb_prep(fbb *b, size_t align, size_t extra);
/* Raise the alignment the finished buffer's size will be a multiple of. */
void fbb_force_minalign(fbb *b, size_t align);

static inline int fbb_ensure(fbb *b, size_t n)
{
    if (b->error)
        return -1;
    if (b->cap - b->size >= n)
        return 0;
    return fbb_grow(b, n);
}

/* Prepend @p n raw bytes (no alignment). Returns where they went, or NULL. */
static inline uint8_t *fbb_push_bytes(fbb *b, const void *p, size_t n)
{
    if (fbb_ensure(b, n))
        return NULL;
    b->size += n;
    uint8_t *dst = b->buf + b->cap - b->size;
    if (n)
        memcpy(dst, p, n);
    return dst;
}

/* Address of the object at @p ref (valid until the next push). */
static inline uint8_t *fbb_at(const fbb *b, fbb_ref ref) { return b->buf + b->cap - ref; }

/* Strings: UTF-8 bytes, length-prefixed and NUL-terminated. */
fbb_ref fbb_string(fbb *b, const char *s, size_t len);
fbb_ref fbb_cstring(fbb *b, const char *s);

/* A vector of @p count scalars of @p elem_size bytes each, copied from @p
 * data (little-endian host layout). @p data may be NULL for zero bytes. */
fbb_ref fbb_vec_scalars(fbb *b, const void *data, size_t count, size_t elem_size);
/* A vector of offsets to already-built objects (tables or strings). */
fbb_ref fbb_vec_refs(fbb *b, const fbb_ref *refs, size_t count);

/* Tables. Field ids are the schema declaration order. */
void fbb_table_begin(fbb *b);
void fbb_add_u8(fbb *b, int id, uint8_t v, uint8_t def);
void fbb_add_i8(fbb *b, int id, int8_t v, int8_t def);
void fbb_add_u16(fbb *b, int id, uint16_t v, uint16_t def);
void fbb_add_i32(fbb *b, int id, int32_t v, int32_t def);
void fbb_add_u32(fbb *b, int id, uint32_t v, uint32_t def);
void fbb_add_i64(fbb *b, int id, int64_t v, int64_t def);
void fbb_add_u64(fbb *b, int id, uint64_t v, uint64_t def);
void fbb_add_f64(fbb *b, int id, double v, double def);
/* An offset field (string, vector, sub-table, union value); ref 0 = absent. */
void fbb_add_ref(fbb *b, int id, fbb_ref ref);
/* Close the table: write (or reuse) its vtable. Returns the table's ref. */
fbb_ref fbb_table_end(fbb *b);

/*
 * Finish the buffer with @p root as root table: optional 4-character file
 * @p ident, optional uint32 size prefix (the byte count that follows it).
 * Returns 0, or -1 when any earlier step failed.
 */
int fbb_finish(fbb *b, fbb_ref root, const char *ident, int size_prefixed);
/* The finished bytes (valid until the builder changes) and their count. */
const uint8_t *fbb_data(const fbb *b, size_t *len);

#endif
