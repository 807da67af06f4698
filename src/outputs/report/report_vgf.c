/*
 * report_vgf.c - the report page's VGF delegate graphs: for each VgfBackend
 * delegate call of the drawn method, its TOSA graph (the nodes Arm's VGF
 * adapter draws, me_vgf.c) laid out here with the same layered engine as the
 * other views, written as a JSON block "etp-vgf" for report_vgf.js, which
 * opens it from the delegate node's details panel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/nx_stats.h"
#include "outputs/mexplorer/me_vgf.h"
#include "util/layout.h"
#include "outputs/report/report_internal.h"
#include "util/jsonw.h"

#define VGF_NODE_H 34.0
#define VGF_CHAR_W 7.3
#define VGF_LABEL_MAX 44

static double vgf_box_width(const char *label)
{
    size_t n = 0;
    for (const char *s = label; s && *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    if (n > VGF_LABEL_MAX)
        n = VGF_LABEL_MAX;
    if (n < 14)
        n = 14; /* room for the SPIR-V id line */
    return (double)n * VGF_CHAR_W + 18;
}

static int64_t tenth(double v) { return (int64_t)llround(v * 10); }

/* Index of the first node with id @p id, or -1 (linear: a few hundred nodes). */
static int64_t node_index(const etp_me_vgf_graph *g, const char *id)
{
    for (uint32_t i = 0; i < g->node_count; i++)
        if (!strcmp(g->nodes[i].id, id))
            return i;
    return -1;
}

static const char *kv_value(const etp_me_vgf_meta *m, const char *key)
{
    for (uint32_t k = 0; m && k < m->attr_count; k++)
        if (!strcmp(m->attrs[k].key, key))
            return m->attrs[k].value;
    return NULL;
}

/* The NX chain (etprof/nx_stats.h) whose debug-database links name SPIR-V
 * result @p id of segment @p seg of VGF instruction @p instr, or NULL. */
static const etp_nx_entity *nx_chain_of(const etp_nx_result *x, int32_t instr, int64_t seg, uint32_t id)
{
    for (uint32_t i = 0; x && i < x->entity_count; i++) {
        const etp_nx_entity *e = &x->entities[i];
        if (e->kind != ETP_NX_CHAIN || e->instruction_id != instr || e->segment_id != seg)
            continue;
        for (uint32_t k = 0; k < e->op_count; k++)
            if (e->ops[k].spirv_id == (int64_t)id)
                return e;
    }
    return NULL;
}

/* One delegate's graph; 0 on success (a layout failure drops the graph).
 * @p x / @p instr: the VGF NX cycles of the call (NULL / -1 when none):
 * a TOSA node linked to a chain names it ("nx"), for the page to colour it
 * with the chain's cycles as a group measurement. */
static int write_graph(etp_jw *w, const char *call_id, const etp_me_vgf_graph *g, const etp_nx_result *x,
                       int32_t instr)
{
    uint32_t n = g->node_count, m = 0;
    for (uint32_t i = 0; i < n; i++)
        m += g->nodes[i].edge_count;
    etp_layout_node *boxes = calloc(n ? n : 1, sizeof *boxes);
    etp_layout_edge *edges = calloc(m ? m : 1, sizeof *edges);
    if (!boxes || !edges) {
        free(boxes);
        free(edges);
        return -1;
    }
    uint32_t ne = 0;
    for (uint32_t i = 0; i < n; i++) {
        boxes[i] = (etp_layout_node){vgf_box_width(g->nodes[i].label), VGF_NODE_H, -1};
        for (uint32_t k = 0; k < g->nodes[i].edge_count; k++) {
            /* Edges from constants name nodes that are never drawn. */
            int64_t s = node_index(g, g->nodes[i].edges[k].source);
            if (s < 0)
                continue;
            edges[ne].from = (uint32_t)s;
            edges[ne++].to = i;
        }
    }
    etp_layout lay;
    memset(&lay, 0, sizeof lay);
    etp_error err;
    int rc = etp_layout_compute(boxes, n, edges, ne, NULL, &lay, &err) ? -1 : 0;
    if (!rc) {
        uint32_t ops = 0;
        for (uint32_t i = 0; i < n; i++)
            ops += g->nodes[i].op != NULL;
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "call", call_id);
        etp_jw_kuint(w, "ops", ops);
        etp_jw_kint(w, "w", tenth(lay.width));
        etp_jw_kint(w, "h", tenth(lay.height));
        etp_jw_kint(w, "nh", tenth(VGF_NODE_H));
        etp_jw_key(w, "nodes");
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < n; i++) {
            const etp_me_vgf_node *nd = &g->nodes[i];
            etp_jw_obj_begin(w);
            etp_jw_kstr(w, "id", nd->id);
            etp_jw_kstr(w, "label", nd->label);
            etp_jw_kstr(w, "ns", nd->ns);
            etp_jw_kint(w, "x", tenth(lay.x[i] - boxes[i].width / 2));
            etp_jw_kint(w, "y", tenth(lay.y[i] - boxes[i].height / 2));
            etp_jw_kint(w, "bw", tenth(boxes[i].width));
            if (nd->op) {
                const etp_nx_entity *ch =
                    nd->segment >= 0 ? nx_chain_of(x, instr, nd->segment, nd->op->result_id) : NULL;
                if (ch)
                    etp_jw_kstr(w, "nx", ch->id);
                etp_jw_kuint(w, "sid", nd->op->result_id);
                if (nd->op->name)
                    etp_jw_kstr(w, "tosa", nd->op->name);
                else
                    etp_jw_kuint(w, "opcode", nd->op->opcode);
            }
            if (nd->output_count)
                etp_jw_kstr(w, "out", kv_value(&nd->outputs[0], "tensor_shape"));
            etp_jw_key(w, "ins");
            etp_jw_arr_begin(w);
            for (uint32_t k = 0; k < nd->input_count; k++) {
                const char *shape = kv_value(&nd->inputs[k], "tensor_shape");
                const char *role = nd->op && k < nd->op->operand_count
                                       ? nd->op->operands[k].role
                                       : NULL;
                etp_jw_arr_begin(w);
                etp_jw_str(w, role ? role : "");
                etp_jw_str(w, shape);
                etp_jw_arr_end(w);
            }
            etp_jw_arr_end(w);
            etp_jw_key(w, "attrs");
            etp_jw_arr_begin(w);
            for (uint32_t k = 0; k < nd->attr_count; k++) {
                etp_jw_arr_begin(w);
                etp_jw_str(w, nd->attrs[k].key);
                etp_jw_str(w, nd->attrs[k].value);
                etp_jw_arr_end(w);
            }
            etp_jw_arr_end(w);
            etp_jw_obj_end(w);
        }
        etp_jw_arr_end(w);
        etp_jw_key(w, "edges");
        etp_jw_arr_begin(w);
        for (uint32_t e = 0; e < ne; e++) {
            if (lay.edge_flags[e] & (ETP_LAYOUT_EDGE_SELF | ETP_LAYOUT_EDGE_DUPLICATE))
                continue;
            etp_jw_arr_begin(w);
            for (uint32_t p = lay.point_start[e]; p < lay.point_start[e + 1]; p++) {
                etp_jw_int(w, tenth(lay.points[p].x));
                etp_jw_int(w, tenth(lay.points[p].y));
            }
            etp_jw_arr_end(w);
        }
        etp_jw_arr_end(w);
        etp_jw_obj_end(w);
    }
    etp_layout_release(&lay);
    free(boxes);
    free(edges);
    return rc;
}

int rp_write_vgf(FILE *fp, const rp_report *r)
{
    const etp_me_graph *ig = r->in->instructions;
    if (!ig || !ig->plan)
        return 0;
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    w.escape_lt = 1; /* no string can end the script element */
    etp_jw_obj_begin(&w);
    etp_jw_key(&w, "graphs");
    etp_jw_arr_begin(&w);
    int any = 0;
    for (uint32_t i = 0; i < ig->node_count; i++) {
        const etp_me_node *nd = &ig->nodes[i];
        if (nd->kind != ETP_ME_NODE_INSTRUCTION || !nd->instr ||
            nd->instr->kind != ETP_INSTR_DELEGATE || nd->instr->a < 0 ||
            (uint32_t)nd->instr->a >= ig->plan->delegate_count)
            continue;
        const etp_delegate *d = &ig->plan->delegates[nd->instr->a];
        if (!etp_vgf_is_delegate(d))
            continue;
        etp_error err;
        etp_vgf *v;
        etp_me_vgf_graph *g;
        /* The program was decoded and checked by the analysis; a VGF that does
         * not decode is left out of the page (`etprof graph` reports it). */
        if (etp_vgf_from_memory(d->processed, (size_t)d->processed_size, "delegate",
                                (int64_t)d->processed_offset, &v, &err) ||
            etp_me_vgf_build_owned(v, &g, &err))
            continue;
        /* NX cycles are recorded per instruction of the method's first chain. */
        const etp_nx_result *x = nd->chain == 0 ? r->a->nx : NULL;
        if (write_graph(&w, nd->id, g, x, nd->instruction) == 0)
            any = 1;
        etp_me_vgf_free(g);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    size_t len;
    char *json = etp_jw_take(&w, &len);
    if (!json)
        return -1;
    if (any) {
        fputs("<script type=\"application/json\" id=\"etp-vgf\">", fp);
        fwrite(json, 1, len, fp);
        fputs("</script>\n", fp);
        fprintf(fp, "<script>\n%s</script>\n", etp_report_vgf_js);
    }
    free(json);
    return 0;
}
