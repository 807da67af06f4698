/* series.c - per-execution sums and their statistics. */
#include "analysis/series.h"

#include <stdlib.h>
#include <string.h>

int etp_series_init(etp_series *s, uint32_t n)
{
    memset(s, 0, sizeof *s);
    s->ticks = calloc(n ? n : 1, sizeof *s->ticks);
    s->present = calloc(n ? n : 1, 1);
    if (!s->ticks || !s->present) {
        etp_series_free(s);
        return -1;
    }
    return 0;
}

void etp_series_free(etp_series *s)
{
    free(s->ticks);
    free(s->present);
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

int etp_series_finish(etp_series *s, uint32_t n, double divisor)
{
    uint32_t k = 0;
    for (uint32_t e = 0; e < n; e++)
        k += s->present[e];
    s->executions = k;
    memset(&s->stats, 0, sizeof s->stats);
    if (!k)
        return 0;
    uint64_t *tmp = malloc(k * sizeof *tmp);
    if (!tmp)
        return -1;
    k = 0;
    for (uint32_t e = 0; e < n; e++)
        if (s->present[e])
            tmp[k++] = s->ticks[e];
    etp_stats_from_ticks(tmp, k, divisor, &s->stats);
    free(tmp);
    return 0;
}

int etp_series_same_coverage(const etp_series *a, const etp_series *b, uint32_t n)
{
    return memcmp(a->present, b->present, n) == 0;
}
