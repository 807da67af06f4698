/* rules_compute.c - hotspot.op_type: one operator type (over the source
 * operators when they are timed, else the instructions: the analysis' own
 * op-type totals) carries a large share of Method::execute. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings/findings_internal.h"

static int by_avg_desc(const void *x, const void *y)
{
    const etp_entity *a = *(const etp_entity *const *)x, *b = *(const etp_entity *const *)y;
    if (a->time.stats.avg != b->time.stats.avg)
        return a->time.stats.avg > b->time.stats.avg ? -1 : 1;
    return strcmp(a->id, b->id);
}

/* The timed members of type @p t, largest first, as affected entities. */
static etp_status name_members(finding_builder *b, const finding_ctx *c, const etp_op_type_total *t)
{
    const etp_analysis *a = c->a;
    const etp_entity **m = malloc(((size_t)t->members + 1) * sizeof *m);
    if (!m)
        return ETP_E_NOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->entity_count && n < t->members; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind == a->op_type_kind && e->op_type && !strcmp(e->op_type, t->op_type) && e->time.stats.n)
            m[n++] = e;
    }
    qsort(m, n, sizeof *m, by_avg_desc);
    for (uint32_t i = 0; i < n && i < FINDING_MAX_ENTITIES; i++)
        finding_entity(b, finding_kind_of(m[i]), m[i]->id, m[i]->name, t->op_type, m[i]);
    free(m);
    return ETP_OK;
}

/* The type is a delegate's (instructions typed by their delegate id): the
 * delegation findings speak of those. */
static int delegate_type(const etp_analysis *a, const char *type)
{
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (finding_is_delegate_call(&a->entities[i]) && a->entities[i].op_type &&
            !strcmp(a->entities[i].op_type, type))
            return 1;
    return 0;
}

etp_status findings_compute(finding_ctx *c)
{
    const etp_analysis *a = c->a;
    double min = finding_threshold(c, P_HOTSPOT_MIN_SHARE_PCT);
    /* With one operator type there is nothing to single out. */
    uint32_t types = 0;
    for (uint32_t i = 0; i < a->op_type_total_count; i++)
        types += a->op_type_totals[i].op_type && a->op_type_totals[i].timed &&
                 !delegate_type(a, a->op_type_totals[i].op_type);
    for (uint32_t i = 0; i < a->op_type_total_count && types >= 2; i++) {
        const etp_op_type_total *t = &a->op_type_totals[i];
        if (!t->op_type || !t->timed || !t->has_share || !c->execute || delegate_type(a, t->op_type))
            continue;
        finding_builder b;
        char v[48], e[48];
        const char *kind = a->op_type_kind == ETP_ENTITY_OPERATOR ? "source operator" : "instruction";
        if (t->timed == t->not_summed) {
            /* Nothing may be added; one member alone may still show the
             * pattern, and then the sum is held back rather than guessed. */
            double largest = finding_share(c, t->largest_not_summed);
            if (!(largest >= min))
                continue;
            finding_begin(&b, c, "hotspot.op_type", ETP_FINDING_WITHHELD);
            finding_message(&b, "%s: the timings of its %u %ss are shared or not additive, so their total is not "
                                "formed; the largest alone is %.1f%% of Method::execute",
                            t->op_type, t->timed, kind, largest);
            finding_value(&b, "largest_member_avg", t->largest_not_summed, c->unit, 0, "entity time (not added)");
        } else {
            if (!(t->share_pct >= min))
                continue;
            finding_begin(&b, c, "hotspot.op_type", ETP_FINDING_FIRED);
            if (t->not_summed)
                finding_message(&b, "%s: %u %ss take at least %s, %.1f%% of Method::execute's %s (%u more share "
                                    "timings and are not added)",
                                t->op_type, t->timed - t->not_summed, kind, finding_fmt(v, sizeof v, t->sum_avg, c->unit),
                                t->share_pct, finding_fmt(e, sizeof e, c->execute_avg, c->unit), t->not_summed);
            else
                finding_message(&b, "%s: %u %s%s take%s %s, %.1f%% of Method::execute's %s", t->op_type, t->timed,
                                kind, t->timed == 1 ? "" : "s", t->timed == 1 ? "s" : "",
                                finding_fmt(v, sizeof v, t->sum_avg, c->unit),
                                t->share_pct, finding_fmt(e, sizeof e, c->execute_avg, c->unit));
            finding_value(&b, "type_avg", t->sum_avg, c->unit, 1, "op-type total (summed members)");
            finding_value(&b, "type_share", t->share_pct, "%", 0, "op-type total / method_execute");
        }
        finding_value(&b, "members", t->members, "count", 0, "entities of the type");
        finding_value(&b, "not_summed", t->not_summed, "count", 0, "timed members never added (shared)");
        etp_status st = name_members(&b, c, t);
        if (st) {
            b.status = st;
        }
        st = finding_end(&b);
        if (st)
            return st;
    }
    return ETP_OK;
}
