/* report_view.c - the drawn views of the HTML report: which nodes and
 * edges each graph shows, their boxes laid out with the layered engine
 * (layout.h), and which entities the page shows. Drawing them is
 * report_svg.c's and report_data.c's. */
#include <stdlib.h>
#include <string.h>

#include "outputs/report/report_internal.h"
#include "outputs/mexplorer/me_links_internal.h"

#define CHAR_W 7.3      /* DejaVu Sans Mono at 12px: 0.6 em per glyph */
#define LABEL_MAX 44    /* characters drawn on a node; the full label is in the panel */

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

/* The instruction entity at (@p chain, @p instr) of sorted @p k, or NULL. */
static const etp_entity *find_instr(const rp_ent_key *k, size_t n, int32_t chain, int32_t instr)
{
    size_t i = rp_entity_keys_lower(k, n, chain, instr);
    return i < n && k[i].chain == chain && k[i].instr == instr ? k[i].e : NULL;
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
    size_t nk = 0;
    rp_ent_key *keys = rp_entity_keys(a, ETP_ENTITY_INSTRUCTION, &nk);
    if (!v->nodes || !v->boxes || !v->node_of_me || !keys) {
        free(keys);
        return nomem(err);
    }
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
        n->link = r->in->source ? etp_me_instruction_link(g, k, r->in->source, &n->link_index)
                                : ETP_LINK_NOT_APPLICABLE;
        v->boxes[k] = (etp_layout_node){box_width(nd->label), RP_NODE_H, -1};
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
        v->boxes[k] = (etp_layout_node){box_width(sn->label), RP_NODE_H, sn->group};
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

etp_status rp_views_build(rp_report *r, etp_error *err)
{
    r->instr_view = r->src_view = -1;
    r->exec_avg = etp_me_exec_avg(r->a);
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
        r->chain0_node = etp_me_instruction_nodes(g, r->chain0_count);
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
