/* diff_rank.c - the order in which tables show a diff's entity rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/diff_io.h"

static const char *const rank_names[] = {"abs", "delta", "ratio", "base", "new"};
#define RANK_COUNT (sizeof rank_names / sizeof rank_names[0])

int etp_diff_rank_parse(const char *s, etp_diff_rank *out)
{
    for (size_t i = 0; i < RANK_COUNT; i++)
        if (!strcmp(s, rank_names[i])) {
            *out = (etp_diff_rank)i;
            return 0;
        }
    return -1;
}

const char *etp_diff_rank_name(etp_diff_rank rank)
{
    return (unsigned)rank < RANK_COUNT ? rank_names[rank] : "?";
}

typedef struct rank_ctx {
    const etp_diff *d;
    etp_diff_rank rank;
} rank_ctx;

/* The sort key of a row; rows without one (-inf) go last. */
static double key_of(const etp_diff_row *r, etp_diff_rank k)
{
    switch (k) {
    case ETP_DIFF_RANK_ABS: return r->has_delta ? fabs(r->delta) : -INFINITY;
    case ETP_DIFF_RANK_DELTA: return r->has_delta ? r->delta : -INFINITY;
    case ETP_DIFF_RANK_RATIO: return r->has_ratio ? r->ratio : -INFINITY;
    case ETP_DIFF_RANK_BASE: return r->base.available ? r->base.value : -INFINITY;
    case ETP_DIFF_RANK_NEW: return r->new_.available ? r->new_.value : -INFINITY;
    }
    return -INFINITY;
}

/* qsort has no context argument in C11: sort (key, index) pairs. */
typedef struct keyed {
    double key;
    uint32_t kind, index;
    const char *name;
} keyed;

static int cmp_keyed(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

uint32_t *etp_diff_ranked(const etp_diff *d, etp_diff_rank rank, uint32_t *count, int *failed)
{
    *count = 0;
    if (failed)
        *failed = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->row_count; i++)
        n += d->rows[i].kind != ETP_DIFF_MODEL;
    if (!n)
        return NULL;
    keyed *k = malloc(n * sizeof *k);
    uint32_t *out = malloc(n * sizeof *out);
    if (!k || !out) {
        free(k);
        free(out);
        if (failed)
            *failed = 1;
        return NULL;
    }
    uint32_t j = 0;
    for (uint32_t i = 0; i < d->row_count; i++) {
        const etp_diff_row *r = &d->rows[i];
        if (r->kind == ETP_DIFF_MODEL)
            continue;
        k[j].key = key_of(r, rank);
        k[j].kind = (uint32_t)r->kind;
        k[j].index = i;
        k[j].name = r->key;
        j++;
    }
    qsort(k, n, sizeof *k, cmp_keyed);
    for (uint32_t i = 0; i < n; i++)
        out[i] = k[i].index;
    free(k);
    *count = n;
    return out;
}
