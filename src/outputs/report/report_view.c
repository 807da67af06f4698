/* report_view.c - the drawn views of the HTML report: which nodes, laid out
 * with the layered engine (layout.h), written as inline SVG, and the
 * per-node data the page's script needs (details, links, metric values and
 * colours computed here with Model Explorer's rules, as in the overlays). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/columns.h"
#include "etprof/device_report.h"
#include "outputs/mexplorer/me_color.h"
#include "outputs/report/device_output.h"
#include "outputs/report/report_internal.h"
#include "outputs/mexplorer/views_internal.h"
#include "util/dtoa.h"

#define NODE_H 34.0
#define CHAR_W 7.3      /* DejaVu Sans Mono at 12px: 0.6 em per glyph */
#define LABEL_MAX 44    /* characters drawn on a node; the full label is in the panel */
#define NO_VALUE "#e4e4e4"

static size_t utf8_len(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static double box_width(const char *label)
{
    size_t n = utf8_len(label);
    if (n > LABEL_MAX)
        n = LABEL_MAX;
    if (n < 11)
        n = 11; /* room for the value line ("0.001234 ms") */
    return (double)n * CHAR_W + 18;
}

const char *rp_metric_name(rp_metric m)
{
    static const char *const names[RP_METRICS] = {"Runtime avg", "Runtime p50", "Runtime min",
                                                  "Runtime max", "Kernel avg", "Share of execute avg"};
    return names[m];
}

const char *rp_metric_unit(const rp_report *r, rp_metric m)
{
    return m == RP_SHARE ? "%" : etp_unit_name(r->a->target_unit);
}

int rp_metric_value(const rp_report *r, const etp_entity *e, rp_metric m, double *v)
{
    if (!e)
        return 0;
    const etp_stats *s = &e->time.stats;
    int timed = e->time.executions > 0;
    switch (m) {
    case RP_AVG: *v = s->avg; return timed;
    case RP_P50: *v = s->p50; return timed;
    case RP_MIN: *v = s->min; return timed;
    case RP_MAX: *v = s->max; return timed;
    case RP_KERNEL: *v = e->kernel.stats.avg; return e->has_kernel && e->kernel.executions > 0;
    case RP_SHARE:
        *v = r->exec_avg > 0 ? 100.0 * s->avg / r->exec_avg : 0;
        return timed && r->exec_avg > 0;
    default: return 0;
    }
}

/* ---- building -------------------------------------------------------------- */

typedef struct ent_key {
    int32_t chain, instr;
    const etp_entity *e;
} ent_key;

static int cmp_ent_key(const void *x, const void *y)
{
    const ent_key *a = x, *b = y;
    if (a->chain != b->chain)
        return a->chain < b->chain ? -1 : 1;
    return (a->instr > b->instr) - (a->instr < b->instr);
}

static int cmp_ent_key_then_entity(const void *x, const void *y)
{
    int c = cmp_ent_key(x, y);
    if (c)
        return c;
    const ent_key *a = x, *b = y;
    return (a->e > b->e) - (a->e < b->e);
}

static const etp_entity *find_instr(const ent_key *k, size_t n, int32_t chain, int32_t instr)
{
    ent_key key = {chain, instr, NULL};
    const ent_key *f = n ? bsearch(&key, k, n, sizeof *k, cmp_ent_key) : NULL;
    return f ? f->e : NULL;
}

static etp_status nomem(etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory drawing the report");
}

static etp_status layout_view(rp_view *v, etp_error *err)
{
    etp_layout_edge *edges = malloc((v->edge_count ? v->edge_count : 1) * sizeof *edges);
    if (!edges)
        return nomem(err);
    for (uint32_t i = 0; i < v->edge_count; i++)
        edges[i] = (etp_layout_edge){v->edge_from[i], v->edge_to[i]};
    etp_layout_options o;
    etp_layout_options_init(&o);
    o.rank_sep = 36;
    o.node_sep = 18;
    o.group_pad = 14;
    o.margin = 24;
    etp_status s = etp_layout_compute(v->boxes, v->node_count, edges, v->edge_count, &o, &v->lay, err);
    free(edges);
    return s;
}

static int push_edge(rp_view *v, uint32_t from, uint32_t to, uint32_t *cap)
{
    if (v->edge_count == *cap) {
        uint32_t nc = *cap ? 2 * *cap : 64;
        uint32_t *f = realloc(v->edge_from, nc * sizeof *f);
        if (!f)
            return -1;
        v->edge_from = f;
        uint32_t *t = realloc(v->edge_to, nc * sizeof *t);
        if (!t)
            return -1;
        v->edge_to = t;
        *cap = nc;
    }
    v->edge_from[v->edge_count] = from;
    v->edge_to[v->edge_count] = to;
    v->edge_count++;
    return 0;
}

static etp_status build_instruction_view(rp_report *r, rp_view *v, etp_error *err)
{
    const etp_me_graph *g = r->in->instructions;
    const etp_analysis *a = r->a;
    v->title = "Instructions";
    v->graph_id = g->id;
    v->node_count = g->node_count;
    v->me_count = g->node_count;
    v->nodes = calloc(g->node_count + 1, sizeof *v->nodes);
    v->boxes = calloc(g->node_count + 1, sizeof *v->boxes);
    v->node_of_me = malloc((g->node_count + 1) * sizeof *v->node_of_me);
    ent_key *keys = malloc((a->entity_count + 1) * sizeof *keys);
    if (!v->nodes || !v->boxes || !v->node_of_me || !keys) {
        free(keys);
        return nomem(err);
    }
    size_t nk = 0;
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (a->entities[i].kind == ETP_ENTITY_INSTRUCTION)
            keys[nk++] = (ent_key){a->entities[i].chain, a->entities[i].instruction, &a->entities[i]};
    if (nk)
        qsort(keys, nk, sizeof *keys, cmp_ent_key);
    uint32_t cap = 0;
    for (uint32_t k = 0; k < g->node_count; k++) {
        const etp_me_node *nd = &g->nodes[k];
        rp_node *n = &v->nodes[k];
        v->node_of_me[k] = k;
        n->id = nd->id;
        n->label = nd->label;
        n->me_index = k;
        n->group = -1;
        n->link_index = -1;
        n->kind = nd->kind == ETP_ME_NODE_INPUTS ? "in"
                  : nd->kind == ETP_ME_NODE_OUTPUTS || nd->kind == ETP_ME_NODE_CHAIN_OUTPUTS ? "out"
                  : nd->kind != ETP_ME_NODE_INSTRUCTION || !nd->instr ? "other"
                  : nd->instr->kind == ETP_INSTR_KERNEL ? "kernel"
                  : nd->instr->kind == ETP_INSTR_DELEGATE ? "delegate"
                                                           : "other";
        if (nd->kind == ETP_ME_NODE_INSTRUCTION)
            n->entity = find_instr(keys, nk, nd->chain, nd->instruction);
        n->link = r->in->source ? etp_views_instruction_link(g, k, r->in->source, &n->link_index)
                                : ETP_LINK_NOT_APPLICABLE;
        v->boxes[k] = (etp_layout_node){box_width(nd->label), NODE_H, -1};
        for (uint32_t e = 0; e < nd->edge_count; e++)
            if (push_edge(v, nd->edges[e].source, k, &cap)) {
                free(keys);
                return nomem(err);
            }
    }
    free(keys);
    return layout_view(v, err);
}

static etp_status build_source_view(rp_report *r, rp_view *v, etp_error *err)
{
    const etp_source_graph *g = r->in->source;
    v->title = "Source operators";
    v->graph_id = g->id;
    v->node_of_source = malloc((g->node_count + 1) * sizeof *v->node_of_source);
    v->nodes = calloc(g->node_count + 1, sizeof *v->nodes);
    v->boxes = calloc(g->node_count + 1, sizeof *v->boxes);
    if (!v->node_of_source || !v->nodes || !v->boxes)
        return nomem(err);
    /* Graph inputs (user inputs and every parameter) are listed in the
     * panel, not drawn: thousands of weights would bury the operators. */
    for (uint32_t i = 0; i < g->node_count; i++) {
        const etp_src_node *sn = &g->nodes[i];
        v->node_of_source[i] = -1;
        if (sn->kind == ETP_SRC_NODE_INPUT)
            continue;
        uint32_t k = v->node_count++;
        v->node_of_source[i] = k;
        rp_node *n = &v->nodes[k];
        n->id = sn->id;
        n->label = sn->label;
        n->kind = sn->kind == ETP_SRC_NODE_OUTPUTS                      ? "out"
                  : sn->node && sn->node->is_delegate_call             ? "delegate"
                                                                       : "op";
        n->entity = sn->entity;
        n->link = sn->link;
        n->link_index = -1;
        n->source_index = i;
        n->group = sn->group;
        v->boxes[k] = (etp_layout_node){box_width(sn->label), NODE_H, sn->group};
    }
    uint32_t cap = 0;
    for (uint32_t i = 0; i < g->node_count; i++) {
        int64_t to = v->node_of_source[i];
        for (uint32_t e = 0; to >= 0 && e < g->nodes[i].edge_count; e++) {
            int64_t from = v->node_of_source[g->nodes[i].edges[e].source];
            if (from >= 0 && push_edge(v, (uint32_t)from, (uint32_t)to, &cap))
                return nomem(err);
        }
    }
    return layout_view(v, err);
}

static int32_t *entity_numbers(const rp_report *r, uint32_t *count);

etp_status rp_views_build(rp_report *r, etp_error *err)
{
    r->instr_view = r->src_view = -1;
    const etp_figure *ex = etp_analysis_figure_by_id(r->a, ETP_FIG_METHOD_EXECUTE);
    r->exec_avg = ex && ex->available ? ex->stats.avg : 0;
    etp_status s = ETP_OK;
    if (r->in->instructions && r->in->instructions->node_count > RP_MAX_DRAWN)
        r->skipped_instr = r->in->instructions->node_count;
    if (r->in->source && r->in->source->operator_count + 1 > RP_MAX_DRAWN)
        r->skipped_src = r->in->source->operator_count + 1;
    if (r->in->instructions && !r->skipped_instr) {
        const etp_me_graph *g = r->in->instructions;
        for (uint32_t k = 0; k < g->node_count; k++)
            if (g->nodes[k].kind == ETP_ME_NODE_INSTRUCTION && g->nodes[k].chain == 0 &&
                g->nodes[k].instruction >= 0 && (uint32_t)g->nodes[k].instruction >= r->chain0_count)
                r->chain0_count = (uint32_t)g->nodes[k].instruction + 1;
        /* Drawn index = graph index in the instruction view. */
        r->chain0_node = etp_views_instruction_nodes(g, r->chain0_count);
        if (!r->chain0_node)
            return nomem(err);
        r->instr_view = r->view_count++;
        s = build_instruction_view(r, &r->views[r->instr_view], err);
    }
    if (!s && r->in->source && !r->skipped_src) {
        r->src_view = r->view_count++;
        s = build_source_view(r, &r->views[r->src_view], err);
    }
    if (!s) {
        uint32_t shown;
        r->entity_num = entity_numbers(r, &shown);
        if (!r->entity_num)
            s = nomem(err);
    }
    return s;
}

void rp_views_free(rp_report *r)
{
    free(r->chain0_node);
    r->chain0_node = NULL;
    free(r->entity_num);
    r->entity_num = NULL;
    for (int i = 0; i < 2; i++) {
        rp_view *v = &r->views[i];
        free(v->nodes);
        free(v->boxes);
        free(v->edge_from);
        free(v->edge_to);
        free(v->node_of_source);
        free(v->node_of_me);
        etp_layout_release(&v->lay);
        memset(v, 0, sizeof *v);
    }
}

/* ---- metric values and colours ----------------------------------------------- */

typedef struct rp_colors {
    int any;
    double min, max;
} rp_colors;

void rp_num(char *buf, size_t size, double v)
{
    if (!isfinite(v))
        snprintf(buf, size, "-");
    else if (fabs(v) >= 1e4)
        snprintf(buf, size, "%.0f", v);
    else
        snprintf(buf, size, "%.4g", v);
}

/* ---- SVG skeleton ------------------------------------------------------------- */

void rp_html(FILE *fp, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
                fputc(' ', fp);
            else
                fputc(*s, fp);
        }
    }
}

typedef struct span {
    uint32_t layer;
    double x0, x1, y0, y1;
} span;

static int cmp_span(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return (a->layer > b->layer) - (a->layer < b->layer);
}

/* "<cmd>x,y " of a path, as fprintf("%s%.1f,%.1f ") writes it. */
static void put_point(FILE *fp, const char *cmd, double x, double y)
{
    char b[2 * ETP_FIXED1_MAX + 8];
    size_t n = strlen(cmd);
    memcpy(b, cmd, n);
    n += (size_t)etp_format_fixed1(b + n, x);
    b[n++] = ',';
    n += (size_t)etp_format_fixed1(b + n, y);
    b[n++] = ' ';
    fwrite(b, 1, n, fp);
}

/* Outline of a delegated region: per layer the extent of its nodes, joined
 * down the right side and back up the left, one polygon per run of
 * consecutive layers (the layout keeps a group contiguous in each layer). */
static void group_outlines(FILE *fp, const rp_report *r, const rp_view *v)
{
    const etp_source_graph *g = r->in->source;
    span *sp = malloc((v->node_count + 1) * sizeof *sp);
    /* The nodes of each group, in node order (a counting sort): one pass
     * over the nodes instead of one per group. */
    uint32_t *start = calloc((size_t)g->group_count + 1, sizeof *start);
    uint32_t *order = malloc((v->node_count + 1) * sizeof *order);
    if (!sp || !start || !order) {
        free(sp);
        free(start);
        free(order);
        return;
    }
    for (uint32_t i = 0; i < v->node_count; i++)
        if (v->nodes[i].group >= 0 && (uint32_t)v->nodes[i].group < g->group_count)
            start[v->nodes[i].group + 1]++;
    for (uint32_t gi = 0; gi < g->group_count; gi++)
        start[gi + 1] += start[gi];
    for (uint32_t i = 0, *next = start; i < v->node_count; i++)
        if (v->nodes[i].group >= 0 && (uint32_t)v->nodes[i].group < g->group_count)
            order[next[v->nodes[i].group]++] = i;
    /* start[gi] now ends group gi: its nodes are order[start[gi-1], start[gi]) */
    const double pad = 7;
    for (uint32_t gi = 0; gi < g->group_count; gi++) {
        size_t n = 0;
        for (uint32_t o = gi ? start[gi - 1] : 0; o < start[gi]; o++) {
            uint32_t i = order[o];
            double hw = v->boxes[i].width / 2, hh = v->boxes[i].height / 2;
            span s = {v->lay.layer[i], v->lay.x[i] - hw - pad, v->lay.x[i] + hw + pad,
                      v->lay.y[i] - hh - pad, v->lay.y[i] + hh + pad};
            size_t k;
            for (k = 0; k < n && sp[k].layer != s.layer; k++)
                ;
            if (k == n)
                sp[n++] = s;
            else {
                sp[k].x0 = s.x0 < sp[k].x0 ? s.x0 : sp[k].x0;
                sp[k].x1 = s.x1 > sp[k].x1 ? s.x1 : sp[k].x1;
                sp[k].y0 = s.y0 < sp[k].y0 ? s.y0 : sp[k].y0;
                sp[k].y1 = s.y1 > sp[k].y1 ? s.y1 : sp[k].y1;
            }
        }
        if (!n)
            continue;
        qsort(sp, n, sizeof *sp, cmp_span);
        fprintf(fp, "<g class=\"grp\" data-g=\"%" PRIu32 "\">", gi);
        for (size_t a = 0; a < n;) {
            size_t b = a + 1;
            while (b < n && sp[b].layer == sp[b - 1].layer + 1)
                b++;
            fputs("<path d=\"", fp);
            for (size_t k = a; k < b; k++) {
                put_point(fp, k == a ? "M" : "L", sp[k].x1, sp[k].y0);
                put_point(fp, "L", sp[k].x1, sp[k].y1);
            }
            for (size_t k = b; k-- > a;) {
                put_point(fp, "L", sp[k].x0, sp[k].y1);
                put_point(fp, "L", sp[k].x0, sp[k].y0);
            }
            fputs("Z\"/>", fp);
            a = b;
        }
        const etp_src_group *gr = &g->groups[gi];
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">", sp[0].x0 + 4, sp[0].y0 - 4);
        rp_html(fp, gr->backend ? gr->backend : "delegate");
        fprintf(fp, " \xc2\xb7 %s_0_%" PRId32 "</text></g>\n", g->method, gr->instruction);
    }
    free(sp);
    free(start);
    free(order);
}

/* The drawing's frame: arrow marker, region outlines (few, drawn here), and
 * empty edge and node groups the script fills with what is visible. */
void rp_write_svg(FILE *fp, const rp_report *r, int vi)
{
    const rp_view *v = &r->views[vi];
    const etp_layout *l = &v->lay;
    fprintf(fp,
            "<svg class=\"graph\" id=\"svg%d\" xmlns=\"http://www.w3.org/2000/svg\" "
            "data-w=\"%.1f\" data-h=\"%.1f\" role=\"img\" aria-label=\"",
            vi, l->width, l->height);
    rp_html(fp, v->title);
    fprintf(fp, "\">\n<defs><marker id=\"arr%d\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" "
                "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0L8,4L0,8z\"/>"
                "</marker></defs>\n<g class=\"vp\">\n<g class=\"grps\">\n",
            vi);
    if (vi == r->src_view)
        group_outlines(fp, r, v);
    fprintf(fp, "</g>\n<g class=\"edges\" marker-end=\"url(#arr%d)\">\n", vi);
    fputs("</g>\n<g class=\"nodes\">\n", fp);
    fputs("</g>\n</g>\n</svg>\n", fp);
}

/* ---- data for the script -------------------------------------------------------- */

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
    if (e->co_count) {
        ETP_JW_KEY_LIT(w, "co");
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < e->co_count; i++)
            etp_jw_str(w, e->co_attributed[i]);
        etp_jw_arr_end(w);
    }
    if (e->handle_count) {
        ETP_JW_KEY_LIT(w, "h");
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < e->handle_count; i++)
            etp_jw_int(w, e->handles[i]);
        etp_jw_arr_end(w);
    }
    if (e->unresolved_count) {
        ETP_JW_KEY_LIT(w, "u");
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < e->unresolved_count; i++)
            etp_jw_int(w, e->unresolved[i]);
        etp_jw_arr_end(w);
    }
    if (e->has_kernel && e->kernel.executions) {
        ETP_JW_KDOUBLE_LIT(w, "k", e->kernel.stats.avg);
        if (e->dispatch.n)
            ETP_JW_KDOUBLE_LIT(w, "d", e->dispatch.avg);
    }
    npu_json(w, r, e);
    if (e->module_path)
        ETP_JW_KSTR_LIT(w, "mp", e->module_path);
    if (e->module_type)
        ETP_JW_KSTR_LIT(w, "mt", e->module_type);
    if (e->source_fn)
        ETP_JW_KSTR_LIT(w, "fn", e->source_fn);
    if (e->stack_trace)
        ETP_JW_KSTR_LIT(w, "st", e->stack_trace);
    (void)r;
    etp_jw_obj_end(w);
}

/* Entities the page shows, numbered in analysis order: those of drawn
 * nodes and the delegate events of drawn delegate calls. */
static int32_t *entity_numbers(const rp_report *r, uint32_t *count)
{
    const etp_analysis *a = r->a;
    int32_t *num = malloc((a->entity_count + 1) * sizeof *num);
    if (!num)
        return NULL;
    for (uint32_t i = 0; i < a->entity_count; i++)
        num[i] = -1;
    for (int vi = 0; vi < r->view_count; vi++)
        for (uint32_t i = 0; i < r->views[vi].node_count; i++)
            if (r->views[vi].nodes[i].entity)
                num[r->views[vi].nodes[i].entity - a->entities] = 0;
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (a->entities[i].kind == ETP_ENTITY_DELEGATE_EVENT && r->instr_view >= 0)
            num[i] = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (num[i] == 0)
            num[i] = (int32_t)n++;
    *count = n;
    return num;
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
    ETP_JW_KINT_LIT(w, "nh", (int64_t)llround(NODE_H * 10));
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

/* Index of the first key in sorted @p k not less than @p key. */
static size_t lower_bound(const ent_key *k, size_t n, const ent_key *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_ent_key(&k[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Delegate events keyed by their call's (chain, instruction), in entity
 * order within one call: each delegate node finds its own by a search
 * instead of a pass over every entity. *n receives the count. */
static ent_key *delegate_events_by_call(const etp_analysis *a, size_t *n)
{
    ent_key *k = malloc((a->entity_count + 1) * sizeof *k);
    *n = 0;
    if (!k)
        return NULL;
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind == ETP_ENTITY_DELEGATE_EVENT)
            k[(*n)++] = (ent_key){e->chain, e->instruction, e};
    }
    /* Entity order breaks ties, so the sort is stable by construction. */
    qsort(k, *n, sizeof *k, cmp_ent_key_then_entity);
    return k;
}

static void view_json(etp_jw *w, const rp_report *r, int vi, const int32_t *num)
{
    const rp_view *v = &r->views[vi];
    const etp_analysis *a = r->a;
    size_t ndev = 0;
    ent_key *dev = vi == r->instr_view ? delegate_events_by_call(a, &ndev) : NULL;
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
            ent_key key = {n->entity->chain, n->entity->instruction, NULL};
            size_t k = dev ? lower_bound(dev, ndev, &key) : 0;
            for (; k < ndev && !cmp_ent_key(&dev[k], &key); k++)
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
    /* Per metric: values (null where none), colours and text colours, as
     * the overlay files have them. Each node's value is looked up once per
     * metric (vals/has), then its range, the values and the colours. */
    double *vals = malloc(((size_t)v->node_count + 1) * sizeof *vals);
    char *has = malloc((size_t)v->node_count + 1);
    char *bgs = malloc((size_t)v->node_count * 7 + 2);
    if (!vals || !has || !bgs)
        w->failed = 1;
    ETP_JW_KEY_LIT(w, "metrics");
    etp_jw_arr_begin(w);
    for (int m = 0; vals && has && bgs && m < RP_METRICS; m++) {
        rp_colors c = {0, INFINITY, -INFINITY};
        int hide_sum = m == RP_P50 || m == RP_MIN || m == RP_MAX;
        for (uint32_t i = 0; i < v->node_count; i++) {
            has[i] = (char)rp_metric_value(r, v->nodes[i].entity, (rp_metric)m, &vals[i]);
            if (!has[i])
                continue;
            c.any = 1;
            c.min = vals[i] < c.min ? vals[i] : c.min;
            c.max = vals[i] > c.max ? vals[i] : c.max;
            hide_sum |= !v->nodes[i].entity->additive;
        }
        /* One value (or all equal): a scale from 0, so the only node is drawn
         * as the costly one it is, not as the cheapest. */
        if (c.any && c.min == c.max && c.max > 0)
            c.min = 0;
        etp_jw_break(w);
        etp_jw_obj_begin(w);
        ETP_JW_KEY_LIT(w, "v");
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < v->node_count; i++) {
            if (has[i])
                etp_jw_double(w, vals[i]);
            else
                etp_jw_null(w);
        }
        etp_jw_arr_end(w);
        /* Background colours, 6 hex digits per node, and text colours, one
         * digit per node ('1' white), each one string. */
        etp_me_scale scale;
        etp_me_scale_init(&scale, NULL, 0, c.min, c.max); /* the default gradient fits */
        char *fgs = bgs + (size_t)v->node_count * 6 + 1;
        for (uint32_t i = 0; i < v->node_count; i++) {
            char bg[8] = NO_VALUE, fg[8] = "#1f1f1f";
            if (c.any && has[i])
                etp_me_scale_color(&scale, vals[i], bg, fg);
            memcpy(bgs + (size_t)i * 6, bg + 1, 6);
            fgs[i] = fg[1] == 'f' ? '1' : '0';
        }
        bgs[(size_t)v->node_count * 6] = 0;
        fgs[v->node_count] = 0;
        ETP_JW_KSTR_LIT(w, "bg", bgs);
        ETP_JW_KSTR_LIT(w, "fg", fgs);
        if (c.any) {
            ETP_JW_KDOUBLE_LIT(w, "min", c.min);
            ETP_JW_KDOUBLE_LIT(w, "max", c.max);
        }
        ETP_JW_KBOOL_LIT(w, "noSum", hide_sum);
        etp_jw_obj_end(w);
    }
    free(vals);
    free(has);
    free(bgs);
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
    free(dev);
}

void rp_write_data(etp_jw *w, const rp_report *r)
{
    const etp_analysis *a = r->a;
    const int32_t *num = r->entity_num;
    etp_jw_obj_begin(w);
    ETP_JW_KSTR_LIT(w, "method", a->method);
    ETP_JW_KSTR_LIT(w, "unit", etp_unit_name(a->target_unit));
    ETP_JW_KUINT_LIT(w, "executions", a->execution_count);
    ETP_JW_KDOUBLE_LIT(w, "execAvg", r->exec_avg);
    ETP_JW_KEY_LIT(w, "metrics");
    etp_jw_arr_begin(w);
    for (int m = 0; m < RP_METRICS; m++) {
        etp_jw_obj_begin(w);
        ETP_JW_KSTR_LIT(w, "name", rp_metric_name((rp_metric)m));
        ETP_JW_KSTR_LIT(w, "unit", rp_metric_unit(r, (rp_metric)m));
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    ETP_JW_KEY_LIT(w, "links");
    etp_jw_arr_begin(w);
    for (int k = ETP_LINK_LINKED; k <= ETP_LINK_NOT_APPLICABLE; k++)
        etp_jw_str(w, etp_link_state_name((etp_link_state)k));
    etp_jw_arr_end(w);
    ETP_JW_KEY_LIT(w, "stops");
    etp_jw_arr_begin(w);
    static const char *const stops[][2] = {{"0", "#1a9850"}, {"0.5", "#ffd700"}, {"1", "#d73027"}};
    for (int i = 0; i < 3; i++) {
        etp_jw_arr_begin(w);
        etp_jw_double(w, atof(stops[i][0]));
        etp_jw_str(w, stops[i][1]);
        etp_jw_arr_end(w);
    }
    etp_jw_arr_end(w);
    ETP_JW_KEY_LIT(w, "views");
    etp_jw_arr_begin(w);
    for (int vi = 0; vi < r->view_count; vi++)
        view_json(w, r, vi, num);
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
