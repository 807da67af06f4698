/* hashmap.c - open-addressing hash map (linear probing). */
#include "util/hashmap.h"

#include <stdlib.h>

static uint64_t fix(uint64_t h) { return h ? h : 0x9e3779b97f4a7c15ull; }

void etp_hm_init(etp_hm *m)
{
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->len = 0;
}

void etp_hm_free(etp_hm *m)
{
    free(m->keys);
    free(m->vals);
    etp_hm_init(m);
}

static int grow(etp_hm *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    uint64_t *nk = calloc(ncap, sizeof *nk);
    uint32_t *nv = malloc(ncap * sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = m->keys[i] & (ncap - 1);
        while (nk[j])
            j = (j + 1) & (ncap - 1);
        nk[j] = m->keys[i];
        nv[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
    return 0;
}

int etp_hm_put(etp_hm *m, uint64_t hash, uint32_t val)
{
    if ((m->len + 1) * 4 > m->cap * 3 && grow(m))
        return -1;
    hash = fix(hash);
    size_t j = hash & (m->cap - 1);
    while (m->keys[j])
        j = (j + 1) & (m->cap - 1);
    m->keys[j] = hash;
    m->vals[j] = val;
    m->len++;
    return 0;
}

int etp_hm_next(const etp_hm *m, uint64_t hash, size_t *cursor, uint32_t *val)
{
    if (!m->cap)
        return 0;
    hash = fix(hash);
    /* cursor = number of probe steps already taken + 1 (0 = not started). */
    size_t step = *cursor;
    size_t j = (hash + step) & (m->cap - 1);
    while (m->keys[j]) {
        step++;
        if (m->keys[j] == hash) {
            *cursor = step;
            *val = m->vals[j];
            return 1;
        }
        j = (j + 1) & (m->cap - 1);
        if (step > m->cap)
            break;
    }
    *cursor = step;
    return 0;
}

uint64_t etp_hash_bytes(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    h ^= 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t etp_hash_u64(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return h;
}
