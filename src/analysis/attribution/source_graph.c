/* source_graph.c - the ETRecord's exported graph of the analysed method as a
 * drawable graph, with its links to the deployed instructions
 * (source_graph.h). A model only: the views and bundles write it.
 *
 * Links are read from the ETRecord's maps only (debug handle map, delegate
 * map); an operator's timing comes from the analysis entity of the same
 * name. Nothing here infers a link the maps do not state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/attribution/source_graph_internal.h"
#include "util/hashmap.h"
#include "util/str.h"
#include "util/vec.h"

/* A graph as etp_source_graph_build makes it: the public part first, so that
 * the pointer handed out is also this struct's, and the lookup index the
 * public struct does not show. */
typedef struct built_graph {
    etp_source_graph pub;
    uint32_t *by_id;     /* node indices sorted by id (etp_source_graph_find) */
} built_graph;

static built_graph *built_of(etp_source_graph *g) { return (built_graph *)g; }
static const built_graph *built_of_const(const etp_source_graph *g) { return (const built_graph *)g; }

struct prod {
    const char *name;
    uint32_t node, output;
};

typedef VEC(etp_src_link) link_vec;

typedef struct builder {
    etp_source_graph *g;
    etp_hm ids;          /* hash(id) -> node index, to keep ids unique */
    etp_hm producers;    /* hash(tensor name) -> index into prod */
    VEC(struct prod) prod;
    etp_error *err;
} builder;

static etp_status oom(builder *b)
{
    return etp_error_set(b->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory building the source graph");
}

static uint64_t str_hash(const char *s) { return etp_hash_bytes(s, strlen(s), 0x5eed); }

static int id_taken(const builder *b, const char *id)
{
    size_t cur = 0;
    uint32_t v;
    while (etp_hm_next(&b->ids, str_hash(id), &cur, &v))
        if (!strcmp(b->g->nodes[v].id, id))
            return 1;
    return 0;
}

/* Give node @p k the id @p want, or "<want>#<n>" if that is taken (a
 * malformed file may repeat names; ids must stay unique). */
static int set_id(builder *b, uint32_t k, const char *want)
{
    char *id = etp_strdup(want);
    for (unsigned n = 2; id && id_taken(b, id); n++) {
        free(id);
        size_t len = strlen(want) + 16;
        id = malloc(len);
        if (id)
            snprintf(id, len, "%s#%u", want, n);
    }
    if (!id)
        return -1;
    b->g->nodes[k].id = id;
    return etp_hm_put(&b->ids, str_hash(id), k);
}

/* "aten.convolution.default" -> "aten.convolution" (the overload packet,
 * as Model Explorer's exported-program adapter labels nodes). */
static char *op_label(const etp_graph_node *nd)
{
    if (nd->is_delegate_call)
        return etp_strdup("executorch_call_delegate");
    const char *t = nd->op_type ? nd->op_type : nd->target ? nd->target : "call_function";
    const char *first = strchr(t, '.');
    const char *last = strrchr(t, '.');
    if (!first || first == last)
        return etp_strdup(t);
    size_t n = (size_t)(last - t);
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, t, n);
        s[n] = 0;
    }
    return s;
}

/* Namespace from the innermost module path: "layer1.0.conv1" ->
 * "layer1/0/conv1". A '/' inside a component is escaped as Model Explorer
 * reads it ("\/"); ';' would cut the namespace there, so it becomes '_'. */
char *etp_module_namespace(const char *path)
{
    size_t n = strlen(path);
    char *s = malloc(2 * n + 1);
    if (!s)
        return NULL;
    size_t k = 0;
    int pending_sep = 0;
    for (const char *p = path; *p; p++) {
        if (*p == '.') {
            pending_sep = k > 0;
            continue;
        }
        if (pending_sep) {
            s[k++] = '/';
            pending_sep = 0;
        }
        if (*p == '/')
            s[k++] = '\\';
        s[k++] = *p == ';' ? '_' : *p;
    }
    s[k] = 0;
    return s;
}

static int add_producer(builder *b, const char *name, uint32_t node, uint32_t output)
{
    if (!name)
        return 0;
    size_t cur = 0;
    uint32_t v;
    while (etp_hm_next(&b->producers, str_hash(name), &cur, &v))
        if (!strcmp(b->prod.v[v].name, name))
            return 0; /* first producer wins */
    struct prod p = {name, node, output};
    if (VEC_PUSH(b->prod, p))
        return -1;
    return etp_hm_put(&b->producers, str_hash(name), (uint32_t)b->prod.n - 1);
}

static const struct prod *find_producer(const builder *b, const char *name)
{
    size_t cur = 0;
    uint32_t v;
    while (name && etp_hm_next(&b->producers, str_hash(name), &cur, &v))
        if (!strcmp(b->prod.v[v].name, name))
            return &b->prod.v[v];
    return NULL;
}

static int add_edges(builder *b, etp_src_node *nd)
{
    if (!nd->input_count)
        return 0;
    nd->edges = malloc(nd->input_count * sizeof *nd->edges);
    if (!nd->edges)
        return -1;
    for (uint32_t k = 0; k < nd->input_count; k++) {
        const struct prod *p = find_producer(b, nd->inputs[k]);
        if (p)
            nd->edges[nd->edge_count++] = (etp_src_edge){p->node, p->output, k};
    }
    return 0;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* The links of one instruction (and its delegate events). */
static int add_links(builder *b, const etp_analysis *a, const etp_method_maps *maps,
                     const etp_instr_handles *ih, uint32_t op_base, link_vec *out)
{
    const etp_exported_program *ep = b->g->program;
    int32_t ins = ih->instruction_id;
    etp_link_kind kind = ETP_LINK_INSTRUCTION;
    const char *backend = NULL;
    const etp_instr_delegate *dm = etp_etrecord_instr_delegate(maps, ins);
    const etp_chain *ch = a->plan && a->plan->chain_count ? &a->plan->chains[0] : NULL;
    if (ch && ins >= 0 && (uint32_t)ins < ch->instruction_count) {
        const etp_instruction *in = &ch->instructions[ins];
        kind = in->kind == ETP_INSTR_KERNEL     ? ETP_LINK_KERNEL
               : in->kind == ETP_INSTR_DELEGATE ? ETP_LINK_DELEGATE
                                                : ETP_LINK_INSTRUCTION;
        if (in->kind == ETP_INSTR_DELEGATE && in->a >= 0 && (uint32_t)in->a < a->plan->delegate_count)
            backend = a->plan->delegates[in->a].id;
    } else if (!ch && dm) {
        kind = ETP_LINK_DELEGATE; /* the delegate map says so */
    }
    if (kind == ETP_LINK_DELEGATE && !backend && dm)
        backend = dm->backend;
    uint32_t nlinks = 1 + (kind == ETP_LINK_DELEGATE && dm ? dm->id_count : 0);
    for (uint32_t li = 0; li < nlinks; li++) {
        etp_src_link l;
        memset(&l, 0, sizeof l);
        l.instruction = ins;
        l.kind = li == 0 ? kind : ETP_LINK_DELEGATE_EVENT;
        l.backend = kind == ETP_LINK_DELEGATE ? backend : NULL;
        const etp_handle_list *hl = li == 0 ? &ih->handles : &dm->ids[li - 1].handles;
        if (li)
            l.delegate_id = dm->ids[li - 1].delegate_id;
        l.handles = hl->handles;
        l.handle_count = hl->count;
        for (uint32_t k = 0; k < hl->count; k++) {
            const uint32_t *idx;
            uint32_t n = etp_exported_program_nodes_with_handle(ep, hl->handles[k], &idx);
            if (!n) {
                int seen = 0;
                for (uint32_t q = 0; q < l.unresolved_count && !seen; q++)
                    seen = l.unresolved[q] == hl->handles[k];
                if (seen)
                    continue;
                int64_t *nu = realloc(l.unresolved, (l.unresolved_count + 1) * sizeof *nu);
                if (!nu)
                    goto fail;
                l.unresolved = nu;
                nu[l.unresolved_count++] = hl->handles[k];
                continue;
            }
            uint32_t *nn = realloc(l.nodes, (l.node_count + n) * sizeof *nn);
            if (!nn)
                goto fail;
            l.nodes = nn;
            for (uint32_t j = 0; j < n; j++)
                nn[l.node_count++] = op_base + idx[j];
        }
        if (l.node_count > 1) {
            qsort(l.nodes, l.node_count, sizeof *l.nodes, cmp_u32);
            uint32_t w = 1;
            for (uint32_t k = 1; k < l.node_count; k++)
                if (l.nodes[k] != l.nodes[w - 1])
                    l.nodes[w++] = l.nodes[k];
            l.node_count = w;
        }
        if (VEC_PUSH(*out, l))
            goto fail;
        continue;
    fail:
        free(l.nodes);
        free(l.unresolved);
        return -1;
    }
    return 0;
}

struct id_ref {
    const char *id;
    uint32_t node;
};

static int cmp_id_ref(const void *x, const void *y)
{
    const struct id_ref *a = x, *b = y;
    int c = strcmp(a->id, b->id);
    return c ? c : (a->node > b->node) - (a->node < b->node);
}

static int index_ids(built_graph *bg)
{
    const etp_source_graph *g = &bg->pub;
    size_t n = g->node_count ? g->node_count : 1;
    struct id_ref *r = malloc(n * sizeof *r);
    bg->by_id = malloc(n * sizeof *bg->by_id);
    if (!r || !bg->by_id) {
        free(r);
        return -1;
    }
    for (uint32_t i = 0; i < g->node_count; i++)
        r[i] = (struct id_ref){g->nodes[i].id, i};
    qsort(r, g->node_count, sizeof *r, cmp_id_ref);
    for (uint32_t i = 0; i < g->node_count; i++)
        bg->by_id[i] = r[i].node;
    free(r);
    return 0;
}

static etp_status build(builder *b, const etp_analysis *a)
{
    etp_source_graph *g = b->g;
    const etp_exported_program *ep = g->program;
    uint64_t total = (uint64_t)ep->input_count + ep->node_count + 1;
    if (total >= (1u << 31))
        return etp_error_set(b->err, ETP_E_LIMIT, a->etrecord->path, ETP_NO_OFFSET,
                             "source graph of %s has too many nodes", g->method);
    g->nodes = calloc((size_t)total, sizeof *g->nodes);
    if (!g->nodes)
        return oom(b);
    g->node_count = (uint32_t)total;
    for (uint32_t i = 0; i < g->node_count; i++)
        g->nodes[i].group = -1;

    /* Graph inputs. */
    uint32_t k = 0;
    for (uint32_t i = 0; i < ep->input_count; i++, k++) {
        etp_src_node *nd = &g->nodes[k];
        nd->kind = ETP_SRC_NODE_INPUT;
        nd->link = ETP_LINK_NOT_APPLICABLE;
        const char *name = ep->inputs[i] && *ep->inputs[i] ? ep->inputs[i] : "input";
        nd->label = etp_strdup("input");
        nd->ns = etp_strdup("inputs");
        if (!nd->label || !nd->ns || set_id(b, k, name) || add_producer(b, ep->inputs[i], k, 0))
            return oom(b);
    }
    /* Operators, with the analysis entity of the same name. */
    uint32_t op_base = k;
    uint32_t ent = 0;
    for (uint32_t i = 0; i < ep->node_count; i++, k++) {
        const etp_graph_node *gn = &ep->nodes[i];
        etp_src_node *nd = &g->nodes[k];
        nd->kind = ETP_SRC_NODE_OPERATOR;
        nd->node = gn;
        nd->inputs = gn->inputs;
        nd->input_count = gn->input_count;
        const char *path = gn->module_depth ? gn->modules[gn->module_depth - 1].path : "";
        nd->label = op_label(gn);
        nd->ns = etp_module_namespace(path ? path : "");
        char synth[32] = "";
        if (!gn->name)
            snprintf(synth, sizeof synth, "node_%u", i);
        if (!nd->label || !nd->ns || set_id(b, k, gn->name ? gn->name : synth))
            return oom(b);
        for (uint32_t o = 0; o < gn->output_count; o++)
            if (add_producer(b, gn->outputs[o], k, o))
                return oom(b);
        /* The analysis makes one operator entity per node with a name and
         * a debug handle, in graph order. */
        if (gn->has_debug_handle && gn->name) {
            while (ent < a->entity_count && a->entities[ent].kind != ETP_ENTITY_OPERATOR)
                ent++;
            if (ent < a->entity_count && !strcmp(a->entities[ent].id, gn->name))
                nd->entity = &a->entities[ent++];
        }
    }
    g->operator_count = ep->node_count;
    /* Graph outputs. */
    etp_src_node *out = &g->nodes[k];
    out->kind = ETP_SRC_NODE_OUTPUTS;
    out->link = ETP_LINK_NOT_APPLICABLE;
    out->inputs = ep->outputs;
    out->input_count = ep->output_count;
    out->label = etp_strdup("Graph Outputs");
    out->ns = etp_strdup("GraphOutputs");
    if (!out->label || !out->ns || set_id(b, k, "GraphOutputs"))
        return oom(b);

    for (uint32_t i = 0; i < g->node_count; i++)
        if (add_edges(b, &g->nodes[i]))
            return oom(b);

    /* Links from the maps. */
    const etp_method_maps *maps = etp_etrecord_maps(a->etrecord, g->method);
    link_vec links = {0};
    for (uint32_t i = 0; maps && i < maps->handle_count; i++) {
        if (maps->handles[i].instruction_id < 0)
            continue;
        if (add_links(b, a, maps, &maps->handles[i], op_base, &links)) {
            for (size_t q = 0; q < links.n; q++) {
                free(links.v[q].nodes);
                free(links.v[q].unresolved);
            }
            VEC_FREE(links);
            return oom(b);
        }
    }
    g->links = links.v;
    g->link_count = (uint32_t)links.n;

    /* Per node: the links that reach it (two passes: count, fill). */
    for (uint32_t li = 0; li < g->link_count; li++)
        for (uint32_t q = 0; q < g->links[li].node_count; q++)
            g->nodes[g->links[li].nodes[q]].link_count++;
    for (uint32_t i = 0; i < g->node_count; i++) {
        etp_src_node *nd = &g->nodes[i];
        if (nd->link_count && !(nd->links = malloc(nd->link_count * sizeof *nd->links)))
            return oom(b);
        nd->link_count = 0;
    }
    for (uint32_t li = 0; li < g->link_count; li++)
        for (uint32_t q = 0; q < g->links[li].node_count; q++) {
            etp_src_node *nd = &g->nodes[g->links[li].nodes[q]];
            nd->links[nd->link_count++] = li;
        }
    for (uint32_t i = op_base; i < op_base + g->operator_count; i++) {
        etp_src_node *nd = &g->nodes[i];
        nd->link = !nd->node->has_debug_handle                 ? ETP_LINK_NO_HANDLE
                   : nd->link_count                            ? ETP_LINK_LINKED
                   : !maps || !maps->in_debug_handle_map       ? ETP_LINK_NO_MAP
                                                               : ETP_LINK_NO_INSTRUCTION;
        g->unlinked_operators += nd->link != ETP_LINK_LINKED;
    }

    /* Delegated regions: the operators of each DelegateCall's link. */
    for (uint32_t li = 0; li < g->link_count; li++) {
        const etp_src_link *l = &g->links[li];
        if (l->kind != ETP_LINK_DELEGATE)
            continue;
        etp_src_group *ng = realloc(g->groups, (g->group_count + 1) * sizeof *ng);
        if (!ng)
            return oom(b);
        g->groups = ng;
        etp_src_group *gr = &ng[g->group_count];
        *gr = (etp_src_group){l->instruction, l->backend, 0};
        for (uint32_t q = 0; q < l->node_count; q++)
            if (g->nodes[l->nodes[q]].group < 0) {
                g->nodes[l->nodes[q]].group = (int32_t)g->group_count;
                gr->node_count++;
            }
        g->group_count++;
    }
    return index_ids(built_of(g)) ? oom(b) : ETP_OK;
}

etp_status etp_source_graph_build(const etp_analysis *a, const char *graph_id,
                                  etp_source_graph **out, etp_error *err)
{
    *out = NULL;
    if (!a->etrecord)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "a source graph needs an analysis with an ETRecord");
    const etp_exported_program *ep = etp_etrecord_edge_program(a->etrecord, a->method);
    if (!ep)
        return etp_error_set(err, ETP_E_USAGE, a->etrecord->path, ETP_NO_OFFSET,
                             "no exported graph for method %s", a->method);
    builder b;
    memset(&b, 0, sizeof b);
    b.err = err;
    built_graph *bg = calloc(1, sizeof *bg);
    if (!bg)
        return oom(&b);
    b.g = &bg->pub;
    b.g->method = a->method;
    b.g->program = ep;
    if (graph_id)
        b.g->id = etp_strdup(graph_id);
    else if ((b.g->id = malloc(strlen(a->method) + 8)))
        sprintf(b.g->id, "%s.source", a->method);
    etp_hm_init(&b.ids);
    etp_hm_init(&b.producers);
    etp_status s = b.g->id ? build(&b, a) : oom(&b);
    etp_hm_free(&b.ids);
    etp_hm_free(&b.producers);
    VEC_FREE(b.prod);
    if (s) {
        etp_source_graph_free(b.g);
        return s;
    }
    *out = b.g;
    return ETP_OK;
}

void etp_source_graph_free(etp_source_graph *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; g->nodes && i < g->node_count; i++) {
        free(g->nodes[i].id);
        free(g->nodes[i].label);
        free(g->nodes[i].ns);
        free(g->nodes[i].edges);
        free(g->nodes[i].links);
    }
    free(g->nodes);
    for (uint32_t i = 0; i < g->link_count; i++) {
        free(g->links[i].nodes);
        free(g->links[i].unresolved);
    }
    free(g->links);
    free(g->groups);
    free(g->id);
    built_graph *bg = built_of(g);
    free(bg->by_id);
    free(bg);
}

int64_t etp_source_graph_find(const etp_source_graph *g, const char *id)
{
    const uint32_t *by_id = built_of_const(g)->by_id;
    uint32_t lo = 0, hi = by_id ? g->node_count : 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(g->nodes[by_id[mid]].id, id);
        if (!c)
            return by_id[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

const char *etp_link_state_name(etp_link_state s)
{
    switch (s) {
    case ETP_LINK_LINKED: return "linked";
    case ETP_LINK_NO_HANDLE: return "unlinked: no debug handle";
    case ETP_LINK_NO_INSTRUCTION: return "unlinked: no instruction carries its debug handle";
    case ETP_LINK_NO_MAP_ENTRY: return "unlinked: not in the debug handle map";
    case ETP_LINK_UNRESOLVED: return "unlinked: its debug handles match no operator";
    case ETP_LINK_NO_MAP: return "unlinked: the ETRecord has no debug handle map for this method";
    case ETP_LINK_NOT_APPLICABLE: return "graph input/output";
    }
    return "?";
}

const char *etp_link_kind_name(etp_link_kind k)
{
    switch (k) {
    case ETP_LINK_KERNEL: return "kernel";
    case ETP_LINK_DELEGATE: return "delegate";
    case ETP_LINK_DELEGATE_EVENT: return "delegate_event";
    case ETP_LINK_INSTRUCTION: return "instruction";
    }
    return "?";
}
