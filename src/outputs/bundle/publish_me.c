/* publish_me.c - model_explorer/ of a bundle:
 *   graph.json      the program graph (as the Arm PTE adapter draws it) and,
 *                   with an ETRecord, the method's source graph
 *                   ("<method>.source") in the same collection;
 *   <metric>.json   one overlay per metric, keyed by graph id then node id
 *                   (instruction ids <method>_<chain>_<instr>, operator ids);
 *   link-status.json how every node is linked to the other graph;
 *   findings.json   the findings naming each node (me_findings_overlay.c);
 *   mapping.json, sync_navigation.json  instruction <-> operator links;
 *   index.html      the standalone report, written only if the .pte still
 *                   has the bytes that were analysed.
 * The "overlays" level (po->model_explorer_overlays_only) leaves out
 * graph.json and index.html, the per-program files. 
 * Delegate timings sit on the delegate-call node; they are never spread over
 * the operators inside the delegate. */
#include <stdlib.h>
#include <string.h>

#include "etprof/mexplorer.h"
#include "etprof/me_links.h"
#include "etprof/report.h"
#include "outputs/mexplorer/me_write.h"
#include "outputs/bundle/publish_internal.h"
#include "outputs/mexplorer/me_metrics.h"
#include "outputs/mexplorer/me_findings_overlay.h"
#include "outputs/mexplorer/me_nx_overlay.h"
#include "outputs/mexplorer/me_links_internal.h"

typedef struct me_ctx {
    const etp_analysis *a;
    const etp_me_collection *c;
    const etp_source_graph *sg;
    const char *label;
    const etp_me_graph *ig;
    etp_report_inputs report;
} me_ctx;

static void write_source_graph(etp_jw *w, void *ctx)
{
    const me_ctx *m = ctx;
    if (m->sg)
        etp_source_graph_write_me(w, m->sg, m->a);
}

static int fill_graph(FILE *fp, void *ctx, etp_error *err)
{
    me_ctx *m = ctx;
    if (m->c)
        return etp_me_write_extended(m->c, fp, 0, write_source_graph, m, err) ? -1 : 0;
    /* No program: a collection holding only the source graph. */
    etp_jw w;
    etp_jw_init_file(&w, fp, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "label", m->label);
    etp_jw_key(&w, "graphs");
    etp_jw_arr_begin(&w);
    write_source_graph(&w, m);
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    if (etp_jw_finish(&w)) {
        etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "could not write the graph");
        return -1;
    }
    return 0;
}

/* One metric's overlay file: its values on each graph, owned here so that
 * the files can be written at the same time. */
typedef struct overlay_file {
    etp_me_overlay ov[2];
    size_t count;
    etp_me_value *ivals, *svals;
    char rel[260];
} overlay_file;

/* link-status.json's string values, likewise. */
typedef struct label_file {
    etp_me_label_overlay ov[2];
    size_t count;
    etp_me_label *il, *sl;
} label_file;

static int fill_overlay(FILE *fp, void *ctx, etp_error *err)
{
    const overlay_file *f = ctx;
    return etp_me_write_overlays(f->ov, f->count, fp, 0, err) ? -1 : 0;
}

static int fill_labels(FILE *fp, void *ctx, etp_error *err)
{
    const label_file *f = ctx;
    return etp_me_write_label_overlays(f->ov, f->count, fp, 0, err) ? -1 : 0;
}

static int fill_findings(FILE *fp, void *ctx, etp_error *err)
{
    const etp_me_findings_overlay *f = ctx;
    return etp_me_write_label_overlays(f->ov, f->count, fp, 0, err) ? -1 : 0;
}

static int fill_mapping(FILE *fp, void *ctx, etp_error *err)
{
    const me_ctx *m = ctx;
    return etp_me_write_mapping(m->a, m->ig, m->sg, fp, err) ? -1 : 0;
}

static int fill_sync(FILE *fp, void *ctx, etp_error *err)
{
    const me_ctx *m = ctx;
    return etp_me_write_sync_navigation(m->ig, m->sg, fp, err) ? -1 : 0;
}

static int fill_page(FILE *fp, void *ctx, etp_error *err)
{
    const me_ctx *m = ctx;
    return etp_report_write_html(&m->report, fp, err) ? -1 : 0;
}

static const char *basename_of(const char *p)
{
    if (!p)
        return NULL;
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int cmp_str_ptr(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The instruction graph's node ids, sorted, for membership tests. */
static const char **sorted_ids(const etp_me_graph *g)
{
    const char **ids = malloc(((g ? g->node_count : 0) + 1) * sizeof *ids);
    if (!ids || !g)
        return ids;
    for (uint32_t k = 0; k < g->node_count; k++)
        ids[k] = g->nodes[k].id;
    qsort(ids, g->node_count, sizeof *ids, cmp_str_ptr);
    return ids;
}

/* Metric @p m's @p n values on graph @p graph_id, as the next overlay of @p f. */
static void add_overlay(overlay_file *f, const char *graph_id, const etp_me_metric *m,
                        const char *unit, etp_me_value *values, size_t n, unsigned hide)
{
    etp_me_overlay *ov = &f->ov[f->count++];
    etp_me_overlay_init(ov);
    ov->graph_id = graph_id;
    ov->metric = m->name;
    ov->unit = unit;
    ov->values = values;
    ov->value_count = n;
    ov->hide_stats = hide;
    ov->colors_when_needed = 1;
}

_Static_assert(ETP_ME_METRICS + 6 == ETP_PUBLISH_ME_STREAMS, "the stream list's size");

/* The overlay files (one per metric with values, me_metrics.h), into @p files; *count
 * receives how many. Their value arrays are freed by free_overlays. */
static etp_status build_overlays(const me_ctx *ctx, overlay_file *files, size_t *count,
                                 etp_error *err)
{
    const etp_analysis *a = ctx->a;
    double exec_avg = etp_me_exec_avg(a);
    uint32_t nsrc = ctx->sg ? ctx->sg->node_count : 0;
    const char **ids = sorted_ids(ctx->ig);
    /* Which instruction entities are nodes of the graph (every key must
     * exist in the graph it targets): looked up once, not per metric. */
    char *in_graph = calloc(a->entity_count + 1, 1);
    *count = 0;
    if (!ids || !in_graph) {
        free(ids);
        free(in_graph);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    for (uint32_t i = 0; ctx->ig && i < a->entity_count; i++)
        in_graph[i] = a->entities[i].kind == ETP_ENTITY_INSTRUCTION &&
                      bsearch(&a->entities[i].id, ids, ctx->ig->node_count, sizeof *ids,
                              cmp_str_ptr) != NULL;
    etp_status s = ETP_OK;
    for (size_t mi = 0; !s && mi < ETP_ME_METRICS; mi++) {
        const etp_me_metric *m = &etp_me_metrics[mi];
        overlay_file *f = &files[*count];
        memset(f, 0, sizeof *f);
        f->ivals = calloc(a->entity_count + 1, sizeof *f->ivals);
        f->svals = calloc(nsrc + 1, sizeof *f->svals);
        (*count)++;
        if (!f->ivals || !f->svals) {
            s = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
            break;
        }
        const char *unit = etp_me_metric_unit(m, a);
        size_t n = 0;
        for (uint32_t i = 0; ctx->ig && i < a->entity_count; i++) {
            const etp_entity *e = &a->entities[i];
            double v;
            if (!in_graph[i] || !etp_me_metric_value(m, a, e, exec_avg, &v))
                continue;
            f->ivals[n].node_id = e->id;
            f->ivals[n].value = v;
            n++;
        }
        /* Averages of instructions add up; p50/min/max do not. */
        if (n)
            add_overlay(f, ctx->ig->id, m, unit, f->ivals, n, m->hide);
        size_t ns = 0;
        int shared = 0;
        for (uint32_t i = 0; m->on_source && i < nsrc; i++) {
            const etp_entity *e = ctx->sg->nodes[i].entity;
            double v;
            if (!e || !etp_me_metric_value(m, a, e, exec_avg, &v))
                continue;
            f->svals[ns].node_id = ctx->sg->nodes[i].id;
            f->svals[ns].value = v;
            shared |= !e->additive;
            ns++;
        }
        /* Shared timings give several operators the same event: their sum
         * would count it several times. */
        if (ns)
            add_overlay(f, ctx->sg->id, m, unit, f->svals, ns,
                        m->hide | (shared ? ETP_ME_HIDE_SUM : 0));
        if (!f->count) {
            free(f->ivals);
            free(f->svals);
            (*count)--;
            continue;
        }
        char fname[200];
        etp_me_overlay_filename(fname, sizeof fname, m->name, unit);
        snprintf(f->rel, sizeof f->rel, "model_explorer/%s", fname);
    }
    free(ids);
    free(in_graph);
    return s;
}

static void free_overlays(overlay_file *files, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(files[i].ivals);
        free(files[i].svals);
    }
}

#define LINK_OK "#91bfdb"
#define LINK_SHARED "#fee090"
#define LINK_NONE "#f46d43"

/* link-status.json: how each node is linked, as strings with colours. */
static etp_status build_link_overlay(const me_ctx *ctx, label_file *f, etp_error *err)
{
    const etp_source_graph *sg = ctx->sg;
    const etp_me_graph *ig = ctx->ig;
    uint32_t ni = ig ? ig->node_count : 0;
    memset(f, 0, sizeof *f);
    etp_me_label *il = f->il = calloc(ni + 1, sizeof *il);
    etp_me_label *sl = f->sl = calloc(sg->node_count + 1, sizeof *sl);
    if (!il || !sl)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    size_t n = 0;
    for (uint32_t k = 0; k < ni; k++) {
        int64_t li;
        etp_link_state st = etp_me_instruction_link(ig, k, sg, &li);
        if (st == ETP_LINK_NOT_APPLICABLE)
            continue;
        int shared = st == ETP_LINK_LINKED && sg->links[li].node_count > 1;
        il[n].node_id = ig->nodes[k].id;
        il[n].value = st != ETP_LINK_LINKED ? etp_link_state_name(st)
                      : shared             ? "linked to several operators"
                                           : "linked";
        il[n].bg_color = st != ETP_LINK_LINKED ? LINK_NONE : shared ? LINK_SHARED : LINK_OK;
        n++;
    }
    size_t m = 0;
    for (uint32_t k = 0; k < sg->node_count; k++) {
        const etp_src_node *nd = &sg->nodes[k];
        if (nd->kind != ETP_SRC_NODE_OPERATOR)
            continue;
        int shared = nd->entity && nd->entity->shared;
        sl[m].node_id = nd->id;
        sl[m].value = nd->link != ETP_LINK_LINKED ? etp_link_state_name(nd->link)
                      : shared ? "linked, shared timing (non-additive)"
                               : "linked";
        sl[m].bg_color = nd->link != ETP_LINK_LINKED ? LINK_NONE : shared ? LINK_SHARED : LINK_OK;
        m++;
    }
    if (n)
        f->ov[f->count++] = (etp_me_label_overlay){ig->id, "Link status", il, n};
    if (m)
        f->ov[f->count++] = (etp_me_label_overlay){sg->id, "Link status", sl, m};
    return ETP_OK;
}

/* The model_explorer/ files of one publication, built before any is
 * written so that they can be written together with the core ones. */
struct etp_publish_me {
    me_ctx ctx;
    etp_me_collection *c;
    etp_source_graph *sg;
    overlay_file ovf[ETP_ME_METRICS];
    size_t novf;
    label_file links;
    etp_me_findings_overlay findings;
    int overlays_only; /* the "overlays" level: no graph.json, no index.html */
};

void etp_publish_me_free(etp_publish_me *m)
{
    if (!m)
        return;
    free_overlays(m->ovf, m->novf);
    free(m->links.il);
    free(m->links.sl);
    etp_me_findings_overlay_free(&m->findings);
    etp_source_graph_free(m->sg);
    etp_me_free(m->c);
    free(m);
}

etp_status etp_publish_me_prepare(const etp_analysis *a, const etp_publish_options *po,
                                  etp_publish_me **out, etp_error *err)
{
    *out = NULL;
    etp_publish_me *m = calloc(1, sizeof *m);
    if (!m)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    me_ctx *ctx = &m->ctx;
    ctx->a = a;
    m->overlays_only = po->model_explorer_overlays_only;
    etp_status s = ETP_OK;
    if (a->program) {
        s = etp_me_build(a->program, NULL, basename_of(a->program->path), &m->c, err);
        if (!s && !(ctx->ig = etp_me_find_graph(m->c, a->method)))
            s = etp_error_set(err, ETP_E_INTERNAL, a->program->path, ETP_NO_OFFSET,
                              "no graph for method %s", a->method);
    }
    if (!s && a->etrecord && etp_etrecord_edge_program(a->etrecord, a->method))
        s = etp_source_graph_build(a, NULL, &m->sg, err);
    if (!s && !m->c && !m->sg) {
        etp_publish_me_free(m); /* nothing to draw */
        return ETP_OK;
    }
    ctx->c = m->c;
    ctx->sg = m->sg;
    ctx->label = a->etrecord ? basename_of(a->etrecord->path) : "etprof";
    if (!s && m->c && m->sg && etp_me_find_graph(m->c, m->sg->id))
        s = etp_error_set(err, ETP_E_MISMATCH, a->program->path, ETP_NO_OFFSET,
                          "the program has a method named %s, the source graph's id", m->sg->id);
    if (!s)
        s = build_overlays(ctx, m->ovf, &m->novf, err);
    if (!s && m->sg)
        s = build_link_overlay(ctx, &m->links, err);
    if (!s)
        s = etp_me_findings_overlay_build(a, ctx->ig, m->sg, &m->findings, err);
    if (s) {
        etp_publish_me_free(m);
        return s;
    }
    ctx->report.analysis = a;
    ctx->report.instructions = ctx->ig;
    ctx->report.source = m->sg;
    ctx->report.etdump_name = basename_of(po->etdump_path);
    ctx->report.pte_name = basename_of(po->pte_path);
    ctx->report.etrecord_name = basename_of(po->etrecord_path);
    *out = m;
    return ETP_OK;
}

size_t etp_publish_me_streams(etp_publish_me *m, etp_bundle_stream *jobs)
{
    me_ctx *ctx = &m->ctx;
    size_t nj = 0;
    if (!m->overlays_only)
        jobs[nj++] = (etp_bundle_stream){"model_explorer/graph.json", "application/json",
                                         "projection", NULL, 0, fill_graph, ctx};
    for (size_t k = 0; k < m->novf; k++)
        jobs[nj++] = (etp_bundle_stream){m->ovf[k].rel, "application/json", "projection", NULL, 0,
                                         fill_overlay, &m->ovf[k]};
    if (m->links.count)
        jobs[nj++] = (etp_bundle_stream){"model_explorer/link-status.json", "application/json",
                                         "projection", NULL, 0, fill_labels, &m->links};
    if (m->findings.count)
        jobs[nj++] = (etp_bundle_stream){"model_explorer/findings.json", "application/json",
                                         "projection", NULL, 0, fill_findings, &m->findings};
    if (ctx->ig && m->sg) {
        jobs[nj++] = (etp_bundle_stream){"model_explorer/mapping.json", "application/json",
                                         "projection", "etprof.me-mapping", 1, fill_mapping, ctx};
        jobs[nj++] = (etp_bundle_stream){"model_explorer/sync_navigation.json", "application/json",
                                         "projection", NULL, 0, fill_sync, ctx};
    }
    if (!m->overlays_only)
        jobs[nj++] = (etp_bundle_stream){"model_explorer/index.html", "text/html", "projection",
                                         NULL, 0, fill_page, ctx};
    return nj;
}

etp_status etp_publish_me_finish(etp_bundle *b, const etp_publish_me *m,
                                 const etp_publish_inputs *in, etp_error *err)
{
    const etp_analysis *a = m->ctx.a;
    etp_status s = ETP_OK;
    /* The companion-program gate: the page draws the program as it was
     * analysed; a file changed since then would not match it. Checked once
     * the inputs are hashed, after the files are written: a failure here
     * fails the whole publication, so nothing of them is ever published. */
    if (a->program && in->pte.sha256)
        s = etp_me_check_program_digest(a, in->pte.path, in->pte.sha256, err);
    else if (a->program)
        s = etp_me_check_program(a, a->program->path, err);
    if (!s && a->nx) { /* VGF chain cycles on the VGF graph's nodes */
        char *vt = NULL, *lt = NULL;
        size_t vl = 0, ll = 0;
        s = etp_nx_overlays(a, &vt, &vl, &lt, &ll, err);
        if (!s && vt)
            s = etp_bundle_write(b, "model_explorer/vgf-chain-total-cycles-avg.json", vt, vl,
                                 "application/json", "projection", NULL, 0, err);
        if (!s && lt)
            s = etp_bundle_write(b, "model_explorer/vgf-chain.json", lt, ll, "application/json",
                                 "projection", NULL, 0, err);
        free(vt);
        free(lt);
    }
    return s;
}
