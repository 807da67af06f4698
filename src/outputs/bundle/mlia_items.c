/* mlia_items.c - the per-entity parts of mlia-output.json's performance
 * result (see mlia_output.h): breakdowns with their metrics, entities with
 * placement, parents and children, and the findings as advice. */
#include <stdlib.h>
#include <string.h>

#include "etprof/columns.h"
#include "etprof/findings.h"
#include "etprof/nx_stats.h"
#include "etprof/units.h"
#include "outputs/bundle/mlia_output.h"
#include "outputs/report/analysis_report.h"

const char *etp_mlia_placement(const etp_analysis *a, const char *backend)
{
    if (!backend)
        return "CPU"; /* portable kernels and the runtime's own instructions */
    if (strstr(backend, "EthosU"))
        return "NPU";
    if (strstr(backend, "Vgf") || strstr(backend, "VGF"))
        return a->nx ? "NX" : "GPU";
    if (strstr(backend, "Vulkan"))
        return "GPU";
    if (strstr(backend, "Qnn") || strstr(backend, "QNN"))
        return "DSP";
    if (strstr(backend, "Xnnpack") || strstr(backend, "XNNPACK"))
        return "CPU";
    return "Unknown";
}

/* ---- where each entity sits: its location and its parent instruction ---- */

/* The index of the instruction entity at (chain, instruction), or -1. The
 * instructions come first in a->entities. */
static int instruction_of(const etp_analysis *a, int32_t chain, int32_t instr, const int *by_pos, uint32_t npos)
{
    (void)a;
    if (chain != 0 || instr < 0 || (uint32_t)instr >= npos)
        return -1;
    return by_pos[instr];
}

typedef struct entity_index {
    int *instr_at;                /* instruction index (chain 0) -> entity index, -1 */
    uint32_t instr_slots;
    uint32_t *child_start, *child; /* CSR: children of entity i */
    uint32_t *by_id, n_by_id;      /* instruction entities sorted by id */
} entity_index;

/* Instruction entities sorted by id, for the operators' instruction lists. */
static _Thread_local const etp_analysis *g_sort_a; /* qsort has no context argument in C11 */

static int cmp_by_id(const void *x, const void *y)
{
    return strcmp(g_sort_a->entities[*(const uint32_t *)x].id, g_sort_a->entities[*(const uint32_t *)y].id);
}

static int find_entity_id(const etp_analysis *a, const uint32_t *sorted, uint32_t n, const char *id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(a->entities[sorted[mid]].id, id);
        if (!c)
            return (int)sorted[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The parent of entity @p i: a delegate event's instruction; -1 for
 * instructions. Operators have several (their instructions): see below. */
static int delegate_parent(const etp_analysis *a, const entity_index *x, uint32_t i)
{
    const etp_entity *e = &a->entities[i];
    if (e->kind != ETP_ENTITY_DELEGATE_EVENT)
        return -1;
    return instruction_of(a, e->chain, e->instruction, x->instr_at, x->instr_slots);
}

static int index_build(const etp_analysis *a, entity_index *x)
{
    memset(x, 0, sizeof *x);
    uint32_t slots = 0;
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (a->entities[i].kind == ETP_ENTITY_INSTRUCTION && a->entities[i].chain == 0 &&
            a->entities[i].instruction >= 0 && (uint32_t)a->entities[i].instruction + 1 > slots)
            slots = (uint32_t)a->entities[i].instruction + 1;
    x->instr_slots = slots;
    x->instr_at = malloc((slots ? slots : 1) * sizeof *x->instr_at);
    x->child_start = calloc(a->entity_count + 1, sizeof *x->child_start);
    if (!x->instr_at || !x->child_start)
        return -1;
    for (uint32_t k = 0; k < slots; k++)
        x->instr_at[k] = -1;
    x->by_id = malloc((a->entity_count ? a->entity_count : 1) * sizeof *x->by_id);
    if (!x->by_id)
        return -1;
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (a->entities[i].kind == ETP_ENTITY_INSTRUCTION)
            x->by_id[x->n_by_id++] = i;
    g_sort_a = a;
    qsort(x->by_id, x->n_by_id, sizeof *x->by_id, cmp_by_id);
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (a->entities[i].kind == ETP_ENTITY_INSTRUCTION && a->entities[i].chain == 0 &&
            a->entities[i].instruction >= 0)
            x->instr_at[a->entities[i].instruction] = (int)i;
    /* Children: an instruction's delegate events and the operators it ran. */
    uint32_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t *fill = NULL;
        if (pass) {
            x->child = malloc((total ? total : 1) * sizeof *x->child);
            fill = calloc(a->entity_count + 1, sizeof *fill);
            if (!x->child || !fill) {
                free(fill);
                return -1;
            }
            for (uint32_t i = 0; i < a->entity_count; i++)
                x->child_start[i + 1] += x->child_start[i];
        }
        for (uint32_t i = 0; i < a->entity_count; i++) {
            const etp_entity *e = &a->entities[i];
            int parents[1];
            uint32_t np = 0;
            const char *const *ids = NULL;
            if (e->kind == ETP_ENTITY_DELEGATE_EVENT && (parents[0] = delegate_parent(a, x, i)) >= 0)
                np = 1;
            else if (e->kind == ETP_ENTITY_OPERATOR)
                ids = (const char *const *)e->instructions;
            uint32_t n = ids ? e->instruction_count : np;
            for (uint32_t k = 0; k < n; k++) {
                int p = ids ? find_entity_id(a, x->by_id, x->n_by_id, ids[k]) : parents[0];
                if (p < 0)
                    continue;
                if (!pass) {
                    x->child_start[p + 1]++;
                    total++;
                } else {
                    x->child[x->child_start[p] + fill[p]++] = i;
                }
            }
        }
        free(fill);
    }
    return 0;
}

static void index_free(entity_index *x)
{
    free(x->instr_at);
    free(x->child_start);
    free(x->child);
    free(x->by_id);
}

/* "method:forward/chain:0/instruction:3"; a delegate event below its
 * instruction; an operator by its node name. */
static void location(etp_jw *w, const etp_analysis *a, const etp_entity *e)
{
    char buf[512];
    const char *m = a->method ? a->method : "";
    if (e->kind == ETP_ENTITY_OPERATOR)
        snprintf(buf, sizeof buf, "method:%s/node:%s", m, e->id);
    else if (e->kind == ETP_ENTITY_INSTRUCTION)
        snprintf(buf, sizeof buf, "method:%s/chain:%d/instruction:%d", m, e->chain, e->instruction);
    else
        snprintf(buf, sizeof buf, "method:%s/chain:%d/instruction:%d/delegate_event:%s", m, e->chain,
                 e->instruction, e->id);
    etp_jw_kstr(w, "location", buf);
}

static const char *kind_name(const etp_entity *e)
{
    return e->kind == ETP_ENTITY_INSTRUCTION      ? "instruction"
           : e->kind == ETP_ENTITY_DELEGATE_EVENT ? "delegate_event"
                                                  : "source_operator";
}

static const char *display_name(const etp_entity *e)
{
    return e->op_type && *e->op_type ? e->op_type : e->name ? e->name : e->id;
}

static const char *entity_placement(const etp_analysis *a, const etp_entity *e)
{
    if (e->kind == ETP_ENTITY_OPERATOR && !e->backend && !e->instruction_count)
        return "Unknown"; /* no instruction ran it that we know of */
    return etp_mlia_placement(a, e->backend);
}

/* ---- breakdowns ------------------------------------------------------------ */

void etp_mlia_metric(etp_jw *w, const char *name, double v, const char *unit, const char *agg, uint64_t samples,
                     const char *basis)
{
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "name", name);
    etp_jw_kdouble(w, "value", v);
    etp_jw_kstr(w, "unit", unit);
    if (agg)
        etp_jw_kstr(w, "aggregation", agg);
    if (samples)
        etp_jw_kuint(w, "samples", samples);
    if (basis) {
        etp_jw_key(w, "qualifiers");
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "basis", basis);
        etp_jw_obj_end(w);
    }
    etp_jw_obj_end(w);
}

static void entity_breakdown(etp_jw *w, const etp_analysis *a, const etp_entity *e, double execute_avg)
{
    const etp_stats *s = &e->time.stats;
    const char *u = etp_unit_name(a->target_unit);
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "id", e->id);
    etp_jw_kstr(w, "scope", "operator");
    etp_jw_kstr(w, "name", display_name(e));
    location(w, a, e);
    etp_jw_key(w, "metrics");
    etp_jw_arr_begin(w);
    /* The mean only: the median, min and max of every entity are in the
     * operators table (a large model has tens of thousands of rows). */
    etp_mlia_metric(w, "runtime", s->avg, u, "mean", e->time.executions, NULL);
    if (execute_avg > 0) /* of Method::execute's mean */
        etp_mlia_metric(w, "share_of_inference", 100.0 * s->avg / execute_avg, "%", "mean", 0, NULL);
    etp_jw_arr_end(w);
    etp_jw_key(w, "qualifiers");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "placement", entity_placement(a, e));
    /* etprof's rule: a shared or non-additive timing is never summed */
    etp_jw_kbool(w, "additive", e->additive && !e->shared);
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

static void nx_breakdown(etp_jw *w, const etp_nx_row *r)
{
    const etp_nx_entity *n = r->nx;
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "id", n->id);
    etp_jw_kstr(w, "scope", "operator_chain");
    etp_jw_kstr(w, "name", n->name);
    etp_jw_kstr(w, "location", n->id);
    etp_jw_key(w, "metrics");
    etp_jw_arr_begin(w);
    etp_mlia_metric(w, "total_cycles", n->s.mean_total, "cycles", "mean", n->s.count, NULL);
    etp_mlia_metric(w, "total_cycles_p50", n->s.median_total, "cycles", "median", n->s.count, NULL);
    etp_mlia_metric(w, "total_cycles_min", (double)n->s.min_total, "cycles", "min", n->s.count, NULL);
    etp_mlia_metric(w, "total_cycles_max", (double)n->s.max_total, "cycles", "max", n->s.count, NULL);
    etp_mlia_metric(w, "op_cycles", n->s.mean_op, "cycles", "mean", n->s.count, NULL);
    etp_jw_arr_end(w);
    etp_jw_key(w, "qualifiers");
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "placement", "NX");
    etp_jw_kbool(w, "full_coverage", n->full_coverage);
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

void etp_mlia_breakdowns(etp_jw *w, const etp_analysis *a)
{
    const etp_figure *ex = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    double execute_avg = ex && ex->available ? ex->stats.avg : 0;
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < a->entity_count; i++)
        if (a->entities[i].time.executions)
            entity_breakdown(w, a, &a->entities[i], execute_avg);
    for (uint32_t k = 0; k < a->nx_row_count; k++)
        if (a->nx_rows[k].nx && a->nx_rows[k].nx->s.count)
            nx_breakdown(w, &a->nx_rows[k]);
    etp_jw_arr_end(w);
}

/* ---- entities ---------------------------------------------------------------- */

static void nx_entities(etp_jw *w, const etp_analysis *a)
{
    const etp_nx_result *nx = a->nx;
    for (uint32_t k = 0; k < a->nx_row_count; k++) {
        const etp_nx_entity *n = a->nx_rows[k].nx;
        if (!n)
            continue;
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "id", n->id);
        etp_jw_kstr(w, "scope", "operator_chain");
        etp_jw_kstr(w, "name", n->name);
        etp_jw_kstr(w, "location", n->id);
        etp_jw_kstr(w, "placement", "NX");
        etp_jw_key(w, "attributes");
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "kind", a->nx_rows[k].kind);
        etp_jw_key(w, "parent_ids");
        etp_jw_arr_begin(w);
        if (n->parent > 0 && (uint32_t)n->parent < nx->entity_count)
            etp_jw_str(w, nx->entities[n->parent].id);
        etp_jw_arr_end(w);
        etp_jw_key(w, "child_ids");
        etp_jw_arr_begin(w);
        uint32_t self = (uint32_t)(n - nx->entities);
        for (uint32_t c = self + 1; c < nx->entity_count; c++)
            if (nx->entities[c].parent == (int)self && nx->entities[c].kind != ETP_NX_STRIPE)
                etp_jw_str(w, nx->entities[c].id);
        etp_jw_arr_end(w);
        if (n->instruction_id >= 0)
            etp_jw_kint(w, "instruction", n->instruction_id);
        etp_jw_kstrs(w, "source_operators", n->source_nodes, n->source_node_count);
        etp_jw_obj_end(w);
        etp_jw_obj_end(w);
    }
}

void etp_mlia_entities(etp_jw *w, const etp_analysis *a)
{
    entity_index x;
    int ok = index_build(a, &x) == 0;
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "id", e->id);
        etp_jw_kstr(w, "scope", "operator");
        etp_jw_kstr(w, "name", display_name(e));
        location(w, a, e);
        etp_jw_kstr(w, "placement", entity_placement(a, e));
        etp_jw_key(w, "attributes");
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "kind", kind_name(e));
        if (e->backend)
            etp_jw_kstr(w, "backend", e->backend);
        if (e->module_path)
            etp_jw_kstr(w, "module_path", e->module_path);
        etp_jw_key(w, "parent_ids");
        etp_jw_arr_begin(w);
        int p = ok ? delegate_parent(a, &x, i) : -1;
        if (p >= 0)
            etp_jw_str(w, a->entities[p].id);
        if (e->kind == ETP_ENTITY_OPERATOR)
            for (uint32_t k = 0; k < e->instruction_count; k++)
                etp_jw_str(w, e->instructions[k]);
        etp_jw_arr_end(w);
        etp_jw_key(w, "child_ids");
        etp_jw_arr_begin(w);
        if (ok)
            for (uint32_t k = x.child_start[i]; k < x.child_start[i + 1]; k++)
                etp_jw_str(w, a->entities[x.child[k]].id);
        etp_jw_arr_end(w);
        etp_jw_obj_end(w);
        etp_jw_obj_end(w);
    }
    if (a->nx)
        nx_entities(w, a);
    etp_jw_arr_end(w);
    index_free(&x);
}

/* ---- advice: the findings that fired --------------------------------------- */

static const char *advice_category(etp_finding_category c)
{
    /* MLIA's three: what to change in the model's lowering is optimization;
     * where the time goes is performance. */
    return c == ETP_FINDING_DELEGATION || c == ETP_FINDING_QUANTIZATION || c == ETP_FINDING_MEMORY ? "optimization"
                                                                                                   : "performance";
}

void etp_mlia_advice(etp_jw *w, const etp_analysis *a)
{
    etp_jw_arr_begin(w);
    uint32_t nth = 0;
    for (uint32_t i = 0; i < a->findings.count; i++) {
        const etp_finding *f = &a->findings.items[i];
        if (f->status != ETP_FINDING_FIRED)
            continue; /* withheld ones are warnings of the result (mlia_output.c) */
        char id[200];
        snprintf(id, sizeof id, "%s#%u", f->rule->code, ++nth);
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "id", id);
        etp_jw_kstr(w, "category", advice_category(f->rule->category));
        etp_jw_kstr(w, "severity", etp_severity_name(f->rule->severity));
        etp_jw_kstr(w, "message", f->message);
        etp_jw_key(w, "affected_entities");
        etp_jw_arr_begin(w);
        for (uint32_t k = 0; k < f->entity_count; k++) {
            const etp_finding_entity *fe = &f->entities[k];
            int chain = fe->kind == ETP_FE_NX_CHAIN || fe->kind == ETP_FE_NX_CASCADE;
            etp_jw_obj_begin(w);
            etp_jw_kstr(w, "id", fe->id);
            etp_jw_kstr(w, "scope", chain ? "operator_chain" : "operator");
            etp_jw_kstr(w, "name", fe->name ? fe->name : fe->id);
            etp_jw_kstr(w, "location", fe->id);
            etp_jw_obj_end(w);
        }
        etp_jw_arr_end(w);
        etp_jw_key(w, "details");
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "code", f->rule->code);
        etp_jw_kstr(w, "etprof_category", etp_finding_category_name(f->rule->category));
        etp_jw_kstr(w, "next_step", f->rule->next_step);
        etp_json_finding_evidence(w, f);
        if (f->entities_omitted)
            etp_jw_kuint(w, "entities_omitted", f->entities_omitted);
        etp_jw_obj_end(w);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}
