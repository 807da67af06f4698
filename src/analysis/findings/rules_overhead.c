/* rules_overhead.c - time outside operator work: overhead.dispatch,
 * overhead.tracing and delegate.unprofiled_overhead. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings/findings_internal.h"

static int usable(const etp_figure *f)
{
    return f && f->available && f->stats.n;
}

static etp_status rule_dispatch(finding_ctx *c)
{
    if (!c->execute)
        return ETP_OK;
    const etp_figure *df = etp_analysis_figure_by_id(c->a, ETP_FIG_DISPATCH_OVERHEAD_TOTAL);
    const etp_figure *ff = etp_analysis_figure_by_id(c->a, ETP_FIG_FRAMEWORK_OVERHEAD);
    /* Tiny instructions: kernels whose own time is a sliver of execute. */
    uint32_t nk = c->kernels, tiny = 0;
    double tiny_pct = finding_threshold(c, P_DISPATCH_TINY_SHARE_PCT);
    for (uint32_t i = 0; i < c->ins_count; i++)
        tiny += finding_is_kernel_call(c->ins[i]) && c->ins[i]->time.stats.n &&
                finding_share(c, c->ins[i]->time.stats.avg) < tiny_pct;
    finding_builder b;
    if (!usable(ff)) {
        /* With Method::execute and timed kernels present, only differing
         * coverage leaves the framework overhead unformed. */
        if (!nk || !ff)
            return ETP_OK;
        finding_begin(&b, c, "overhead.dispatch", ETP_FINDING_WITHHELD);
        finding_message(&b, "%s is not formed (%s), so the overhead's share of Method::execute is not known",
                        ff->name, ff->reason ? ff->reason : "not computed");
        return finding_end(&b);
    }
    if (!usable(df) || !df->additive)
        df = NULL; /* no native_call_* events: the dispatch part is not measured */
    double over = ff->stats.avg + (df ? df->stats.avg : 0);
    double share = finding_share(c, over);
    int many_tiny = tiny >= finding_threshold(c, P_DISPATCH_MIN_TINY_OPS);
    if (!(share >= finding_threshold(c, P_DISPATCH_MIN_SHARE_PCT)))
        return ETP_OK;
    char v[48], f[48];
    finding_begin(&b, c, "overhead.dispatch", ETP_FINDING_FIRED);
    if (df)
        finding_message(&b, "dispatch (%s) and framework overhead (%s) take %.1f%% of Method::execute; %u of %u "
                            "kernels are tiny (each under %g%% of it)%s",
                        finding_fmt(v, sizeof v, df->stats.avg, c->unit), finding_fmt(f, sizeof f, ff->stats.avg, c->unit),
                        share, tiny, nk, tiny_pct, many_tiny ? ": many small operators" : "");
    else
        finding_message(&b, "framework overhead (time inside Method::execute outside every instruction, %s) takes "
                            "%.1f%% of it; %u of %u kernels are tiny (each under %g%% of it)%s",
                        finding_fmt(f, sizeof f, ff->stats.avg, c->unit), share, tiny, nk, tiny_pct,
                        many_tiny ? ": many small operators" : "");
    if (df)
        finding_value(&b, "dispatch_overhead_avg", df->stats.avg, c->unit, df->additive, "dispatch_overhead_total");
    finding_value(&b, "framework_overhead_avg", ff->stats.avg, c->unit, ff->additive, "framework_overhead");
    finding_value(&b, "overhead_share", share, "%", 0, "(dispatch + framework) / method_execute");
    finding_value(&b, "tiny_kernels", tiny, "count", 0, "kernels under tiny_op_share_pct of execute");
    return finding_end(&b);
}

/* Event records per execution: every event the analysis attributed. */
static double events_per_execution(const finding_ctx *c)
{
    uint64_t events = 0;
    for (uint32_t i = 0; i < c->a->entity_count; i++) {
        const etp_entity *e = &c->a->entities[i];
        if (e->kind == ETP_ENTITY_OPERATOR) /* operators re-use instructions' events */
            continue;
        events += e->time.events + (e->has_kernel ? e->kernel.events : 0);
    }
    return c->a->execution_count ? (double)events / c->a->execution_count : 0;
}

static etp_status rule_tracing(finding_ctx *c)
{
    const etp_tick_evidence *t = &c->a->tick_unit;
    const etp_figure *ff = etp_analysis_figure_by_id(c->a, ETP_FIG_FRAMEWORK_OVERHEAD);
    if (!c->execute || !(t->wall_ms > 0) || !t->iterations || !usable(ff))
        return ETP_OK; /* needs the runner's wall time: without it there is no second view */
    double share = finding_share(c, ff->stats.avg);
    double per_exec = events_per_execution(c) + 1; /* + Method::execute's own */
    if (!(share >= finding_threshold(c, P_TRACING_MIN_FRAMEWORK_PCT)) || !(per_exec >= 1))
        return ETP_OK;
    char f[48], e[48], p[48];
    double per_event = ff->stats.avg / per_exec;
    finding_builder b;
    finding_begin(&b, c, "overhead.tracing", ETP_FINDING_FIRED);
    finding_message(&b, "%s (%.1f%%) of Method::execute lies outside every instruction, with %.0f event%s recorded "
                        "per execution: at most %s per event, part of which is recording them; the runner timed "
                        "%.4g ms per iteration against Method::execute's %s",
                    finding_fmt(f, sizeof f, ff->stats.avg, c->unit), share, per_exec, per_exec == 1 ? "" : "s",
                    finding_fmt(p, sizeof p, per_event, c->unit), t->wall_ms,
                    finding_fmt(e, sizeof e, c->execute_avg, c->unit));
    finding_value(&b, "framework_overhead_avg", ff->stats.avg, c->unit, ff->additive, "framework_overhead");
    finding_value(&b, "framework_share", share, "%", 0, "framework_overhead / method_execute");
    finding_value(&b, "events_per_execution", per_exec, "count", 0, "event records attributed");
    finding_value(&b, "overhead_per_event_max", per_event, c->unit, 0, "framework_overhead / events");
    finding_value(&b, "runner_wall_ms", t->wall_ms, "ms", 0, t->source ? t->source : "runner log");
    return finding_end(&b);
}

/* The share of a delegate call's interval its detailed events leave
 * unexplained (%), NAN for any other entity or a call without detail. */
static double unprofiled_pct(const etp_entity *e)
{
    if (!finding_is_delegate_call(e) || !e->detail_events || !(e->time.stats.avg > 0))
        return NAN;
    return 100.0 * (e->time.stats.avg - e->detail_total_avg) / e->time.stats.avg;
}

static etp_status rule_unprofiled(finding_ctx *c)
{
    const etp_analysis *a = c->a;
    double min = finding_threshold(c, P_UNPROFILED_MIN_PCT);
    uint32_t hits = 0;
    const etp_entity *worst = NULL;
    double worst_pct = 0;
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        double pct = unprofiled_pct(e);
        if (pct >= min) {
            hits++;
            if (!worst || pct > worst_pct) {
                worst = e;
                worst_pct = pct;
            }
        }
    }
    if (!hits)
        return ETP_OK;
    char v[48], d[48];
    finding_builder b;
    finding_begin(&b, c, "delegate.unprofiled_overhead", ETP_FINDING_FIRED);
    finding_message(&b, "%u delegate call%s last%s longer than %s detailed events; at %s (%s) %.1f%% of the %s "
                        "interval is unexplained by its %s of events (at least: nested events would make it more)",
                    hits, hits == 1 ? "" : "s", hits == 1 ? "s" : "", hits == 1 ? "its" : "their", worst->id,
                    worst->backend ? worst->backend : worst->name, worst_pct,
                    finding_fmt(v, sizeof v, worst->time.stats.avg, c->unit),
                    finding_fmt(d, sizeof d, worst->detail_total_avg, c->unit));
    finding_value(&b, "interval_avg", worst->time.stats.avg, c->unit, 0, "DELEGATE_CALL of the worst call");
    finding_value(&b, "detail_total_avg", worst->detail_total_avg, c->unit, 0, "its delegate events' totals");
    finding_value(&b, "unprofiled_pct", worst_pct, "%", 0, "(interval - detail) / interval");
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        double pct = unprofiled_pct(e);
        if (pct >= min) {
            char role[48];
            snprintf(role, sizeof role, "%.1f%% unprofiled", pct);
            finding_entity(&b, ETP_FE_DELEGATE_CALL, e->id, e->backend ? e->backend : e->name, role, e);
        }
    }
    return finding_end(&b);
}

etp_status findings_overhead(finding_ctx *c)
{
    etp_status st = rule_dispatch(c);
    if (!st)
        st = rule_tracing(c);
    return st ? st : rule_unprofiled(c);
}
