/* rules_delegation.c - what ran inside delegates and what did not:
 * delegation.none, delegation.native_dominates, delegation.cpu_side_dominates
 * and delegation.fragmented. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings/findings_internal.h"
#include "util/jsonw.h"

/* The largest native instructions, as affected entities with role "native". */
static void name_kernels(finding_builder *b, const finding_ctx *c, uint32_t most)
{
    const etp_entity *const *k = c->top_kernels;
    for (uint32_t i = 0; i < c->top_count && i < most; i++)
        finding_entity(b, ETP_FE_INSTRUCTION, k[i]->id, k[i]->op_type ? k[i]->op_type : k[i]->name, "native",
                       k[i]);
}

/* "ID TYPE (value, share% of Method::execute)" of the largest kernel (the
 * type left out when unknown: no program). */
static void describe_largest(const finding_ctx *c, const etp_entity *e, char *buf, size_t n)
{
    char v[48], share[64] = "";
    double pct = finding_summable(c, e) ? finding_share(c, e->time.stats.avg) : NAN;
    if (!isnan(pct))
        snprintf(share, sizeof share, ", %.1f%% of Method::execute", pct);
    snprintf(buf, n, "%s%s%s (%s%s)", e->id, e->op_type ? " " : "", e->op_type ? e->op_type : "",
             finding_fmt(v, sizeof v, e->time.stats.avg, c->unit), share);
}

static etp_status rule_none(finding_ctx *c)
{
    uint32_t nk = c->kernels;
    if (c->delegate_calls || !nk)
        return ETP_OK;
    finding_builder b;
    finding_begin(&b, c, "delegation.none", ETP_FINDING_FIRED);
    const etp_figure *nf = etp_analysis_figure_by_id(c->a, ETP_FIG_OPERATOR_CALLS_TOTAL);
    char largest[256];
    describe_largest(c, c->top_kernels[0], largest, sizeof largest);
    if (nf && nf->available && c->execute) {
        char v[48], e[48];
        double share = finding_share(c, nf->stats.avg);
        finding_message(&b, "no delegate call ran: %u timed CPU kernel%s take%s %s of Method::execute's %s "
                            "(%.1f%%); the largest is %s",
                        nk, nk == 1 ? "" : "s", nk == 1 ? "s" : "", finding_fmt(v, sizeof v, nf->stats.avg, c->unit),
                        finding_fmt(e, sizeof e, c->execute_avg, c->unit), share, largest);
        finding_value(&b, "native_kernels_avg", nf->stats.avg, c->unit, nf->additive, "operator_calls_total");
        finding_value(&b, "native_share", share, "%", 0, "operator_calls_total / method_execute");
    } else {
        finding_message(&b, "no delegate call ran: every one of the %u timed instructions is a CPU kernel; the "
                            "largest is %s",
                        nk, largest);
    }
    finding_value(&b, "kernel_instructions", nk, "count", 0, "instructions with OPERATOR_CALL events");
    name_kernels(&b, c, 3);
    return finding_end(&b);
}

static etp_status rule_native_dominates(finding_ctx *c)
{
    if (!c->delegate_calls || !c->kernels || !c->execute)
        return ETP_OK;
    const etp_figure *nf = etp_analysis_figure_by_id(c->a, ETP_FIG_OPERATOR_CALLS_TOTAL);
    finding_builder b;
    if (!nf || !nf->available) {
        finding_begin(&b, c, "delegation.native_dominates", ETP_FINDING_WITHHELD);
        finding_message(&b, "the native kernels' total is not formed (%s), so their share of Method::execute "
                            "is not known",
                        nf && nf->reason ? nf->reason : "not computed");
        return finding_end(&b);
    }
    double share = finding_share(c, nf->stats.avg);
    double min = finding_threshold(c, P_NATIVE_MIN_SHARE_PCT);
    if (!(share >= min))
        return ETP_OK;
    char v[48], e[48], largest[256];
    describe_largest(c, c->top_kernels[0], largest, sizeof largest);
    finding_begin(&b, c, "delegation.native_dominates", ETP_FINDING_FIRED);
    finding_message(&b, "native kernels take %.1f%% of Method::execute (%s of %s) although the program delegates; "
                        "the largest is %s",
                    share, finding_fmt(v, sizeof v, nf->stats.avg, c->unit),
                    finding_fmt(e, sizeof e, c->execute_avg, c->unit), largest);
    finding_value(&b, "native_kernels_avg", nf->stats.avg, c->unit, nf->additive, "operator_calls_total");
    finding_value(&b, "method_execute_avg", c->execute_avg, c->unit, c->execute->additive, "method_execute");
    finding_value(&b, "native_share", share, "%", 0, "operator_calls_total / method_execute");
    name_kernels(&b, c, FINDING_MAX_ENTITIES);
    return finding_end(&b);
}

static etp_status rule_cpu_side(finding_ctx *c)
{
    if (!c->delegate_calls || !c->kernels)
        return ETP_OK;
    const etp_figure *nf = etp_analysis_figure_by_id(c->a, ETP_FIG_OPERATOR_CALLS_TOTAL);
    const etp_figure *df = etp_analysis_figure_by_id(c->a, ETP_FIG_DELEGATE_CALLS_TOTAL);
    finding_builder b;
    if (c->vgf_calls == c->delegate_calls) {
        /* Every call is measured as VGF NX cycles: their DELEGATE_CALL
         * intervals are their own figure, left out of the runtime totals. */
        df = etp_analysis_figure_by_id(c->a, ETP_FIG_VGF_EXCLUDED_RUNTIME);
    } else if (c->vgf_calls) {
        /* Two figures the analysis never adds: no delegate total. */
        finding_begin(&b, c, "delegation.cpu_side_dominates", ETP_FINDING_WITHHELD);
        finding_message(&b, "%u of the %u delegate calls are measured as VGF NX cycles (their intervals are figure "
                            "vgf_excluded_runtime, never added to delegate_calls_total): no delegate total is formed",
                        c->vgf_calls, c->delegate_calls);
        return finding_end(&b);
    }
    if (!nf || !df || !nf->available || !df->available) {
        const etp_figure *bad = !nf || !nf->available ? nf : df;
        finding_begin(&b, c, "delegation.cpu_side_dominates", ETP_FINDING_WITHHELD);
        finding_message(&b, "the %s total is not formed (%s), so the delegate calls cannot be set against the "
                            "native work",
                        bad == nf ? "native kernels'" : "delegate calls'",
                        bad && bad->reason ? bad->reason : "not computed");
        return finding_end(&b);
    }
    if (!(nf->stats.avg > 0))
        return ETP_OK;
    double pct = 100.0 * df->stats.avg / nf->stats.avg;
    if (!(pct <= finding_threshold(c, P_CPU_SIDE_MAX_DELEGATE_PCT)))
        return ETP_OK;
    char d[48], n[48], largest[256];
    describe_largest(c, c->top_kernels[0], largest, sizeof largest);
    finding_begin(&b, c, "delegation.cpu_side_dominates", ETP_FINDING_FIRED);
    finding_message(&b, "the delegate calls take %s, %.2f%% of the %s the native kernels take; the largest native "
                        "cost is %s",
                    finding_fmt(d, sizeof d, df->stats.avg, c->unit), pct,
                    finding_fmt(n, sizeof n, nf->stats.avg, c->unit), largest);
    finding_value(&b, "delegate_calls_avg", df->stats.avg, c->unit, df->additive, df->name);
    finding_value(&b, "native_kernels_avg", nf->stats.avg, c->unit, nf->additive, "operator_calls_total");
    finding_value(&b, "delegate_share_of_native", pct, "%", 0, "delegate_calls_total / operator_calls_total");
    for (uint32_t i = 0; i < c->a->entity_count; i++) {
        const etp_entity *e = &c->a->entities[i];
        if (finding_delegate_ran(e))
            finding_entity(&b, ETP_FE_DELEGATE_CALL, e->id, e->backend ? e->backend : e->name, "delegate call", e);
    }
    name_kernels(&b, c, FINDING_MAX_ENTITIES);
    return finding_end(&b);
}

/* One native island: the KernelCall instructions between two delegate calls
 * of one backend. Its share is formed only when every member may be added. */
typedef struct island {
    uint32_t index;               /* 1-based, in chain order */
    const etp_entity *after, *before;
    uint32_t first, count;        /* members: ins[first .. first+count) that are kernels */
    double avg;
    int summable;
} island;

static void island_json(const finding_ctx *c, etp_jw *w, const island *is, const etp_entity *const *ins)
{
    etp_jw_obj_begin(w);
    etp_jw_kuint(w, "index", is->index);
    etp_jw_kstr(w, "after", is->after->id);
    etp_jw_kstr(w, "before", is->before->id);
    etp_jw_key(w, "instructions");
    etp_jw_arr_begin(w);
    for (uint32_t i = is->first; i < is->first + is->count; i++)
        if (finding_is_kernel_call(ins[i]))
            etp_jw_str(w, ins[i]->id);
    etp_jw_arr_end(w);
    etp_jw_kstr(w, "unit", c->unit);
    if (is->summable) {
        etp_jw_kdouble(w, "avg", is->avg);
        double share = finding_share(c, is->avg);
        if (isnan(share))
            etp_jw_kstr(w, "share_not_formed", "Method::execute has no average");
        else
            etp_jw_kdouble(w, "share_pct", share);
    } else {
        etp_jw_kstr(w, "share_not_formed",
                    "a member's timing is shared, not additive or not measured in every execution");
    }
    etp_jw_obj_end(w);
}

/* A delegate call bordering an island, named once. */
static void partition(finding_builder *b, const etp_entity *call, const char *backend)
{
    const etp_finding *f = b->f;
    for (uint32_t i = 0; f && i < f->entity_count; i++)
        if (!strcmp(f->entities[i].id, call->id))
            return;
    finding_entity(b, ETP_FE_DELEGATE_CALL, call->id, backend, "partition", call);
}

/* Islands the details list (the largest); the finding counts them all. */
#define ISLANDS_LISTED 20

static int by_island_size(const void *x, const void *y)
{
    const island *a = x, *b = y;
    if (a->summable != b->summable)
        return a->summable ? -1 : 1;
    if (a->summable && a->avg != b->avg)
        return a->avg > b->avg ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The fragmentation of one backend's calls in one chain: ins[0..n) is the
 * chain's instructions in order. */
static etp_status fragmented_backend(finding_ctx *c, const etp_entity *const *ins, uint32_t n, const char *backend)
{
    uint32_t calls = 0;
    for (uint32_t i = 0; i < n; i++)
        calls += finding_is_delegate_call(ins[i]) && ins[i]->backend && !strcmp(ins[i]->backend, backend);
    if (calls < finding_threshold(c, P_FRAGMENTED_MIN_CALLS) || calls < 2)
        return ETP_OK;
    island *isl = calloc(calls, sizeof *isl);
    if (!isl)
        return ETP_E_NOMEM;
    uint32_t ni = 0;
    int64_t prev = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!(finding_is_delegate_call(ins[i]) && ins[i]->backend && !strcmp(ins[i]->backend, backend)))
            continue;
        if (prev >= 0) {
            island is = {0, ins[prev], ins[i], (uint32_t)prev + 1, i - (uint32_t)prev - 1, 0, 1};
            uint32_t kernels = 0;
            for (uint32_t k = is.first; k < is.first + is.count; k++) {
                if (!finding_is_kernel_call(ins[k]))
                    continue;
                kernels++;
                if (finding_summable(c, ins[k]))
                    is.avg += ins[k]->time.stats.avg;
                else
                    is.summable = 0;
            }
            if (kernels) {
                is.index = ni + 1;
                isl[ni++] = is;
            }
        }
        prev = i;
    }
    etp_status st = ETP_OK;
    if (ni) {
        /* The largest islands first (those without a share after them, in
         * chain order); the details list the first ISLANDS_LISTED. */
        qsort(isl, ni, sizeof *isl, by_island_size);
        const island *big = isl[0].summable ? &isl[0] : NULL;
        finding_builder b;
        finding_begin(&b, c, "delegation.fragmented", ETP_FINDING_FIRED);
        char v[48];
        if (big && c->execute)
            finding_message(&b, "%u %s delegate calls with %u native island%s between them; the largest, island %u "
                                "(after %s), takes %s, %.1f%% of Method::execute",
                            calls, backend, ni, ni == 1 ? "" : "s", big->index, big->after->id,
                            finding_fmt(v, sizeof v, big->avg, c->unit), finding_share(c, big->avg));
        else
            finding_message(&b, "%u %s delegate calls with %u native island%s between them (their shares of "
                                "Method::execute are not formed: see details)",
                            calls, backend, ni, ni == 1 ? "" : "s");
        finding_value(&b, "delegate_calls", calls, "count", 0, "DelegateCall instructions of the backend");
        finding_value(&b, "islands", ni, "count", 0, "native runs between them");
        if (big) {
            finding_value(&b, "largest_island_avg", big->avg, c->unit, 1, "sum of the island's instructions");
            if (c->execute)
                finding_value(&b, "largest_island_share", finding_share(c, big->avg), "%", 0,
                              "island / method_execute");
        }
        uint32_t listed = ni < ISLANDS_LISTED ? ni : ISLANDS_LISTED;
        etp_jw w;
        etp_jw_init_mem(&w, 0);
        etp_jw_obj_begin(&w);
        etp_jw_kstr(&w, "backend", backend);
        etp_jw_kuint(&w, "islands_total", ni);
        etp_jw_key(&w, "islands");
        etp_jw_arr_begin(&w);
        for (uint32_t i = 0; i < listed; i++)
            island_json(c, &w, &isl[i], ins);
        etp_jw_arr_end(&w);
        etp_jw_obj_end(&w);
        finding_details(&b, etp_jw_take(&w, NULL));
        /* Each listed island: the call before it, its members, the call
         * after it (a call between two listed islands is named once). */
        for (uint32_t i = 0; i < listed; i++) {
            char role[32];
            snprintf(role, sizeof role, "island %u", isl[i].index);
            partition(&b, isl[i].after, backend);
            for (uint32_t k = isl[i].first; k < isl[i].first + isl[i].count; k++)
                if (finding_is_kernel_call(ins[k]))
                    finding_entity(&b, ETP_FE_INSTRUCTION, ins[k]->id,
                                   ins[k]->op_type ? ins[k]->op_type : ins[k]->name, role, ins[k]);
            partition(&b, isl[i].before, backend);
        }
        /* Left out: every call and island member not listed (a call may
         * border two islands, so count them, not the omissions above). */
        uint32_t affected = calls;
        for (uint32_t i = 0; i < ni; i++)
            for (uint32_t k = isl[i].first; k < isl[i].first + isl[i].count; k++)
                affected += finding_is_kernel_call(ins[k]);
        if (b.f && !b.status)
            b.f->entities_omitted = affected - b.f->entity_count;
        st = finding_end(&b);
    }
    free(isl);
    return st;
}

static etp_status rule_fragmented(finding_ctx *c)
{
    uint32_t n = c->ins_count;
    const etp_entity *const *ins = c->ins;
    etp_status st = ETP_OK;
    /* Per chain, per backend (each backend once, in order of first call). */
    for (uint32_t s = 0; s < n && !st;) {
        uint32_t e = s;
        while (e < n && ins[e]->chain == ins[s]->chain)
            e++;
        /* Its backends, each once in order of first call (a short list,
         * grown as met: no backend may be looked at twice). */
        const char **seen = NULL;
        uint32_t nseen = 0, cap = 0;
        for (uint32_t i = s; i < e && !st; i++) {
            if (!finding_is_delegate_call(ins[i]) || !ins[i]->backend)
                continue;
            uint32_t k = 0;
            while (k < nseen && strcmp(seen[k], ins[i]->backend))
                k++;
            if (k < nseen)
                continue;
            if (nseen == cap) {
                cap = cap ? cap * 2 : 4;
                const char **ns = realloc(seen, cap * sizeof *ns);
                if (!ns) {
                    st = ETP_E_NOMEM;
                    break;
                }
                seen = ns;
            }
            seen[nseen++] = ins[i]->backend;
            st = fragmented_backend(c, ins + s, e - s, ins[i]->backend);
        }
        free(seen);
        s = e;
    }
    return st;
}

etp_status findings_delegation(finding_ctx *c)
{
    etp_status st = rule_none(c);
    if (!st)
        st = rule_native_dominates(c);
    if (!st)
        st = rule_cpu_side(c);
    return st ? st : rule_fragmented(c);
}
