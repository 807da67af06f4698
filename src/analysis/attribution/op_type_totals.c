/* op_type_totals.c - totals per operator type (a->op_type_totals): over the
 * source operators when any of them is timed, else over the instructions.
 * Only additive averages measured in every execution are added, in the
 * order of the entities' ids so that every reader gets the same last digit;
 * shared and non-additive timings, and those of fewer executions (a sum
 * over different coverage is no total), are counted, and the largest of
 * them kept, never added. */
#include <stdlib.h>
#include <string.h>

#include "analysis/attribution/analysis_internal.h"
#include "util/hashmap.h"

static const char *type_of(const etp_entity *e) { return e->op_type ? e->op_type : ""; }

static int by_type(const void *x, const void *y)
{
    return strcmp(type_of(*(const etp_entity *const *)x), type_of(*(const etp_entity *const *)y));
}

/* Its average may be added to the type's total. */
static int summable(const etp_analysis *a, const etp_entity *e)
{
    return e->additive && e->time.executions == a->execution_count;
}

static int by_id(const void *x, const void *y)
{
    return strcmp((*(const etp_entity *const *)x)->id, (*(const etp_entity *const *)y)->id);
}

/* A hash of a type name good enough to find its group among a few (the
 * candidates are compared whole): its length and its first and last
 * eight bytes, not every byte of every entity's type. */
static uint64_t type_hash(const char *t)
{
    size_t n = strlen(t);
    uint64_t head = 0, tail = 0;
    memcpy(&head, t, n < 8 ? n : 8);
    if (n > 8)
        memcpy(&tail, t + n - 8, 8);
    return etp_hash_u64(etp_hash_u64(n, head), tail);
}

/* The group of each wanted entity (@p group[i], UINT32_MAX for the others)
 * and one representative entity per group (@p first); returns the number of
 * groups, or -1 when out of memory. */
static int64_t group_by_type(const etp_abuild *b, etp_entity_kind want, uint32_t *group,
                             const etp_entity **first)
{
    etp_hm types;
    etp_hm_init(&types);
    uint32_t ng = 0, prev = UINT32_MAX;
    for (uint32_t i = 0; i < (uint32_t)b->ents.n; i++) {
        const etp_entity *e = &b->ents.v[i];
        group[i] = UINT32_MAX;
        if (e->kind != want)
            continue;
        const char *t = type_of(e);
        if (prev != UINT32_MAX && !strcmp(type_of(first[prev]), t)) {
            group[i] = prev; /* runs of one type are common */
            continue;
        }
        uint64_t h = type_hash(t);
        size_t cur = 0;
        uint32_t g;
        int found = 0;
        while (!found && etp_hm_next(&types, h, &cur, &g))
            found = !strcmp(type_of(first[g]), t);
        if (!found) {
            if (etp_hm_put(&types, h, ng)) {
                etp_hm_free(&types);
                return -1;
            }
            g = ng;
            first[ng++] = e;
        }
        group[i] = prev = g;
    }
    etp_hm_free(&types);
    return ng;
}

etp_status etp_compute_op_type_totals(etp_abuild *b)
{
    etp_analysis *a = b->a;
    uint32_t n = (uint32_t)b->ents.n;
    int ops = 0;
    for (uint32_t i = 0; i < n && !ops; i++)
        ops = b->ents.v[i].kind == ETP_ENTITY_OPERATOR && b->ents.v[i].time.executions;
    a->op_type_kind = ops ? ETP_ENTITY_OPERATOR : ETP_ENTITY_INSTRUCTION;
    const etp_figure *ex = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    double exec_avg = ex && ex->available ? ex->stats.avg : 0;

    uint32_t *group = malloc(((size_t)n + 1) * sizeof *group);
    const etp_entity **first = malloc(((size_t)n + 1) * sizeof *first);
    const etp_entity **added = malloc(((size_t)n + 1) * sizeof *added);
    uint32_t *rank = NULL, *start = NULL;
    int64_t ng = group && first && added ? group_by_type(b, a->op_type_kind, group, first) : -1;
    if (ng >= 0) {
        rank = malloc(((size_t)ng + 1) * sizeof *rank);
        start = calloc((size_t)ng + 2, sizeof *start);
        a->op_type_totals = calloc((size_t)ng + 1, sizeof *a->op_type_totals);
    }
    if (ng < 0 || !rank || !start || !a->op_type_totals) {
        free(group);
        free(first);
        free(added);
        free(rank);
        free(start);
        return etp_abuild_oom(b);
    }
    /* Groups in the order of their type names. */
    qsort(first, (size_t)ng, sizeof *first, by_type);
    for (uint32_t g = 0; g < (uint32_t)ng; g++) {
        const etp_entity *e = first[g];
        rank[group[e - b->ents.v]] = g;
        a->op_type_totals[g].op_type = *type_of(e) ? e->op_type : NULL;
    }
    a->op_type_total_count = (uint32_t)ng;
    /* Count every member; bucket the additive timed ones by group. */
    for (uint32_t i = 0; i < n; i++) {
        if (group[i] == UINT32_MAX)
            continue;
        const etp_entity *e = &b->ents.v[i];
        etp_op_type_total *t = &a->op_type_totals[group[i] = rank[group[i]]];
        t->members++;
        if (!e->time.executions)
            continue;
        t->timed++;
        if (summable(a, e)) {
            start[group[i] + 1]++;
        } else {
            t->not_summed++;
            t->largest_not_summed = e->time.stats.avg > t->largest_not_summed ? e->time.stats.avg
                                                                               : t->largest_not_summed;
        }
    }
    for (uint32_t g = 0; g < (uint32_t)ng; g++)
        start[g + 1] += start[g];
    for (uint32_t i = 0; i < n; i++)
        if (group[i] != UINT32_MAX && b->ents.v[i].time.executions && summable(a, &b->ents.v[i]))
            added[start[group[i]]++] = &b->ents.v[i];
    /* start[g] is now the end of group g's bucket (and the start of g + 1's). */
    for (uint32_t g = 0, from = 0; g < (uint32_t)ng; from = start[g++]) {
        etp_op_type_total *t = &a->op_type_totals[g];
        qsort(added + from, start[g] - from, sizeof *added, by_id);
        for (uint32_t k = from; k < start[g]; k++)
            t->sum_avg += added[k]->time.stats.avg;
        t->has_share = exec_avg > 0;
        t->share_pct = t->has_share ? 100.0 * t->sum_avg / exec_avg : 0;
    }
    free(group);
    free(first);
    free(added);
    free(rank);
    free(start);
    return ETP_OK;
}
