/* etrecord_mem.c - the arena that owns everything an etp_etrecord points to,
 * so freeing a record is one walk, and small growable pointer lists. */
#include <stdlib.h>
#include <string.h>

#include "formats/etrecord_internal.h"

/* Chunks are linked newest first; a request larger than the default chunk
 * gets a chunk of its own. */
struct etr_chunk {
    etr_chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

#define ETR_CHUNK_DEFAULT (64u * 1024u)

void *etr_alloc(etr_arena *a, size_t n)
{
    if (n > SIZE_MAX - 15 - sizeof(etr_chunk))
        return NULL;
    size_t need = (n + 15) & ~(size_t)15;
    if (need == 0)
        need = 16;
    etr_chunk *c = a->head;
    if (!c || c->cap - c->used < need) {
        size_t cap = need > ETR_CHUNK_DEFAULT ? need : ETR_CHUNK_DEFAULT;
        etr_chunk *nc = malloc(sizeof *nc + cap);
        if (!nc)
            return NULL;
        nc->used = 0;
        nc->cap = cap;
        /* A dedicated big chunk goes behind the current one so the current
         * chunk's free space stays usable. */
        if (c && need > ETR_CHUNK_DEFAULT) {
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
    }
    void *p = c->data + c->used;
    c->used += need;
    memset(p, 0, need);
    return p;
}

void *etr_alloc_array(etr_arena *a, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    return etr_alloc(a, count * size);
}

char *etr_strndup(etr_arena *a, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        return NULL;
    char *d = etr_alloc(a, n + 1);
    if (d && n)
        memcpy(d, s, n);
    return d;
}

char *etr_strdup(etr_arena *a, const char *s)
{
    return s ? etr_strndup(a, s, strlen(s)) : NULL;
}

void etr_arena_free(etr_arena *a)
{
    etr_chunk *c = a->head;
    while (c) {
        etr_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
}

int etr_ptrvec_push(etr_ptrvec *pv, const void *p, uint32_t max)
{
    if (pv->n >= max)
        return -1;
    if (pv->n == pv->cap) {
        uint32_t cap = pv->cap ? pv->cap * 2 : 8;
        if (cap > max)
            cap = max;
        const void **nv = realloc(pv->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return -1;
        pv->v = nv;
        pv->cap = cap;
    }
    pv->v[pv->n++] = p;
    return 0;
}

const void **etr_ptrvec_commit(etr_ptrvec *pv, etr_arena *a, uint32_t *count, int *oom)
{
    *count = 0;
    if (pv->n == 0)
        return NULL;
    const void **out = etr_alloc_array(a, pv->n, sizeof *out);
    if (!out) {
        *oom = 1;
        pv->n = 0;
        return NULL;
    }
    memcpy(out, pv->v, (size_t)pv->n * sizeof *out);
    *count = pv->n;
    pv->n = 0;
    return out;
}

void etr_ptrvec_free(etr_ptrvec *pv)
{
    free(pv->v);
    pv->v = NULL;
    pv->n = pv->cap = 0;
}

int etr_parse_int64(const char *s, int64_t *out)
{
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (*s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (limit - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return 0;
}
