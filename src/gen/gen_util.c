/* gen_util.c - arena, growable arrays and file output for the generators. */
#include "gen/gen_util.h"

#include "formats/flatbuffers/schemas.h"
#include "gen/fbbuild.h"
#include "util/atomic_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gen_arena_block {
    struct gen_arena_block *next;
    size_t used, cap;
    /* 8-aligned storage follows */
    uint64_t data[];
};

#define ARENA_BLOCK (64u * 1024u)

void gen_arena_free(gen_arena *a)
{
    struct gen_arena_block *b = a->head;
    while (b) {
        struct gen_arena_block *n = b->next;
        free(b);
        b = n;
    }
    a->head = NULL;
}

void *gen_alloc(gen_arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    struct gen_arena_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b) {
            a->failed = 1;
            return NULL;
        }
        b->used = 0;
        b->cap = cap;
        b->next = a->head;
        a->head = b;
    }
    void *p = (uint8_t *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *gen_printf(gen_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        a->failed = 1;
        return NULL;
    }
    char *p = gen_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void gen_vec_init(gen_vec *v, size_t item_size)
{
    memset(v, 0, sizeof *v);
    v->item_size = item_size;
}

void gen_vec_free(gen_vec *v)
{
    free(v->items);
    v->items = NULL;
    v->len = v->cap = 0;
}

static int vec_reserve(gen_vec *v, size_t n)
{
    if (v->failed)
        return -1;
    if (v->len + n <= v->cap)
        return 0;
    size_t cap = v->cap ? v->cap : 16;
    while (cap < v->len + n)
        cap *= 2;
    void *p = realloc(v->items, cap * v->item_size);
    if (!p) {
        v->failed = 1;
        return -1;
    }
    v->items = p;
    v->cap = cap;
    return 0;
}

void *gen_vec_push(gen_vec *v)
{
    if (vec_reserve(v, 1))
        return NULL;
    void *p = (uint8_t *)v->items + v->len * v->item_size;
    memset(p, 0, v->item_size);
    v->len++;
    return p;
}

void *gen_vec_extend(gen_vec *v, size_t n)
{
    if (vec_reserve(v, n))
        return NULL;
    void *p = (uint8_t *)v->items + v->len * v->item_size;
    memset(p, 0, n * v->item_size);
    v->len += n;
    return p;
}

size_t gen_vec_append(gen_vec *v, const void *src, size_t n)
{
    size_t at = v->len;
    if (!n || vec_reserve(v, n))
        return at;
    memcpy((uint8_t *)v->items + at * v->item_size, src, n * v->item_size);
    v->len += n;
    return at;
}

etp_status gen_write_file(const char *path, const void *data, size_t n, etp_error *err)
{
    etp_atomic_file f;
    etp_status s = etp_atomic_open(&f, path, err);
    if (s)
        return s;
    if (n && fwrite(data, 1, n, f.fp) != n) {
        etp_atomic_abort(&f);
        return etp_error_set(err, ETP_E_IO, path, ETP_NO_OFFSET, "write error");
    }
    return etp_atomic_commit(&f, err);
}

void gen_close_run(fbb *b, gen_vec *events, gen_vec *runs, const char *name)
{
    fbb_ref evs = fbb_vec_refs(b, (const fbb_ref *)events->items, events->len);
    fbb_ref nm = fbb_cstring(b, name);
    fbb_table_begin(b);
    fbb_add_ref(b, ETD_RUN_EVENTS, evs);
    fbb_add_ref(b, ETD_RUN_NAME, nm);
    fbb_ref run = fbb_table_end(b);
    gen_vec_append(runs, &run, 1);
    events->len = 0;
}

etp_status gen_write_etdump(fbb *b, const gen_vec *runs, int failed, const char *path, size_t *len,
                            etp_error *err)
{
    fbb_ref vec = fbb_vec_refs(b, (const fbb_ref *)runs->items, runs->len);
    fbb_table_begin(b);
    fbb_add_ref(b, ETD_ETDUMP_RUN_DATA, vec);
    fbb_ref root = fbb_table_end(b);
    if (failed || runs->failed || fbb_finish(b, root, "ED00", 1))
        return etp_error_set(err, ETP_E_LIMIT, path, ETP_NO_OFFSET, "cannot build ETDump: %s",
                             fbb_error(b) ? fbb_error(b) : "out of memory");
    const uint8_t *data = fbb_data(b, len);
    return gen_write_file(path, data, *len, err);
}
