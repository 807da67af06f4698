/* report_entity_keys.c - entities found by their (chain, instruction): the
 * entity of a drawn instruction node, the delegate events of a drawn
 * delegate call. One sort, then a binary search per node instead of a pass
 * over every entity. */
#include <stdlib.h>

#include "outputs/report/report_internal.h"

static int cmp_position(const rp_ent_key *a, int32_t chain, int32_t instr)
{
    if (a->chain != chain)
        return a->chain < chain ? -1 : 1;
    return (a->instr > instr) - (a->instr < instr);
}

/* Entity order breaks ties, so the sort is stable by construction. */
static int cmp_key(const void *x, const void *y)
{
    const rp_ent_key *a = x, *b = y;
    int c = cmp_position(a, b->chain, b->instr);
    if (c)
        return c;
    return (a->e > b->e) - (a->e < b->e);
}

rp_ent_key *rp_entity_keys(const etp_analysis *a, etp_entity_kind kind, size_t *n)
{
    rp_ent_key *k = malloc((a->entity_count + 1) * sizeof *k);
    *n = 0;
    if (!k)
        return NULL;
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind == kind)
            k[(*n)++] = (rp_ent_key){e->chain, e->instruction, e};
    }
    if (*n)
        qsort(k, *n, sizeof *k, cmp_key);
    return k;
}

size_t rp_entity_keys_lower(const rp_ent_key *k, size_t n, int32_t chain, int32_t instr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_position(&k[mid], chain, instr) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
