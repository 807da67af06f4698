/* ranking.c - the entities an analysis ranks first (etp_analysis_top): the
 * source operators when any was timed, else the instructions, by average
 * time per execution. Every output that lists "top operators" uses it, so
 * they all rank the same way. */
#include <stdlib.h>
#include <string.h>

#include "etprof/analysis.h"

static int by_avg_desc(const void *x, const void *y)
{
    const etp_entity *a = *(const etp_entity *const *)x, *b = *(const etp_entity *const *)y;
    if (a->time.stats.avg != b->time.stats.avg)
        return a->time.stats.avg < b->time.stats.avg ? 1 : -1;
    return strcmp(a->id, b->id);
}

const etp_entity **etp_analysis_top(const etp_analysis *a, uint32_t *count)
{
    int have_ops = 0;
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (a->entities[i].kind == ETP_ENTITY_OPERATOR && a->entities[i].time.executions)
            have_ops = 1;
    etp_entity_kind want = have_ops ? ETP_ENTITY_OPERATOR : ETP_ENTITY_INSTRUCTION;
    const etp_entity **v = malloc((a->entity_count + 1) * sizeof *v);
    uint32_t n = 0;
    if (!v) {
        *count = 0;
        return NULL;
    }
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (a->entities[i].kind == want && a->entities[i].time.executions)
            v[n++] = &a->entities[i];
    qsort(v, n, sizeof *v, by_avg_desc);
    *count = n;
    return v;
}
