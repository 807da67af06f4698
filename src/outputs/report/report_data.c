/* report_data.c - what the page's script draws from, as JSON (each value
 * once): per view the geometry, the nodes with their links and entity
 * numbers and the metrics' values and colours (report_metrics.c); and the
 * entities the page shows (details panel, search). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/columns.h"
#include "etprof/device_report.h"
#include "outputs/mexplorer/me_color.h"
#include "outputs/report/device_output.h"
#include "outputs/report/report_internal.h"

static void stats_array(etp_jw *w, const etp_stats *s)
{
    etp_jw_arr_begin(w);
    etp_jw_double(w, s->avg);
    etp_jw_double(w, s->p10);
    etp_jw_double(w, s->p50);
    etp_jw_double(w, s->p90);
    etp_jw_double(w, s->min);
    etp_jw_double(w, s->max);
    etp_jw_arr_end(w);
}

/* The Ethos-U split of a delegate call, from its columns (etprof/columns.h):
 * "npu": [execute, NPU, input copy, output copy, rest] (null where the call
 * has no such event) and the verdict line. Nothing for other entities. */
static void npu_json(etp_jw *w, const rp_report *r, const etp_entity *e)
{
    static const etp_column_id cols[] = {ETP_COL_NPU_EXECUTE_AVG, ETP_COL_NPU_AVG,
                                         ETP_COL_NPU_INPUT_COPY_AVG, ETP_COL_NPU_OUTPUT_COPY_AVG,
                                         ETP_COL_NPU_REST_AVG};
    if (!e->npu)
        return;
    ETP_JW_KEY_LIT(w, "npu");
    etp_jw_arr_begin(w);
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
        const etp_column *c = etp_column_get(cols[k]);
        if (c->present(e))
            etp_jw_double(w, c->get(r->a, e).d);
        else
            etp_jw_null(w);
    }
    etp_jw_arr_end(w);
    ETP_JW_KSTR_LIT(w, "npuv", etp_npu_verdict(e->npu));
}

static void entity_json(etp_jw *w, const rp_report *r, const etp_entity *e)
{
    etp_jw_obj_begin(w);
    ETP_JW_KSTR_LIT(w, "id", e->id);
    if (e->name && strcmp(e->name, e->id))
        ETP_JW_KSTR_LIT(w, "name", e->name);
    ETP_JW_KSTR_LIT(w, "op", e->op_type);
    if (e->backend)
        ETP_JW_KSTR_LIT(w, "be", e->backend);
    if (e->kind != ETP_ENTITY_OPERATOR && e->instr_kind != ETP_INSTR_NONE)
        ETP_JW_KSTR_LIT(w, "ik", etp_instr_kind_name(e->instr_kind));
    ETP_JW_KUINT_LIT(w, "x", e->time.executions);
    ETP_JW_KUINT_LIT(w, "ev", e->time.events);
    if (e->time.executions) {
        ETP_JW_KSTR_LIT(w, "src", etp_timing_source_name(e->source));
        ETP_JW_KEY_LIT(w, "s");
        stats_array(w, &e->time.stats);
        ETP_JW_KBOOL_LIT(w, "add", e->additive);
        ETP_JW_KBOOL_LIT(w, "sh", e->shared);
    }
    if (e->co_count)
        etp_jw_kstrs(w, "co", e->co_attributed, e->co_count);
    if (e->handle_count)
        etp_jw_ki64s(w, "h", e->handles, e->handle_count);
    if (e->unresolved_count)
        etp_jw_ki64s(w, "u", e->unresolved, e->unresolved_count);
    if (e->has_kernel && e->kernel.executions) {
        ETP_JW_KDOUBLE_LIT(w, "k", e->kernel.stats.avg);
        if (e->dispatch.n)
            ETP_JW_KDOUBLE_LIT(w, "d", e->dispatch.avg);
    }
    npu_json(w, r, e);
    /* An operator's source metadata, from its columns: each when known. */
    static const struct {
        etp_column_id col;
        const char key[3]; /* two plain letters */
    } source[] = {{ETP_COL_MODULE_PATH, "mp"}, {ETP_COL_MODULE_TYPE, "mt"},
                  {ETP_COL_SOURCE_FN, "fn"}, {ETP_COL_STACK_TRACE, "st"}};
    for (size_t k = 0; k < sizeof source / sizeof source[0]; k++) {
        const char *s = etp_column_get(source[k].col)->get(r->a, e).s;
        if (s) {
            etp_jw_key_plain_inline(w, source[k].key, 2);
            etp_jw_str(w, s);
        }
    }
    etp_jw_obj_end(w);
}

/* Drawn nodes of the other view reached from node @p i of view @p vi. */
static void links_json(etp_jw *w, const rp_report *r, int vi, uint32_t i)
{
    const rp_node *n = &r->views[vi].nodes[i];
    const etp_source_graph *sg = r->in->source;
    ETP_JW_KEY_LIT(w, "to");
    etp_jw_arr_begin(w);
    if (vi == r->instr_view && r->src_view >= 0 && n->link_index >= 0) {
        const etp_src_link *l = &sg->links[n->link_index];
        for (uint32_t q = 0; q < l->node_count; q++) {
            int64_t d = r->views[r->src_view].node_of_source[l->nodes[q]];
            if (d >= 0)
                etp_jw_int(w, d);
        }
    } else if (vi == r->src_view && r->instr_view >= 0) {
        const etp_src_node *sn = &sg->nodes[n->source_index];
        int32_t last = -1;
        for (uint32_t q = 0; q < sn->link_count; q++) {
            int32_t ins = sg->links[sn->links[q]].instruction;
            if (ins == last)
                continue;
            last = ins;
            if (ins >= 0 && (uint32_t)ins < r->chain0_count && r->chain0_node[ins] >= 0)
                etp_jw_int(w, r->chain0_node[ins]);
        }
    }
    etp_jw_arr_end(w);
}

/* Tenths of a pixel as an integer: the drawing's precision, short to write. */
static void tenths(etp_jw *w, double x)
{
    etp_jw_int(w, (int64_t)llround(x * 10));
}

/* Where the script draws each node and edge: box top-left corners and
 * widths, kind and flag letters per node, edge polylines; all in tenths. */
static void geometry_json(etp_jw *w, const rp_report *r, int vi)
{
    const rp_view *v = &r->views[vi];
    const etp_layout *l = &v->lay;
    static const char *const kinds[] = {"in", "out", "kernel", "delegate", "other", "op"};
    const size_t nkinds = sizeof kinds / sizeof *kinds;
    ETP_JW_KINT_LIT(w, "nh", (int64_t)llround(RP_NODE_H * 10));
    ETP_JW_KEY_LIT(w, "kinds");
    etp_jw_arr_begin(w);
    for (size_t k = 0; k < nkinds; k++)
        etp_jw_str(w, kinds[k]);
    etp_jw_arr_end(w);
    char *ks = malloc((size_t)v->node_count + 1), *na = malloc((size_t)v->node_count + 1);
    if (!ks || !na) {
        free(ks);
        free(na);
        w->failed = 1;
        return;
    }
    for (uint32_t i = 0; i < v->node_count; i++) {
        size_t k = 0;
        while (k + 1 < nkinds && strcmp(kinds[k], v->nodes[i].kind))
            k++;
        ks[i] = (char)('0' + k);
        na[i] = v->nodes[i].entity && !v->nodes[i].entity->additive ? '1' : '0';
    }
    ks[v->node_count] = na[v->node_count] = 0;
    ETP_JW_KSTR_LIT(w, "k", ks);
    ETP_JW_KSTR_LIT(w, "na", na);
    free(ks);
    free(na);
    const char *axis[] = {"x", "y", "bw"};
    for (int a = 0; a < 3; a++) {
        etp_jw_key(w, axis[a]);
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < v->node_count; i++) {
            double wd = v->boxes[i].width, h = v->boxes[i].height;
            tenths(w, a == 0 ? l->x[i] - wd / 2 : a == 1 ? l->y[i] - h / 2 : wd);
        }
        etp_jw_arr_end(w);
    }
    ETP_JW_KEY_LIT(w, "edges");
    etp_jw_arr_begin(w);
    for (uint32_t e = 0; e < l->edge_count; e++) {
        if (l->edge_flags[e] & (ETP_LAYOUT_EDGE_SELF | ETP_LAYOUT_EDGE_DUPLICATE))
            continue;
        uint32_t p0 = l->point_start[e], p1 = l->point_start[e + 1];
        if (p1 - p0 < 2)
            continue;
        etp_jw_break(w);
        etp_jw_arr_begin(w);
        for (uint32_t p = p0; p < p1; p++) {
            tenths(w, l->points[p].x);
            tenths(w, l->points[p].y);
        }
        etp_jw_arr_end(w);
    }
    etp_jw_arr_end(w);
}

static void view_json(etp_jw *w, const rp_report *r, int vi)
{
    const rp_view *v = &r->views[vi];
    const etp_analysis *a = r->a;
    const int32_t *num = r->entity_num;
    /* Delegate events keyed by their call's (chain, instruction): each
     * delegate node finds its own by a search. */
    size_t ndev = 0;
    rp_ent_key *dev = vi == r->instr_view ? rp_entity_keys(a, ETP_ENTITY_DELEGATE_EVENT, &ndev) : NULL;
    if (vi == r->instr_view && !dev) {
        w->failed = 1;
        return;
    }
    etp_jw_obj_begin(w);
    ETP_JW_KSTR_LIT(w, "title", v->title);
    ETP_JW_KSTR_LIT(w, "graph", v->graph_id);
    ETP_JW_KDOUBLE_LIT(w, "w", v->lay.width);
    ETP_JW_KDOUBLE_LIT(w, "h", v->lay.height);
    geometry_json(w, r, vi);
    ETP_JW_KEY_LIT(w, "nodes");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < v->node_count; i++) {
        const rp_node *n = &v->nodes[i];
        etp_jw_break(w);
        etp_jw_obj_begin(w);
        ETP_JW_KSTR_LIT(w, "id", n->id);
        ETP_JW_KSTR_LIT(w, "label", n->label);
        ETP_JW_KINT_LIT(w, "ln", (int64_t)n->link);
        if (n->link != ETP_LINK_LINKED && n->link != ETP_LINK_NOT_APPLICABLE)
            ETP_JW_KBOOL_LIT(w, "unl", 1);
        if (n->entity)
            ETP_JW_KINT_LIT(w, "e", num[n->entity - a->entities]);
        if (n->group >= 0)
            ETP_JW_KINT_LIT(w, "g", n->group);
        links_json(w, r, vi, i);
        if (vi == r->instr_view && n->entity && n->entity->instr_kind == ETP_INSTR_DELEGATE) {
            ETP_JW_KEY_LIT(w, "dev");
            etp_jw_arr_begin(w);
            int32_t chain = n->entity->chain, instr = n->entity->instruction;
            size_t k = dev ? rp_entity_keys_lower(dev, ndev, chain, instr) : 0;
            for (; k < ndev && dev[k].chain == chain && dev[k].instr == instr; k++)
                etp_jw_int(w, num[dev[k].e - a->entities]);
            etp_jw_arr_end(w);
        }
        if (vi == r->src_view) {
            const etp_src_node *sn = &r->in->source->nodes[n->source_index];
            if (sn->input_count) {
                ETP_JW_KEY_LIT(w, "in");
                etp_jw_arr_begin(w);
                for (uint32_t k = 0; k < sn->input_count; k++)
                    etp_jw_str(w, sn->inputs[k]);
                etp_jw_arr_end(w);
            }
        }
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    if (vi == r->src_view) {
        ETP_JW_KEY_LIT(w, "groups");
        etp_jw_arr_begin(w);
        for (uint32_t g = 0; g < r->in->source->group_count; g++) {
            const etp_src_group *gr = &r->in->source->groups[g];
            char b[300];
            snprintf(b, sizeof b, "%s \xc2\xb7 %s_0_%" PRId32, gr->backend ? gr->backend : "delegate",
                     r->in->source->method, gr->instruction);
            etp_jw_str(w, b);
        }
        etp_jw_arr_end(w);
    }
    rp_write_view_metrics(w, r, v);
    etp_jw_obj_end(w);
    free(dev);
}

void rp_write_data(etp_jw *w, const rp_report *r)
{
    const etp_analysis *a = r->a;
    etp_jw_obj_begin(w);
    ETP_JW_KSTR_LIT(w, "method", a->method);
    ETP_JW_KSTR_LIT(w, "unit", etp_unit_name(a->target_unit));
    ETP_JW_KUINT_LIT(w, "executions", a->execution_count);
    ETP_JW_KDOUBLE_LIT(w, "execAvg", r->exec_avg);
    ETP_JW_KEY_LIT(w, "metrics");
    etp_jw_arr_begin(w);
    for (int m = 0; m < ETP_ME_METRICS; m++) {
        etp_jw_obj_begin(w);
        ETP_JW_KSTR_LIT(w, "name", etp_me_metrics[m].name);
        ETP_JW_KSTR_LIT(w, "unit", etp_me_metric_unit(&etp_me_metrics[m], a));
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    ETP_JW_KEY_LIT(w, "links");
    etp_jw_arr_begin(w);
    for (int k = ETP_LINK_LINKED; k <= ETP_LINK_NOT_APPLICABLE; k++)
        etp_jw_str(w, etp_link_state_name((etp_link_state)k));
    etp_jw_arr_end(w);
    ETP_JW_KEY_LIT(w, "stops"); /* the gradient of the colours (report_metrics.c) */
    etp_jw_arr_begin(w);
    size_t nstops;
    const etp_me_stop *stops = etp_me_default_stops(&nstops);
    for (size_t i = 0; i < nstops; i++) {
        etp_jw_arr_begin(w);
        etp_jw_double(w, stops[i].stop);
        etp_jw_str(w, stops[i].bg_color);
        etp_jw_arr_end(w);
    }
    etp_jw_arr_end(w);
    ETP_JW_KEY_LIT(w, "views");
    etp_jw_arr_begin(w);
    for (int vi = 0; vi < r->view_count; vi++)
        view_json(w, r, vi);
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

void rp_write_entities(etp_jw *w, const rp_report *r)
{
    const etp_analysis *a = r->a;
    const int32_t *num = r->entity_num;
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (num[i] >= 0) {
            etp_jw_break(w);
            entity_json(w, r, &a->entities[i]);
        }
    etp_jw_arr_end(w);
}
