/*
 * report_nx.c - the report page's "VGF NX cycles" section: the NX hierarchy
 * (model -> segment -> cascade -> chain, etprof/nx_stats.h) as a JSON block
 * "etp-nx" that report_nx.js draws as a collapsible tree, and the notes that
 * keep the numbers honest: accelerator activity counters in cycles, group
 * measurements (never an operator's own cost), means over the executions a
 * group was measured in. Stripes are counted, not listed (they are in
 * detailed/nx_hierarchy.json).
 */
#include <stdlib.h>
#include <string.h>

#include "etprof/nx_stats.h"
#include "outputs/report/report_internal.h"
#include "util/jsonw.h"

void rp_write_nx_section(FILE *fp, const rp_report *r)
{
    const etp_nx_result *x = r->a->nx;
    if (!x)
        return;
    fputs("<section class=\"tbl\" id=\"t-nx\"><h2>VGF NX cycles</h2>\n"
          "<p class=\"note\" id=\"nx-note\">Unit: <b>cycles</b>, from the neural accelerator's activity "
          "counters (VGF_NEURAL_STATISTICS), not elapsed time: they cannot show idle gaps or overlap, "
          "and they are not comparable with the times above. Every figure is a <b>group measurement</b> "
          "of a segment, cascade or chain, not the cost of any operator it covers; the TOSA / SPIR-V ops "
          "listed under a chain share its figure. Means are over the executions each group was measured "
          "in; a share of the parent is given only where both were measured in the same executions; "
          "minimum, median, maximum and execution counts never add. Totals describe the recorded stripes "
          "only (missing stripes are not estimated).</p>\n",
          fp);
    if (x->entity_count && !x->model_available)
        fputs("<p class=\"note nx-warn\" id=\"nx-model-note\">The model cycle summary is unavailable: the "
              "VGF instructions or segments were measured in different executions "
              "(<code>vgf.coverage_differs</code>), so their totals do not describe the same inferences. "
              "The figures of each segment, cascade and chain below remain valid on their own.</p>\n",
              fp);
    if (x->events_unavailable)
        fprintf(fp, "<p class=\"note\">%u of %u VGF statistics record(s) held no data (see the "
                    "issues).</p>\n",
                x->events_unavailable, x->events);
    fputs("<div id=\"nx-tree\"><p class=\"note\">The tree needs the page's script.</p></div>\n</section>\n", fp);
}

static void ops_json(etp_jw *w, const etp_nx_entity *e)
{
    etp_jw_key(w, "ops");
    etp_jw_arr_begin(w);
    for (uint32_t k = 0; k < e->op_count; k++) {
        const etp_nx_op *o = &e->ops[k];
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "t", o->tosa_id);
        etp_jw_kstr(w, "ty", o->types);
        if (o->spirv_id >= 0)
            etp_jw_kint(w, "sid", o->spirv_id);
        else
            etp_jw_kstr(w, "why", o->link_reason);
        if (o->vgf_op)
            etp_jw_kstr(w, "vgf", o->vgf_op);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}

static void nx_json(etp_jw *w, const etp_nx_result *x, const int64_t *num)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "unit", "cycles");
    etp_jw_kbool(w, "model_available", x->model_available);
    etp_jw_kuint(w, "executions", x->executions);
    etp_jw_kuint(w, "events", x->events);
    if (x->have_settings) {
        char dec[96];
        snprintf(dec, sizeof dec, "%s mode %d", etp_nx_device_name(x->settings.device), x->settings.mode);
        etp_jw_kstr(w, "decoder", dec);
    }
    etp_jw_key(w, "nodes");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < x->entity_count; i++) {
        const etp_nx_entity *e = &x->entities[i];
        if (num[i] < 0)
            continue;
        int avail = e->kind != ETP_NX_MODEL || x->model_available;
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "id", e->id);
        etp_jw_kstr(w, "kind", etp_nx_kind_name(e->kind));
        etp_jw_kstr(w, "name", e->name);
        etp_jw_kint(w, "p", e->parent >= 0 && (uint32_t)e->parent < x->entity_count ? num[e->parent] : -1);
        etp_jw_kbool(w, "avail", avail);
        if (e->kind != ETP_NX_MODEL) { /* the model records no stripe list of its own */
            etp_jw_kuint(w, "stripes", e->stripe_count);
            etp_jw_kint(w, "instr", e->instruction_id);
            etp_jw_kint(w, "seg", e->segment_id);
        }
        if (avail) {
            etp_jw_kuint(w, "n", e->s.count);
            etp_jw_kdouble(w, "avg", e->s.mean_total);
            etp_jw_kdouble(w, "op", e->s.mean_op);
            etp_jw_kuint(w, "min", e->s.min_total);
            etp_jw_kdouble(w, "med", e->s.median_total);
            etp_jw_kuint(w, "max", e->s.max_total);
            etp_jw_kbool(w, "full", e->full_coverage);
        }
        if (e->kind == ETP_NX_CHAIN || e->kind == ETP_NX_CASCADE) {
            etp_jw_kbool(w, "filled", e->filled);
            if (e->kind == ETP_NX_CHAIN)
                ops_json(w, e);
            else
                etp_jw_kuint(w, "nops", e->op_count);
            if (e->source_node_count) /* named by the ETRecord's delegate map: links, not costs */
                etp_jw_kstrs(w, "src", e->source_nodes, e->source_node_count);
        }
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

int rp_write_nx_data(FILE *fp, const rp_report *r)
{
    const etp_nx_result *x = r->a->nx;
    if (!x)
        return 0;
    /* The page's node numbers: every entity but the stripes, in order. */
    int64_t *num = malloc((x->entity_count ? x->entity_count : 1) * sizeof *num);
    if (!num)
        return -1;
    int64_t next = 0;
    for (uint32_t i = 0; i < x->entity_count; i++)
        num[i] = x->entities[i].kind == ETP_NX_STRIPE ? -1 : next++;
    fputs("<script type=\"application/json\" id=\"etp-nx\">", fp);
    etp_jw w;
    etp_jw_init_file(&w, fp, 0);
    w.escape_lt = 1; /* no string can end the script element */
    nx_json(&w, x, num);
    int bad = etp_jw_finish(&w);
    fputs("</script>\n", fp);
    fprintf(fp, "<script>\n%s</script>\n", etp_report_nx_js);
    free(num);
    return bad ? -1 : 0;
}
