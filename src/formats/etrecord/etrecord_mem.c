/* etrecord_mem.c - the arena that owns everything an etp_etrecord points to,
 * so freeing a record is one walk, and small growable pointer lists. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "formats/etrecord/etrecord_internal.h"

/* Chunks are linked newest first; a request larger than the next shared
 * chunk gets a chunk of its own. Shared chunks double from 64 KiB to 4 MiB,
 * so a small record stays small and a big one (a 10k-node program holds
 * several MB of strings) needs few chunks, the big ones on huge pages. */
struct etr_chunk {
    etr_chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

#define ETR_CHUNK_MIN (64u * 1024u)
#define ETR_CHUNK_MAX (4u * 1024u * 1024u)
#define ETR_HUGE_PAGE (2u * 1024u * 1024u)

void etr_hint_huge_pages(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    /* only whole huge pages inside the range can be backed by one */
    uintptr_t from = ((uintptr_t)p + ETR_HUGE_PAGE - 1) & ~(uintptr_t)(ETR_HUGE_PAGE - 1);
    uintptr_t to = ((uintptr_t)p + n) & ~(uintptr_t)(ETR_HUGE_PAGE - 1);
    if (to > from)
        (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

static etr_chunk *new_chunk(size_t cap)
{
    etr_chunk *c;
    if (cap >= ETR_HUGE_PAGE) {
        void *m = NULL;
        if (posix_memalign(&m, ETR_HUGE_PAGE, sizeof *c + cap))
            return NULL;
        c = m;
        etr_hint_huge_pages(c, sizeof *c + cap);
    } else if (!(c = malloc(sizeof *c + cap))) {
        return NULL;
    }
    c->used = 0;
    c->cap = cap;
    return c;
}

/* @p n bytes, 16-byte aligned, not zeroed. */
static void *arena_take(etr_arena *a, size_t n)
{
    if (n > SIZE_MAX - 15 - sizeof(etr_chunk))
        return NULL;
    size_t need = (n + 15) & ~(size_t)15;
    if (need == 0)
        need = 16;
    etr_chunk *c = a->head;
    if (!c || c->cap - c->used < need) {
        size_t shared = a->next_cap ? a->next_cap : ETR_CHUNK_MIN;
        int own = need > shared;
        etr_chunk *nc = new_chunk(own ? need : shared);
        if (!nc)
            return NULL;
        /* A dedicated big chunk goes behind the current one so the current
         * chunk's free space stays usable. */
        if (c && own) {
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
            a->next_cap = shared < ETR_CHUNK_MAX ? shared * 2 : ETR_CHUNK_MAX;
        }
        c = nc;
    }
    void *p = c->data + c->used;
    c->used += need;
    return p;
}

void *etr_alloc(etr_arena *a, size_t n)
{
    void *p = arena_take(a, n);
    if (p)
        memset(p, 0, n);
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
    char *d = arena_take(a, n + 1); /* every byte is written: no zeroing */
    if (d) {
        if (n)
            memcpy(d, s, n);
        d[n] = '\0';
    }
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
    a->next_cap = 0;
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
