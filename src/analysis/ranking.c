/* ranking.c - the entities an analysis ranks first (etp_analysis_top): the
 * source operators when any was timed, else the instructions, by average
 * time per execution (or its median or maximum: --rank-by). Every output that lists "top operators" uses it, so
 * they all rank the same way. */
#include <stdlib.h>
#include <string.h>

#include "etprof/analysis.h"

const char *etp_rank_key_name(etp_rank_key k)
{
    return k == ETP_RANK_P50 ? "p50" : k == ETP_RANK_MAX ? "max" : "avg";
}

static double rank_value(const etp_entity *e, etp_rank_key k)
{
    return k == ETP_RANK_P50 ? e->time.stats.p50 : k == ETP_RANK_MAX ? e->time.stats.max : e->time.stats.avg;
}

/* qsort has no context argument: one key per sort, set just before it
 * (thread-local, so analyses ranked on different threads do not mix). */
static _Thread_local etp_rank_key sort_key;

static int by_key_desc(const void *x, const void *y)
{
    const etp_entity *a = *(const etp_entity *const *)x, *b = *(const etp_entity *const *)y;
    double va = rank_value(a, sort_key), vb = rank_value(b, sort_key);
    if (va != vb)
        return va < vb ? 1 : -1;
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
    sort_key = a->rank_by;
    qsort(v, n, sizeof *v, by_key_desc);
    *count = n;
    return v;
}
