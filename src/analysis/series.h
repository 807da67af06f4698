/* series.h - per-execution sums of one entity (etp_series helpers). */
#ifndef ETP_SERIES_H
#define ETP_SERIES_H

#include "etprof/analysis.h"

/* Allocate storage for @p n executions. 0 on success. */
int etp_series_init(etp_series *s, uint32_t n);
void etp_series_free(etp_series *s);
/* Add @p ticks of one event to execution @p e. */
static inline void etp_series_add(etp_series *s, uint32_t e, uint64_t ticks)
{
    s->ticks[e] += ticks;
    s->present[e] = 1;
    s->events++;
}
/* Add every execution of @p src into @p dst (events counted too). */
void etp_series_merge(etp_series *dst, const etp_series *src, uint32_t n);
/* Count present executions and compute stats (target unit). @p scratch
 * holds @p n values (the samples are sorted there). */
void etp_series_finish(etp_series *s, uint32_t n, double divisor, uint64_t *scratch);
/* 1 when @p a and @p b are present in exactly the same executions. */
int etp_series_same_coverage(const etp_series *a, const etp_series *b, uint32_t n);

#endif
