/* publish_me.c - model_explorer/ of a bundle: the program graph (as the Arm
 * PTE adapter draws it) and one overlay file per metric, keyed by that
 * graph's node ids (instruction ids <method>_<chain>_<instr>). Delegate
 * timings sit on the delegate-call node; they are never spread over the
 * operators inside the delegate. */
#include <stdlib.h>
#include <string.h>

#include "etprof/mexplorer.h"
#include "outputs/publish_internal.h"

typedef struct me_ctx {
    const etp_me_collection *c;
    const etp_me_overlay *ov;
} me_ctx;

static int fill_graph(FILE *fp, void *ctx, etp_error *err)
{
    const me_ctx *m = ctx;
    return etp_me_write(m->c, fp, ETP_ME_PRETTY, err) ? -1 : 0;
}

static int fill_overlay(FILE *fp, void *ctx, etp_error *err)
{
    const me_ctx *m = ctx;
    return etp_me_write_overlay(m->ov, fp, 1, err) ? -1 : 0;
}

typedef enum { M_AVG, M_P50, M_MIN, M_MAX, M_KERNEL, M_SHARE } me_metric;

static int metric_value(const etp_analysis *a, const etp_entity *e, me_metric m, double exec_avg,
                        double *v)
{
    const etp_stats *s = &e->time.stats;
    switch (m) {
    case M_AVG: *v = s->avg; return e->time.executions > 0;
    case M_P50: *v = s->p50; return e->time.executions > 0;
    case M_MIN: *v = s->min; return e->time.executions > 0;
    case M_MAX: *v = s->max; return e->time.executions > 0;
    case M_KERNEL: *v = e->kernel.stats.avg; return e->has_kernel && e->kernel.executions > 0;
    case M_SHARE:
        *v = exec_avg > 0 ? 100.0 * s->avg / exec_avg : 0;
        return e->time.executions > 0 && exec_avg > 0;
    }
    (void)a;
    return 0;
}

etp_status etp_publish_model_explorer(etp_bundle *b, const etp_analysis *a,
                                      const etp_publish_options *po, etp_error *err)
{
    if (!a->program)
        return ETP_OK; /* no deployed program: no program graph to draw */
    const char *label = strrchr(a->program->path, '/');
    label = label ? label + 1 : a->program->path;
    etp_me_collection *c = NULL;
    etp_status s = etp_me_build(a->program, NULL, label, &c, err);
    if (s)
        return s;
    me_ctx ctx = {c, NULL};
    s = etp_bundle_write_stream(b, "model_explorer/graph.json", "application/json", "projection",
                                NULL, 0, fill_graph, &ctx, err);
    const etp_me_graph *g = etp_me_find_graph(c, a->method);
    if (!s && !g)
        s = etp_error_set(err, ETP_E_INTERNAL, a->program->path, ETP_NO_OFFSET,
                          "no graph for method %s", a->method);
    const etp_figure *ex = etp_analysis_figure(a, "method_execute");
    double exec_avg = ex && ex->available ? ex->stats.avg : 0;
    static const struct {
        me_metric m;
        const char *name;
        int pct;
        unsigned hide;
    } metrics[] = {
        {M_AVG, "Runtime avg", 0, 0},
        {M_P50, "Runtime p50", 0, ETP_ME_HIDE_SUM},
        {M_MIN, "Runtime min", 0, ETP_ME_HIDE_SUM},
        {M_MAX, "Runtime max", 0, ETP_ME_HIDE_SUM},
        {M_KERNEL, "Kernel avg", 0, 0},
        {M_SHARE, "Share of execute avg", 1, 0},
    };
    etp_me_value *vals = calloc(a->entity_count + 1, sizeof *vals);
    if (!s && !vals)
        s = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    for (size_t mi = 0; !s && mi < sizeof metrics / sizeof metrics[0]; mi++) {
        size_t n = 0;
        for (uint32_t i = 0; i < a->entity_count; i++) {
            const etp_entity *e = &a->entities[i];
            double v;
            if (e->kind != ETP_ENTITY_INSTRUCTION || !metric_value(a, e, metrics[mi].m, exec_avg, &v))
                continue;
            if (etp_me_find_node(g, e->id) < 0)
                continue; /* every key must exist in the graph it targets */
            vals[n].node_id = e->id;
            vals[n].value = v;
            n++;
        }
        if (!n)
            continue;
        etp_me_overlay ov;
        etp_me_overlay_init(&ov);
        ov.graph_id = g->id;
        ov.metric = metrics[mi].name;
        ov.unit = metrics[mi].pct ? "%" : etp_unit_name(a->target_unit);
        ov.values = vals;
        ov.value_count = n;
        /* Averages of instructions add up; p50/min/max do not. */
        ov.hide_stats = metrics[mi].hide;
        char fname[200], rel[260];
        etp_me_overlay_filename(fname, sizeof fname, ov.metric, ov.unit);
        snprintf(rel, sizeof rel, "model_explorer/%s", fname);
        ctx.ov = &ov;
        s = etp_bundle_write_stream(b, rel, "application/json", "projection", NULL, 0, fill_overlay,
                                    &ctx, err);
    }
    free(vals);
    etp_me_free(c);
    (void)po;
    return s;
}
