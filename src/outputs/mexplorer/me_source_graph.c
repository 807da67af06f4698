/* me_source_graph.c - the source graph as a Model Explorer graph, the navigation
 * mapping between it and the instruction graph (etprof's own mapping.json and
 * Model Explorer's sync-navigation file), and the companion-program gate. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/mexplorer/me_links_internal.h"
#include "util/sha256.h"

static void kv(etp_jw *w, const char *k, const char *v)
{
    ETP_JW_OBJ2S_LIT(w, "key", k, "value", v ? v : "");
}

static void kv_i64(etp_jw *w, const char *k, int64_t v)
{
    char b[32];
    etp_format_int(b, v);
    kv(w, k, b);
}

static void port_meta(etp_jw *w, uint32_t id, const char *key, const char *value)
{
    char b[16];
    etp_format_int(b, id);
    etp_jw_obj_begin(w);
    ETP_JW_KSTR_LIT(w, "id", b);
    ETP_JW_KEY_LIT(w, "attrs");
    etp_jw_arr_begin(w);
    kv(w, key, value);
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

/* Instruction node ids of the links that reach @p nd, comma separated. */
static char *instruction_list(const etp_source_graph *g, const etp_src_node *nd)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = 0;
    int32_t last = -1;
    for (uint32_t i = 0; i < nd->link_count; i++) {
        const etp_src_link *l = &g->links[nd->links[i]];
        if (l->instruction == last)
            continue;
        last = l->instruction;
        /* "[, ]<method>_0_<instruction>"; one that would not fit 300 bytes is left out */
        char id[300], num[24];
        size_t ml = strlen(g->method), sep = len ? 2 : 0;
        size_t nn = (size_t)etp_format_int(num, l->instruction);
        if (sep + ml + 3 + nn >= sizeof id)
            continue;
        memcpy(id, ", ", sep);
        memcpy(id + sep, g->method, ml);
        memcpy(id + sep + ml, "_0_", 3);
        memcpy(id + sep + ml + 3, num, nn + 1);
        int n = (int)(sep + ml + 3 + nn);
        if (len + (size_t)n + 1 > cap) {
            cap = 2 * (len + (size_t)n + 1);
            char *ns = realloc(s, cap);
            if (!ns) {
                free(s);
                return NULL;
            }
            s = ns;
        }
        memcpy(s + len, id, (size_t)n + 1);
        len += (size_t)n;
    }
    return s;
}

static void operator_attrs(etp_jw *w, const etp_source_graph *g, const etp_src_node *nd,
                           const etp_analysis *a)
{
    const etp_graph_node *gn = nd->node;
    kv(w, "op_type", gn->op_type ? gn->op_type : "");
    kv(w, "target", gn->target ? gn->target : "");
    if (gn->has_debug_handle)
        kv_i64(w, "debug_handle", gn->debug_handle);
    else
        kv(w, "debug_handle", "none");
    kv(w, "link", etp_link_state_name(nd->link));
    char *ins = instruction_list(g, nd);
    if (ins && *ins)
        kv(w, "instructions", ins);
    free(ins);
    if (nd->group >= 0) {
        const etp_src_group *gr = &g->groups[nd->group];
        char b[300];
        snprintf(b, sizeof b, "%s (%s_0_%" PRId32 ")", gr->backend ? gr->backend : "unknown backend",
                 g->method, gr->instruction);
        kv(w, "delegate", b);
    }
    if (gn->module_depth) {
        kv(w, "module_path", gn->modules[gn->module_depth - 1].path);
        kv(w, "module_type", gn->modules[gn->module_depth - 1].type);
    }
    if (gn->source_fn_stack)
        kv(w, "source_fn", gn->source_fn_stack);
    if (gn->stack_trace)
        kv(w, "stack_trace", gn->stack_trace);
    const etp_entity *e = nd->entity;
    if (!e || !e->time.executions) {
        kv(w, "timing", "none measured");
        return;
    }
    char b[64];
    kv(w, "timing", etp_timing_source_name(e->source));
    int n = etp_format_int(b, e->time.executions); /* "<executions> of <all>" */
    memcpy(b + n, " of ", 4);
    etp_format_int(b + n + 4, a->execution_count);
    kv(w, "executions", b);
    kv(w, "additive", e->additive ? "true" : "false");
    kv(w, "shared", e->shared ? "true" : "false");
    if (e->co_count) {
        /* Jump links within this graph (only ids it has). */
        etp_jw_obj_begin(w);
        ETP_JW_KSTR_LIT(w, "key", "co_attributed");
        ETP_JW_KEY_LIT(w, "value");
        etp_jw_obj_begin(w);
        ETP_JW_KSTR_LIT(w, "type", "node_ids");
        ETP_JW_KEY_LIT(w, "nodeIds");
        etp_jw_arr_begin(w);
        for (uint32_t i = 0; i < e->co_count; i++)
            if (etp_source_graph_find(g, e->co_attributed[i]) >= 0)
                etp_jw_str(w, e->co_attributed[i]);
        etp_jw_arr_end(w);
        etp_jw_obj_end(w);
        etp_jw_obj_end(w);
    }
}

typedef struct module_ns {
    char *ns;
    const char *path, *type;
} module_ns;

static int cmp_module_ns(const void *x, const void *y)
{
    const module_ns *a = x, *b = y;
    return strcmp(a->ns, b->ns);
}

/* groupNodeAttributes: the model-level summary under "" and, per module
 * namespace, the module's path and class. */
static void group_attributes(etp_jw *w, const etp_source_graph *g, const etp_analysis *a)
{
    ETP_JW_KEY_LIT(w, "groupNodeAttributes");
    etp_jw_obj_begin(w);
    ETP_JW_KEY_LIT(w, "");
    etp_jw_obj_begin(w);
    char b[64];
    ETP_JW_KSTR_LIT(w, "method", a->method);
    ETP_JW_KSTR_LIT(w, "graph", g->program->entry);
    ETP_JW_KSTR_LIT(w, "unit", etp_unit_name(a->target_unit));
    snprintf(b, sizeof b, "%" PRIu32, a->execution_count);
    ETP_JW_KSTR_LIT(w, "executions", b);
    ETP_JW_KSTR_LIT(w, "validity", etp_validity_name(a->validity));
    snprintf(b, sizeof b, "%" PRIu32, g->operator_count);
    ETP_JW_KSTR_LIT(w, "operators", b);
    snprintf(b, sizeof b, "%" PRIu32, g->unlinked_operators);
    ETP_JW_KSTR_LIT(w, "unlinked_operators", b);
    const etp_figure *ex = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    if (ex && ex->available) {
        char d[40];
        etp_format_double(d, sizeof d, ex->stats.avg);
        ETP_JW_KSTR_LIT(w, "method_execute_avg", d);
    }
    etp_jw_obj_end(w);

    size_t n = 0, cap = 0;
    module_ns *m = NULL;
    int failed = 0;
    for (uint32_t i = 0; i < g->node_count && !failed; i++) {
        const etp_graph_node *gn = g->nodes[i].node;
        for (uint32_t f = 0; gn && f < gn->module_depth; f++) {
            if (!gn->modules[f].path || !*gn->modules[f].path)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                module_ns *nm = realloc(m, cap * sizeof *nm);
                if (!nm) {
                    failed = 1;
                    break;
                }
                m = nm;
            }
            m[n].ns = etp_module_namespace(gn->modules[f].path);
            m[n].path = gn->modules[f].path;
            m[n].type = gn->modules[f].type;
            if (!m[n].ns) {
                failed = 1;
                break;
            }
            n++;
        }
    }
    if (n)
        qsort(m, n, sizeof *m, cmp_module_ns);
    for (size_t i = 0; i < n; i++) {
        if (!*m[i].ns || (i && !strcmp(m[i].ns, m[i - 1].ns)))
            continue; /* the first module seen for a namespace describes it */
        etp_jw_key(w, m[i].ns);
        etp_jw_obj_begin(w);
        ETP_JW_KSTR_LIT(w, "module", m[i].path);
        ETP_JW_KSTR_LIT(w, "module_type", m[i].type ? m[i].type : "");
        etp_jw_obj_end(w);
    }
    for (size_t i = 0; i < n; i++)
        free(m[i].ns);
    free(m);
    etp_jw_obj_end(w);
}

void etp_source_graph_write_me(etp_jw *w, const etp_source_graph *g, const etp_analysis *a)
{
    char port[16];
    etp_jw_obj_begin(w);
    ETP_JW_KSTR_LIT(w, "id", g->id);
    ETP_JW_KEY_LIT(w, "nodes");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < g->node_count; i++) {
        const etp_src_node *nd = &g->nodes[i];
        etp_jw_obj_begin(w);
        ETP_JW_KSTR_LIT(w, "id", nd->id);
        ETP_JW_KSTR_LIT(w, "label", nd->label);
        ETP_JW_KSTR_LIT(w, "namespace", nd->ns);
        ETP_JW_KEY_LIT(w, "subgraphIds");
        etp_jw_arr_begin(w);
        etp_jw_arr_end(w);
        ETP_JW_KEY_LIT(w, "attrs");
        etp_jw_arr_begin(w);
        if (nd->kind == ETP_SRC_NODE_OPERATOR)
            operator_attrs(w, g, nd, a);
        else if (nd->kind == ETP_SRC_NODE_INPUT)
            kv(w, "tensor", g->program->inputs[i]);
        etp_jw_arr_end(w);
        ETP_JW_KEY_LIT(w, "incomingEdges");
        etp_jw_arr_begin(w);
        for (uint32_t k = 0; k < nd->edge_count; k++) {
            const etp_src_edge *e = &nd->edges[k];
            etp_jw_obj_begin(w);
            ETP_JW_KSTR_LIT(w, "sourceNodeId", g->nodes[e->source].id);
            etp_format_int(port, e->output);
            ETP_JW_KSTR_LIT(w, "sourceNodeOutputId", port);
            etp_format_int(port, e->input);
            ETP_JW_KSTR_LIT(w, "targetNodeInputId", port);
            etp_jw_obj_end(w);
        }
        etp_jw_arr_end(w);
        ETP_JW_KEY_LIT(w, "outputsMetadata");
        etp_jw_arr_begin(w);
        if (nd->kind == ETP_SRC_NODE_INPUT)
            port_meta(w, 0, "tensor", g->program->inputs[i]);
        for (uint32_t o = 0; nd->node && o < nd->node->output_count; o++)
            port_meta(w, o, "tensor", nd->node->outputs[o]);
        etp_jw_arr_end(w);
        ETP_JW_KEY_LIT(w, "inputsMetadata");
        etp_jw_arr_begin(w);
        for (uint32_t k = 0; k < nd->input_count; k++)
            port_meta(w, k, "__tensor_tag", nd->inputs[k]);
        etp_jw_arr_end(w);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    group_attributes(w, g, a);
    etp_jw_obj_end(w);
}

/* ---- links seen from the instruction graph ------------------------------ */

int64_t *etp_me_instruction_nodes(const etp_me_graph *ig, uint32_t count)
{
    int64_t *m = malloc((count ? count : 1) * sizeof *m);
    if (!m)
        return NULL;
    for (uint32_t i = 0; i < count; i++)
        m[i] = -1;
    for (uint32_t k = 0; ig && k < ig->node_count; k++) {
        const etp_me_node *nd = &ig->nodes[k];
        if (nd->kind == ETP_ME_NODE_INSTRUCTION && nd->chain == 0 && nd->instruction >= 0 &&
            (uint32_t)nd->instruction < count && m[nd->instruction] < 0)
            m[nd->instruction] = k;
    }
    return m;
}

/* First link of instruction @p ins (links are sorted by instruction), or -1. */
static int64_t first_link(const etp_source_graph *sg, int32_t ins)
{
    uint32_t lo = 0, hi = sg->link_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sg->links[mid].instruction < ins)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sg->link_count && sg->links[lo].instruction == ins ? (int64_t)lo : -1;
}

etp_link_state etp_me_instruction_link(const etp_me_graph *ig, uint32_t node,
                                          const etp_source_graph *sg, int64_t *first)
{
    *first = -1;
    const etp_me_node *nd = &ig->nodes[node];
    if (nd->kind != ETP_ME_NODE_INSTRUCTION)
        return ETP_LINK_NOT_APPLICABLE;
    if (nd->chain != 0)
        return ETP_LINK_NO_MAP_ENTRY; /* the debug handle map covers chain 0 */
    int64_t li = first_link(sg, nd->instruction);
    if (li < 0)
        return ETP_LINK_NO_MAP_ENTRY;
    *first = li;
    for (uint32_t k = (uint32_t)li; k < sg->link_count && sg->links[k].instruction == nd->instruction; k++)
        if (sg->links[k].node_count)
            return ETP_LINK_LINKED;
    return ETP_LINK_UNRESOLVED;
}

static void i64_array(etp_jw *w, const char *key, const int64_t *v, uint32_t n)
{
    etp_jw_key(w, key);
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        etp_jw_int(w, v[i]);
    etp_jw_arr_end(w);
}

/* The delegate-event entity of @p l, if the analysis has one. */
static const etp_entity *delegate_entity(const etp_analysis *a, const etp_src_link *l)
{
    for (uint32_t i = 0; i < a->entity_count; i++) {
        const etp_entity *e = &a->entities[i];
        if (e->kind == ETP_ENTITY_DELEGATE_EVENT && e->chain == 0 && e->instruction == l->instruction &&
            e->op_type && !strcmp(e->op_type, l->delegate_id))
            return e;
    }
    return NULL;
}

etp_status etp_me_write_mapping(const etp_analysis *a, const etp_me_graph *ig,
                                   const etp_source_graph *sg, FILE *fp, etp_error *err)
{
    uint32_t count = a->plan && a->plan->chain_count ? a->plan->chains[0].instruction_count : 0;
    int64_t *inode = etp_me_instruction_nodes(ig, count);
    if (!inode)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    etp_jw w;
    etp_jw_init_file(&w, fp, 0);
    etp_jw_obj_begin(&w);
    ETP_JW_KSTR_LIT(&w, "schema", "etprof.me-mapping");
    ETP_JW_KINT_LIT(&w, "schema_version", 1);
    ETP_JW_KSTR_LIT(&w, "method", a->method);
    ETP_JW_KSTR_LIT(&w, "instruction_graph", ig->id);
    ETP_JW_KSTR_LIT(&w, "source_graph", sg->id);
    ETP_JW_KSTR_LIT(&w, "program_sha256", a->program_sha256[0] ? a->program_sha256 : NULL);
    ETP_JW_KSTR_LIT(&w, "basis", "ETRecord debug_handle_map and delegate_map (chain 0)");
    ETP_JW_KEY_LIT(&w, "links");
    etp_jw_arr_begin(&w);
    uint32_t outside = 0;
    for (uint32_t i = 0; i < sg->link_count; i++) {
        const etp_src_link *l = &sg->links[i];
        if (l->instruction < 0 || (uint32_t)l->instruction >= count || inode[l->instruction] < 0) {
            outside++;
            continue;
        }
        etp_jw_break(&w);
        etp_jw_obj_begin(&w);
        ETP_JW_KSTR_LIT(&w, "instruction", ig->nodes[inode[l->instruction]].id);
        ETP_JW_KSTR_LIT(&w, "kind", etp_link_kind_name(l->kind));
        if (l->backend)
            ETP_JW_KSTR_LIT(&w, "backend", l->backend);
        if (l->delegate_id) {
            ETP_JW_KSTR_LIT(&w, "delegate_id", l->delegate_id);
            const etp_entity *de = delegate_entity(a, l);
            ETP_JW_KSTR_LIT(&w, "delegate_event_entity", de ? de->id : NULL);
        }
        ETP_JW_KEY_LIT(&w, "sources");
        etp_jw_arr_begin(&w);
        for (uint32_t k = 0; k < l->node_count; k++)
            etp_jw_str(&w, sg->nodes[l->nodes[k]].id);
        etp_jw_arr_end(&w);
        /* One timed event reaching several operators (or handles that match
         * none) gives each the full, non-additive time. */
        ETP_JW_KBOOL_LIT(&w, "shared", l->node_count > 1 || (l->node_count && l->unresolved_count));
        i64_array(&w, "debug_handles", l->handles, l->handle_count);
        i64_array(&w, "unresolved_debug_handles", l->unresolved, l->unresolved_count);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    ETP_JW_KUINT_LIT(&w, "links_without_instruction_node", outside);
    ETP_JW_KEY_LIT(&w, "unlinked_instructions");
    etp_jw_arr_begin(&w);
    for (uint32_t k = 0; k < ig->node_count; k++) {
        int64_t li;
        etp_link_state st = etp_me_instruction_link(ig, k, sg, &li);
        if (st == ETP_LINK_LINKED || st == ETP_LINK_NOT_APPLICABLE)
            continue;
        etp_jw_break(&w);
        etp_jw_obj_begin(&w);
        ETP_JW_KSTR_LIT(&w, "id", ig->nodes[k].id);
        ETP_JW_KSTR_LIT(&w, "reason", etp_link_state_name(st));
        if (li >= 0)
            i64_array(&w, "debug_handles", sg->links[li].handles, sg->links[li].handle_count);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    ETP_JW_KEY_LIT(&w, "unlinked_operators");
    etp_jw_arr_begin(&w);
    for (uint32_t k = 0; k < sg->node_count; k++) {
        const etp_src_node *nd = &sg->nodes[k];
        if (nd->kind != ETP_SRC_NODE_OPERATOR || nd->link == ETP_LINK_LINKED)
            continue;
        etp_jw_break(&w);
        etp_jw_obj_begin(&w);
        ETP_JW_KSTR_LIT(&w, "id", nd->id);
        ETP_JW_KSTR_LIT(&w, "reason", etp_link_state_name(nd->link));
        ETP_JW_KEY_LIT(&w, "debug_handle");
        if (nd->node->has_debug_handle)
            etp_jw_int(&w, nd->node->debug_handle);
        else
            etp_jw_null(&w);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    free(inode);
    if (etp_jw_finish(&w))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET, "could not write the mapping");
    return ETP_OK;
}

etp_status etp_me_write_sync_navigation(const etp_me_graph *ig, const etp_source_graph *sg,
                                           FILE *fp, etp_error *err)
{
    etp_jw w;
    etp_jw_init_file(&w, fp, 0);
    etp_jw_obj_begin(&w);
    ETP_JW_KSTR_LIT(&w, "type", "sync_navigation");
    ETP_JW_KEY_LIT(&w, "mappingEntries");
    etp_jw_arr_begin(&w);
    for (uint32_t k = 0; k < ig->node_count; k++) {
        int64_t li;
        if (etp_me_instruction_link(ig, k, sg, &li) != ETP_LINK_LINKED)
            continue;
        /* The instruction-level link covers every operator the instruction
         * runs (for a delegate call: its whole region). */
        const etp_src_link *l = &sg->links[li];
        if (!l->node_count)
            continue;
        etp_jw_break(&w);
        etp_jw_obj_begin(&w);
        ETP_JW_KEY_LIT(&w, "leftNodeIds");
        etp_jw_arr_begin(&w);
        etp_jw_str(&w, ig->nodes[k].id);
        etp_jw_arr_end(&w);
        ETP_JW_KEY_LIT(&w, "rightNodeIds");
        etp_jw_arr_begin(&w);
        for (uint32_t q = 0; q < l->node_count; q++)
            etp_jw_str(&w, sg->nodes[l->nodes[q]].id);
        etp_jw_arr_end(&w);
        etp_jw_obj_end(&w);
    }
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    if (etp_jw_finish(&w))
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET,
                             "could not write the sync-navigation file");
    return ETP_OK;
}

etp_status etp_me_check_program(const etp_analysis *a, const char *pte_path, etp_error *err)
{
    if (!a->program || !a->program_sha256[0])
        return ETP_OK;
    FILE *f = fopen(pte_path, "rb");
    if (!f)
        return etp_error_set(err, ETP_E_IO, pte_path, ETP_NO_OFFSET,
                             "cannot re-read the program to check it is the one analysed: %s; "
                             "run the analysis again",
                             strerror(errno));
    char hex[ETP_SHA256_HEX];
    uint64_t size = 0;
    int rc = etp_sha256_fd(fileno(f), hex, &size);
    int e = errno;
    fclose(f);
    if (rc)
        return etp_error_set(err, ETP_E_IO, pte_path, ETP_NO_OFFSET,
                             "cannot re-read the program to check it is the one analysed: %s",
                             e ? strerror(e) : "hashing failed");
    return etp_me_check_program_digest(a, pte_path, hex, err);
}

etp_status etp_me_check_program_digest(const etp_analysis *a, const char *pte_path,
                                          const char *sha256, etp_error *err)
{
    if (!a->program || !a->program_sha256[0])
        return ETP_OK;
    if (strcmp(sha256, a->program_sha256))
        return etp_error_set(err, ETP_E_MISMATCH, pte_path, ETP_NO_OFFSET,
                             "changed since it was analysed (SHA-256 was %.12s..., is now %.12s...); "
                             "the views would not match it: run the analysis again",
                             a->program_sha256, sha256);
    return ETP_OK;
}
