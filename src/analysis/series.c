/* series.c - per-execution sums and their statistics. */
#include "analysis/series.h"

#include <stdlib.h>
#include <string.h>

int etp_series_init(etp_series *s, uint32_t n)
{
    memset(s, 0, sizeof *s);
    /* One block: the sums, then the presence flags. */
    size_t m = n ? n : 1;
    uint64_t *block = calloc(1, m * sizeof *s->ticks + m);
    if (!block)
        return -1;
    s->ticks = block;
    s->present = (uint8_t *)(block + m);
    return 0;
}

void etp_series_free(etp_series *s)
{
    free(s->ticks); /* present lives in the same block */
    s->ticks = NULL;
    s->present = NULL;
}

void etp_series_merge(etp_series *dst, const etp_series *src, uint32_t n)
{
    for (uint32_t e = 0; e < n; e++)
        if (src->present[e]) {
            dst->ticks[e] += src->ticks[e];
            dst->present[e] = 1;
        }
    dst->events += src->events;
}

void etp_series_finish(etp_series *s, uint32_t n, double divisor, uint64_t *scratch)
{
    uint32_t k = 0;
    for (uint32_t e = 0; e < n; e++)
        if (s->present[e])
            scratch[k++] = s->ticks[e];
    s->executions = k;
    etp_stats_from_ticks(scratch, k, divisor, &s->stats);
}

int etp_series_same_coverage(const etp_series *a, const etp_series *b, uint32_t n)
{
    return memcmp(a->present, b->present, n) == 0;
}
