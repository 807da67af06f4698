/* diff_arena.c - the memory a diff owns, released in one go. */
#include <stdlib.h>

#include "analysis/diff/diff_internal.h"
#include "util/str.h"

void *etp_diff_own(etp_diff_arena *a, void *p)
{
    if (!p) {
        a->failed = 1;
        return NULL;
    }
    if (a->count == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 64;
        void **nb = realloc(a->blocks, nc * sizeof *nb);
        if (!nb) {
            free(p);
            a->failed = 1;
            return NULL;
        }
        a->blocks = nb;
        a->cap = nc;
    }
    a->blocks[a->count++] = p;
    return p;
}

const char *etp_diff_strdup(etp_diff_arena *a, const char *s)
{
    return s ? etp_diff_own(a, etp_strdup(s)) : NULL;
}

void etp_diff_arena_free(etp_diff_arena *a)
{
    for (size_t i = 0; i < a->count; i++)
        free(a->blocks[i]);
    free(a->blocks);
    a->blocks = NULL;
    a->count = a->cap = 0;
}
