/* rules_accelerator.c - what an accelerator counted: npu.copy_bound (the
 * Ethos-U split of each delegate call) and nx.hot_chain (VGF NX cycles). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings/findings_internal.h"
#include "etprof/device_report.h"
#include "etprof/nx_stats.h"

static double copies_of(const etp_npu_call_site *s)
{
    return (s->has_input_copy ? s->input_copy_avg : 0) + (s->has_output_copy ? s->output_copy_avg : 0);
}

static int copy_bound(const finding_ctx *c, const etp_npu_call_site *s)
{
    return s->has_npu && s->npu_avg > 0 && (s->has_input_copy || s->has_output_copy) &&
           copies_of(s) / s->npu_avg >= finding_threshold(c, P_COPY_MIN_RATIO);
}

static etp_status rule_copy_bound(finding_ctx *c)
{
    const etp_device_report *d = c->a->device;
    if (!d || !d->npu.present)
        return ETP_OK;
    const etp_npu_call_site *worst = NULL;
    uint32_t hits = 0;
    for (uint32_t i = 0; i < d->npu.site_count; i++) {
        const etp_npu_call_site *s = &d->npu.sites[i];
        if (copy_bound(c, s)) {
            hits++;
            if (!worst || copies_of(s) / s->npu_avg > copies_of(worst) / worst->npu_avg)
                worst = s;
        }
    }
    if (!hits)
        return ETP_OK;
    char cp[48], np[48];
    finding_builder b;
    finding_begin(&b, c, "npu.copy_bound", ETP_FINDING_FIRED);
    finding_message(&b, "%u Ethos-U call%s copy longer than the NPU runs; at %s the input and output copies take "
                        "%s against the NPU's %s (%.2fx)",
                    hits, hits == 1 ? "" : "s", worst->instruction, finding_fmt(cp, sizeof cp, copies_of(worst), c->unit),
                    finding_fmt(np, sizeof np, worst->npu_avg, c->unit), copies_of(worst) / worst->npu_avg);
    finding_value(&b, "copies_avg", copies_of(worst), c->unit, 1, "input + output memcpy events, per execution");
    finding_value(&b, "npu_avg", worst->npu_avg, c->unit, 1, "+EthosUBackend::execute()NPU, per execution");
    finding_value(&b, "copy_to_npu_ratio", copies_of(worst) / worst->npu_avg, "ratio", 0, "copies / npu");
    for (uint32_t i = 0; i < d->npu.site_count; i++) {
        const etp_npu_call_site *s = &d->npu.sites[i];
        if (copy_bound(c, s)) {
            char role[48];
            snprintf(role, sizeof role, "copies %.2fx the NPU", copies_of(s) / s->npu_avg);
            finding_entity_values(&b, ETP_FE_DELEGATE_CALL, s->instruction, "EthosUBackend", role, copies_of(s),
                                  NAN);
        }
    }
    return finding_end(&b);
}

static int chain_like(const etp_nx_entity *e)
{
    return e->kind == ETP_NX_CHAIN || e->kind == ETP_NX_CASCADE;
}

static etp_status rule_hot_chain(finding_ctx *c)
{
    const etp_nx_result *nx = c->a->nx;
    finding_builder b;
    if (nx && !nx->model_available && nx->entity_count > 1) {
        finding_begin(&b, c, "nx.hot_chain", ETP_FINDING_WITHHELD);
        finding_message(&b, "the model's NX total is not formed (its segments were measured in different "
                            "executions, see vgf.coverage_differs), so no chain's or cascade's share of it is known");
        return finding_end(&b);
    }
    if (!nx || !nx->entity_count || !(nx->entities[0].s.mean_total > 0))
        return ETP_OK;
    double model = nx->entities[0].s.mean_total, min = finding_threshold(c, P_NX_MIN_SHARE_PCT);
    const etp_nx_entity *top = NULL;
    uint32_t hits = 0, partial = 0;
    for (uint32_t i = 1; i < nx->entity_count; i++) {
        const etp_nx_entity *e = &nx->entities[i];
        if (!chain_like(e) || !(100.0 * e->s.mean_total / model >= min))
            continue;
        if (!e->full_coverage) {
            partial++; /* its mean is over fewer executions than the model's */
            continue;
        }
        hits++;
        if (!top || e->s.mean_total > top->s.mean_total)
            top = e;
    }
    if (!hits) {
        if (!partial)
            return ETP_OK;
        finding_begin(&b, c, "nx.hot_chain", ETP_FINDING_WITHHELD);
        finding_message(&b, "%u chain%s or cascade%s appear%s in fewer executions than the model, so %s share of "
                            "the model's NX cycles is not formed",
                        partial, partial == 1 ? "" : "s", partial == 1 ? "" : "s", partial == 1 ? "s" : "",
                        partial == 1 ? "its" : "their");
        return finding_end(&b);
    }
    char t[48], m[48];
    double share = 100.0 * top->s.mean_total / model;
    finding_begin(&b, c, "nx.hot_chain", ETP_FINDING_FIRED);
    finding_message(&b, "%s (%s) carries %.1f%% of the model's NX cycles (%s of %s per execution)%s", top->name,
                    top->id, share, finding_fmt(t, sizeof t, top->s.mean_total, "cycles"),
                    finding_fmt(m, sizeof m, model, "cycles"),
                    hits > 1 ? "; more chains or cascades pass the threshold (see affected entities)" : "");
    finding_value(&b, "entity_cycles_mean", top->s.mean_total, "cycles", 1, "NX cycles per execution");
    finding_value(&b, "model_cycles_mean", model, "cycles", 1, "NX cycles of the model per execution");
    finding_value(&b, "share", share, "%", 0, "entity / model NX cycles");
    for (uint32_t i = 1; i < nx->entity_count; i++) {
        const etp_nx_entity *e = &nx->entities[i];
        if (chain_like(e) && e->full_coverage && 100.0 * e->s.mean_total / model >= min)
            finding_entity_values(&b, e->kind == ETP_NX_CHAIN ? ETP_FE_NX_CHAIN : ETP_FE_NX_CASCADE, e->id, e->name,
                                  e->kind == ETP_NX_CHAIN ? "chain" : "cascade", e->s.mean_total, NAN);
    }
    return finding_end(&b);
}

etp_status findings_accelerator(finding_ctx *c)
{
    etp_status st = rule_copy_bound(c);
    return st ? st : rule_hot_chain(c);
}
