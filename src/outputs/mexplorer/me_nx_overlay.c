/* me_nx_overlay.c - VGF chain cycles on the VGF graph's TOSA nodes, found by
 * (segment, SPIR-V result id) from the debug database's links. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/mexplorer.h"
#include "etprof/nx_stats.h"
#include "etprof/vgf.h"
#include "outputs/mexplorer/me_vgf.h"
#include "outputs/mexplorer/me_nx_overlay.h"

/* The chain that links (instr, segment, result id), or NULL. */
static const etp_nx_entity *chain_of(const etp_nx_result *r, uint32_t instr, int64_t seg, uint32_t id)
{
    for (uint32_t i = 0; i < r->entity_count; i++) {
        const etp_nx_entity *e = &r->entities[i];
        if (e->kind != ETP_NX_CHAIN || e->instruction_id != (int32_t)instr || e->segment_id != seg)
            continue;
        for (uint32_t k = 0; k < e->op_count; k++)
            if (e->ops[k].spirv_id == (int64_t)id)
                return e;
    }
    return NULL;
}

static char *to_text(int (*write)(FILE *, const void *, etp_error *), const void *ov, size_t *len, etp_error *err)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    if (!fp)
        return NULL;
    int bad = write(fp, ov, err);
    if (fclose(fp) || bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static int write_values(FILE *fp, const void *ov, etp_error *err)
{
    return etp_me_write_overlays(ov, 1, fp, 0, err) != ETP_OK;
}

static int write_labels(FILE *fp, const void *ov, etp_error *err)
{
    return etp_me_write_label_overlays(ov, 1, fp, 0, err) != ETP_OK;
}

etp_status etp_nx_overlays(const etp_analysis *a, char **values, size_t *vlen, char **labels, size_t *llen,
                           etp_error *err)
{
    *values = *labels = NULL;
    const etp_nx_result *r = a->nx;
    if (!r || !a->program || !a->plan || !r->companion_checked || r->vgf_instruction_count != 1)
        return ETP_OK; /* one VGF delegate call: one graph to draw on */
    uint32_t instr = r->vgf_instructions[0];
    const etp_plan *plan = a->plan;
    if (!plan->chain_count || instr >= plan->chains[0].instruction_count)
        return ETP_OK;
    const etp_instruction *in = &plan->chains[0].instructions[instr];
    etp_vgf *v = NULL;
    etp_me_vgf_graph *g = NULL;
    etp_status st = etp_vgf_from_delegate(a->program, &plan->delegates[in->a], &v, err);
    if (!st)
        st = etp_me_vgf_build_owned(v, &g, err);
    else
        etp_vgf_free(v);
    if (st)
        return st;
    char gid[256];
    etp_me_node_id(gid, sizeof gid, plan->name, 0, instr);
    etp_me_value *vals = calloc(g->node_count ? g->node_count : 1, sizeof *vals);
    etp_me_label *labs = calloc(g->node_count ? g->node_count : 1, sizeof *labs);
    char **texts = calloc(g->node_count ? g->node_count : 1, sizeof *texts);
    size_t n = 0;
    if (!vals || !labs || !texts)
        st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    for (uint32_t i = 0; !st && i < g->node_count; i++) {
        const etp_me_vgf_node *nd = &g->nodes[i];
        if (!nd->op || nd->segment < 0)
            continue;
        const etp_nx_entity *ch = chain_of(r, instr, nd->segment, nd->op->result_id);
        if (!ch)
            continue;
        vals[n].node_id = nd->id;
        vals[n].value = ch->s.mean_total;
        const char *cascade = r->entities[ch->parent].id;
        size_t tl = strlen(ch->id) + strlen(cascade) + 64;
        if (!(texts[n] = malloc(tl))) {
            st = etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
            break;
        }
        snprintf(texts[n], tl, "%s in %s (group measurement)", ch->id, cascade);
        labs[n].node_id = nd->id;
        labs[n].value = texts[n];
        n++;
    }
    if (!st && n) {
        etp_me_overlay ov;
        etp_me_overlay_init(&ov);
        ov.graph_id = gid;
        ov.metric = "VGF chain total cycles avg (group, not per operator)";
        ov.unit = "cycles";
        ov.values = vals;
        ov.value_count = n;
        ov.hide_stats = ETP_ME_HIDE_SUM; /* nodes of one chain share one figure */
        etp_me_label_overlay lo = {gid, "VGF chain", labs, n};
        *values = to_text(write_values, &ov, vlen, err);
        *labels = *values ? to_text(write_labels, &lo, llen, err) : NULL;
        if (!*values || !*labels) {
            free(*values);
            *values = NULL;
            if (!err->message[0])
                etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
            st = err->code ? err->code : ETP_E_NOMEM;
        }
    }
    for (size_t k = 0; texts && k < n; k++)
        free(texts[k]);
    free(texts);
    free(vals);
    free(labs);
    etp_me_vgf_free(g);
    return st;
}
