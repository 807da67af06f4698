/*
 * me_graph.c - the Model Explorer graph of a program, node for node as Arm's
 * PTE adapter builds it (rules: shared/specs/model-explorer.md section 3).
 *
 * Per plan: GraphInputs, one node per empty chain (plus the adapter's extra
 * GraphOutputs after each), one node per instruction, GraphOutputs. Edges
 * follow a producer map (EValue index -> node) shared by the whole plan:
 * graph inputs are produced by GraphInputs, and an instruction produces each
 * non-constant tensor (or tensor list) argument nobody produced before it.
 */
#include "etprof/mexplorer.h"

#include <stdlib.h>
#include <string.h>

#include "outputs/mexplorer/me_vgf.h"
#include "outputs/mexplorer/me_pystr.h"

#define NO_PRODUCER UINT32_MAX

static etp_status oom(etp_error *err)
{
    return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET,
                         "out of memory building the Model Explorer graph");
}

static char *dup_decoded(const char *s)
{
    return etp_py_decode_utf8(s ? s : "", s ? strlen(s) : 0);
}

static char *dup_printf_id(const char *graph_id, uint32_t chain, uint32_t instr)
{
    int n = etp_me_node_id(NULL, 0, graph_id, chain, instr);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        etp_me_node_id(s, (size_t)n + 1, graph_id, chain, instr);
    return s;
}

int etp_me_node_id(char *buf, size_t size, const char *graph_id, uint32_t chain, uint32_t instr)
{
    return snprintf(buf, size, "%s_%u_%u", graph_id ? graph_id : "", chain, instr);
}

static int32_t rd_i32(const int32_t *a, uint32_t i)
{
    int32_t v;
    memcpy(&v, a + i, sizeof v); /* vectors inside a .bpte need not be aligned */
    return v;
}

/* An EValue the adapter treats as a possible instruction output: a
 * non-constant tensor, or a tensor list. */
static int is_output_candidate(const etp_evalue *v)
{
    if (!v->has_val)
        return 0;
    if (v->kind == ETP_EV_TENSOR)
        return v->data_buffer_idx == 0;
    return v->kind == ETP_EV_TENSOR_LIST || v->kind == ETP_EV_OPT_TENSOR_LIST;
}

/* Value indices an instruction refers to, in the adapter's order; indices
 * outside the value table are dropped. Returns the count written to @p out
 * (sized for instr_arg_capacity()). */
static uint32_t instr_arg_capacity(const etp_instruction *in)
{
    if (!in->has_args)
        return 0;
    if (in->kind == ETP_INSTR_KERNEL || in->kind == ETP_INSTR_DELEGATE)
        return in->arg_count;
    if (in->kind == ETP_INSTR_MOVE)
        return 2;
    if (in->kind == ETP_INSTR_JUMP_FALSE || in->kind == ETP_INSTR_FREE)
        return 1;
    return 0;
}

static uint32_t instr_args(const etp_instruction *in, uint32_t value_count, int32_t *out)
{
    uint32_t n = 0;
    int32_t raw[2];
    const int32_t *src = NULL;
    uint32_t cnt = 0;
    if (!in->has_args)
        return 0;
    if (in->kind == ETP_INSTR_KERNEL || in->kind == ETP_INSTR_DELEGATE) {
        src = in->args;
        cnt = in->args ? in->arg_count : 0;
    } else if (in->kind == ETP_INSTR_MOVE) {
        raw[0] = in->a;
        raw[1] = in->b;
        src = raw;
        cnt = 2;
    } else if (in->kind == ETP_INSTR_JUMP_FALSE || in->kind == ETP_INSTR_FREE) {
        raw[0] = in->a;
        src = raw;
        cnt = 1;
    }
    for (uint32_t i = 0; i < cnt; i++) {
        int32_t v = rd_i32(src, i);
        if (v >= 0 && (uint32_t)v < value_count)
            out[n++] = v;
    }
    return n;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* State shared by the nodes of one plan. */
typedef struct plan_ctx {
    const etp_plan *pl;
    uint32_t *producer;        /* per value index: node index, or NO_PRODUCER */
    int32_t *foreign_inputs;   /* plan inputs outside the value table, sorted */
    uint32_t foreign_count;
} plan_ctx;

static uint32_t producer_of(const plan_ctx *x, int32_t idx)
{
    if (idx >= 0 && (uint32_t)idx < x->pl->value_count)
        return x->producer[idx];
    /* The adapter registers every listed input, even one it cannot describe. */
    if (x->foreign_count &&
        bsearch(&idx, x->foreign_inputs, x->foreign_count, sizeof idx, cmp_i32))
        return 0;
    return NO_PRODUCER;
}

static etp_status alloc_lists(etp_me_node *nd, uint32_t edges, uint32_t inputs, uint32_t outputs)
{
    if (edges && !(nd->edges = malloc((size_t)edges * sizeof *nd->edges)))
        return ETP_E_NOMEM;
    if (inputs && !(nd->inputs = malloc((size_t)inputs * sizeof *nd->inputs)))
        return ETP_E_NOMEM;
    if (outputs && !(nd->outputs = malloc((size_t)outputs * sizeof *nd->outputs)))
        return ETP_E_NOMEM;
    return ETP_OK;
}

static const char *kind_label(etp_instr_kind k, char *tmp, size_t size)
{
    if ((int)k >= 0 && (int)k <= ETP_INSTR_FREE)
        return etp_instr_kind_name(k);
    snprintf(tmp, size, "%d", (int)k); /* the adapter prints unknown tags as numbers */
    return tmp;
}

/* Label: the operator name of a kernel call, the backend id of a delegate
 * call, the instruction type otherwise. Sets *linked when the adapter would
 * build a delegate subgraph for this call. */
static char *instr_label(const etp_plan *pl, const etp_instruction *in, int *linked)
{
    char tmp[16];
    *linked = 0;
    if (in->has_args && in->kind == ETP_INSTR_KERNEL && in->a >= 0 &&
        (uint32_t)in->a < pl->operator_count)
        return dup_decoded(pl->operators[in->a].name);
    if (in->has_args && in->kind == ETP_INSTR_DELEGATE && in->a >= 0 &&
        (uint32_t)in->a < pl->delegate_count) {
        const etp_delegate *d = &pl->delegates[in->a];
        char *label = dup_decoded(d->id);
        /* The adapter expands VGF blobs and Ethos-U calls (with TOSA files, or
         * as an empty graph); other backends get no subgraph. */
        if (label && d->location >= 0 &&
            (!strcmp(label, "VgfBackend") || !strcmp(label, "EthosUBackend")))
            *linked = 1;
        return label;
    }
    return dup_decoded(kind_label(in->kind, tmp, sizeof tmp));
}

static etp_status build_instruction(etp_me_graph *g, plan_ctx *x, uint32_t node_index,
                                    uint32_t c, uint32_t i, int32_t *scratch)
{
    const etp_plan *pl = x->pl;
    const etp_instruction *in = &pl->chains[c].instructions[i];
    etp_me_node *nd = &g->nodes[node_index];
    nd->kind = ETP_ME_NODE_INSTRUCTION;
    nd->chain = (int32_t)c;
    nd->instruction = (int32_t)i;
    nd->instr = in;
    nd->ns = g->id;
    nd->id = dup_printf_id(g->id, c, i);
    nd->label = instr_label(pl, in, &nd->has_subgraph);
    if (!nd->id || !nd->label)
        return ETP_E_NOMEM;

    uint32_t n = instr_args(in, pl->value_count, scratch);
    if (alloc_lists(nd, n, n, n))
        return ETP_E_NOMEM;
    /* Edges and input metadata see the producer map as it was before this
     * instruction; only then does it claim its outputs. */
    for (uint32_t k = 0; k < n; k++) {
        int32_t idx = scratch[k];
        uint32_t prod = x->producer[idx];
        if (is_output_candidate(&pl->values[idx]) && prod == NO_PRODUCER)
            continue;
        if (prod != NO_PRODUCER)
            nd->edges[nd->edge_count++] = (etp_me_edge){prod, idx};
        nd->inputs[nd->input_count++] = idx;
    }
    for (uint32_t k = 0; k < n; k++) {
        int32_t idx = scratch[k];
        if (!is_output_candidate(&pl->values[idx]) || x->producer[idx] != NO_PRODUCER)
            continue; /* also skips an out argument listed twice */
        nd->outputs[nd->output_count++] = idx;
        x->producer[idx] = node_index;
    }
    return ETP_OK;
}

static void init_node(etp_me_node *nd, etp_me_node_kind kind, const char *ns)
{
    memset(nd, 0, sizeof *nd);
    nd->kind = kind;
    nd->ns = ns;
    nd->chain = -1;
    nd->instruction = -1;
}

static etp_status build_plan_graph(etp_me_graph *g, const etp_plan *pl)
{
    plan_ctx x = {pl, NULL, NULL, 0};
    etp_status s = ETP_E_NOMEM;
    int32_t *scratch = NULL;

    uint64_t empty = 0, instrs = 0;
    uint32_t max_args = 2;
    for (uint32_t c = 0; c < pl->chain_count; c++) {
        const etp_chain *ch = &pl->chains[c];
        if (!ch->instruction_count)
            empty++;
        instrs += ch->instruction_count;
        for (uint32_t i = 0; i < ch->instruction_count; i++) {
            uint32_t cap = instr_arg_capacity(&ch->instructions[i]);
            if (cap > max_args)
                max_args = cap;
        }
    }
    uint64_t count = 2 + 2 * empty + instrs;
    if (count >= NO_PRODUCER)
        return ETP_E_LIMIT;
    g->nodes = calloc((size_t)count, sizeof *g->nodes);
    scratch = malloc((size_t)max_args * sizeof *scratch);
    if (pl->value_count)
        x.producer = malloc((size_t)pl->value_count * sizeof *x.producer);
    if (!g->nodes || !scratch || (pl->value_count && !x.producer))
        goto done;
    for (uint32_t v = 0; v < pl->value_count; v++)
        x.producer[v] = NO_PRODUCER;

    /* GraphInputs: describes and produces every listed input. */
    etp_me_node *nd = &g->nodes[g->node_count++];
    init_node(nd, ETP_ME_NODE_INPUTS, "GraphInputs");
    if (!(nd->id = dup_decoded("GraphInputs")) || !(nd->label = dup_decoded("Graph Inputs")) ||
        alloc_lists(nd, 0, 0, pl->input_count))
        goto done;
    for (uint32_t k = 0; k < pl->input_count; k++) {
        int32_t idx = rd_i32(pl->inputs, k);
        nd->outputs[nd->output_count++] = idx;
        if (idx >= 0 && (uint32_t)idx < pl->value_count)
            x.producer[idx] = 0;
        else
            x.foreign_count++;
    }
    if (x.foreign_count) {
        if (!(x.foreign_inputs = malloc((size_t)x.foreign_count * sizeof *x.foreign_inputs)))
            goto done;
        uint32_t f = 0;
        for (uint32_t k = 0; k < pl->input_count; k++) {
            int32_t idx = rd_i32(pl->inputs, k);
            if (idx < 0 || (uint32_t)idx >= pl->value_count)
                x.foreign_inputs[f++] = idx;
        }
        qsort(x.foreign_inputs, f, sizeof *x.foreign_inputs, cmp_i32);
    }

    /* Empty chains first, each with the adapter's extra GraphOutputs. */
    for (uint32_t c = 0; c < pl->chain_count; c++) {
        if (pl->chains[c].instruction_count)
            continue;
        uint32_t chain_node = g->node_count;
        nd = &g->nodes[g->node_count++];
        init_node(nd, ETP_ME_NODE_EMPTY_CHAIN, g->id);
        nd->chain = (int32_t)c;
        char name[32];
        snprintf(name, sizeof name, "Chain_%u", c);
        if (!(nd->id = dup_decoded(name)) || !(nd->label = dup_decoded(g->id)) ||
            alloc_lists(nd, 1, 0, 0))
            goto done;
        nd->edges[nd->edge_count++] = (etp_me_edge){0, 0};
        nd = &g->nodes[g->node_count++];
        init_node(nd, ETP_ME_NODE_CHAIN_OUTPUTS, "GraphOutputs");
        if (!(nd->id = dup_decoded("GraphOutputs")) || !(nd->label = dup_decoded("Graph Outputs")) ||
            alloc_lists(nd, 1, 0, 0))
            goto done;
        nd->edges[nd->edge_count++] = (etp_me_edge){chain_node, 0};
    }

    for (uint32_t c = 0; c < pl->chain_count; c++)
        for (uint32_t i = 0; i < pl->chains[c].instruction_count; i++)
            if (build_instruction(g, &x, g->node_count++, c, i, scratch))
                goto done;

    /* GraphOutputs: an edge per produced output, metadata for all of them. */
    nd = &g->nodes[g->node_count++];
    init_node(nd, ETP_ME_NODE_OUTPUTS, "GraphOutputs");
    if (!(nd->id = dup_decoded("GraphOutputs")) || !(nd->label = dup_decoded("Graph Outputs")) ||
        alloc_lists(nd, pl->output_count, pl->output_count, 0))
        goto done;
    for (uint32_t k = 0; k < pl->output_count; k++) {
        int32_t idx = rd_i32(pl->outputs, k);
        uint32_t prod = producer_of(&x, idx);
        if (prod != NO_PRODUCER)
            nd->edges[nd->edge_count++] = (etp_me_edge){prod, idx};
        nd->inputs[nd->input_count++] = idx;
    }
    s = ETP_OK;
done:
    free(scratch);
    free(x.producer);
    free(x.foreign_inputs);
    return s;
}

static char *graph_id_of(const etp_plan *pl, uint32_t index)
{
    if (pl->name)
        return dup_decoded(pl->name);
    char name[40];
    snprintf(name, sizeof name, "ExecutionPlan_%u", index);
    return dup_decoded(name);
}

static char *base_name(const char *path)
{
    const char *b = path ? strrchr(path, '/') : NULL;
    return dup_decoded(b ? b + 1 : path ? path : "");
}

/* One placeholder graph per linked delegate call, in node order. */
static etp_status build_delegate_graphs(etp_me_collection *c)
{
    uint32_t n = 0;
    for (uint32_t gi = 0; gi < c->graph_count; gi++)
        for (uint32_t k = 0; k < c->graphs[gi].node_count; k++)
            n += c->graphs[gi].nodes[k].has_subgraph != 0;
    if (!n)
        return ETP_OK;
    if (!(c->delegate_graphs = calloc(n, sizeof *c->delegate_graphs)))
        return ETP_E_NOMEM;
    for (uint32_t gi = 0; gi < c->graph_count; gi++) {
        const etp_me_graph *g = &c->graphs[gi];
        for (uint32_t k = 0; k < g->node_count; k++) {
            const etp_me_node *nd = &g->nodes[k];
            if (!nd->has_subgraph)
                continue;
            etp_me_graph *dg = &c->delegate_graphs[c->delegate_graph_count++];
            dg->plan = g->plan;
            dg->plan_index = g->plan_index;
            dg->delegate_index = nd->instr->a;
            dg->delegate = &g->plan->delegates[nd->instr->a];
            if (!(dg->id = dup_decoded(nd->id)))
                return ETP_E_NOMEM;
        }
    }
    return ETP_OK;
}

etp_status etp_me_build(const etp_program *p, const char *method, const char *label,
                        etp_me_collection **out, etp_error *err)
{
    *out = NULL;
    etp_me_collection *c = calloc(1, sizeof *c);
    if (!c)
        return oom(err);
    etp_status s = ETP_E_NOMEM;
    c->label = label ? dup_decoded(label) : base_name(p->path);
    uint32_t want = p->plan_count ? p->plan_count : 1;
    c->graphs = calloc(want, sizeof *c->graphs);
    if (!c->label || !c->graphs)
        goto fail;

    if (!p->plan_count) {
        /* The adapter still shows one (empty) graph. */
        if (method && strcmp(method, "ExecutionPlan_0") != 0)
            goto no_method;
        c->graphs[0].plan_index = -1;
        c->graphs[0].delegate_index = -1;
        if (!(c->graphs[0].id = dup_decoded("ExecutionPlan_0")))
            goto fail;
        c->graph_count = 1;
    }
    for (uint32_t i = 0; i < p->plan_count; i++) {
        etp_me_graph *g = &c->graphs[c->graph_count];
        if (!(g->id = graph_id_of(&p->plans[i], i)))
            goto fail;
        if (method && strcmp(method, g->id) != 0) {
            free(g->id);
            g->id = NULL;
            continue;
        }
        g->plan = &p->plans[i];
        g->plan_index = (int32_t)i;
        g->delegate_index = -1;
        c->graph_count++;
        s = build_plan_graph(g, &p->plans[i]);
        if (s == ETP_E_LIMIT) {
            etp_error_set(err, s, p->path, ETP_NO_OFFSET,
                          "method \"%s\" has too many instructions for a graph", g->id);
            etp_me_free(c);
            return s;
        }
        if (s)
            goto fail;
    }
    if (!c->graph_count)
        goto no_method;
    if (build_delegate_graphs(c))
        goto fail;
    if ((s = etp_me_vgf_attach(c, p, err))) { /* VGF delegates: their TOSA graphs */
        etp_me_free(c);
        return s;
    }
    *out = c;
    return ETP_OK;

no_method:
    etp_me_free(c);
    {
        /* Say which methods there are: the user mistyped one. */
        char names[300] = "";
        size_t len = 0;
        for (uint32_t i = 0; i < p->plan_count && len < sizeof names - 1; i++) {
            char *id = graph_id_of(&p->plans[i], i);
            int n = snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                             id ? id : "?");
            free(id);
            len = n < 0 ? len : len + (size_t)n;
        }
        return etp_error_set(err, ETP_E_USAGE, p->path, ETP_NO_OFFSET,
                             "the program has no method \"%s\" (methods: %s)", method,
                             p->plan_count ? names : "none");
    }
fail:
    etp_me_free(c);
    return oom(err);
}

static void free_graph(etp_me_graph *g)
{
    for (uint32_t k = 0; g->nodes && k < g->node_count; k++) {
        etp_me_node *nd = &g->nodes[k];
        free(nd->id);
        free(nd->label);
        free(nd->edges);
        free(nd->inputs);
        free(nd->outputs);
    }
    free(g->nodes);
    free(g->id);
    etp_me_vgf_free(g->vgf);
}

void etp_me_free(etp_me_collection *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; c->graphs && i < c->graph_count; i++)
        free_graph(&c->graphs[i]);
    free(c->graphs);
    for (uint32_t i = 0; c->delegate_graphs && i < c->delegate_graph_count; i++)
        free_graph(&c->delegate_graphs[i]);
    free(c->delegate_graphs);
    free(c->label);
    free(c);
}

const etp_me_graph *etp_me_find_graph(const etp_me_collection *c, const char *id)
{
    for (uint32_t i = 0; i < c->graph_count; i++)
        if (c->graphs[i].id && !strcmp(c->graphs[i].id, id))
            return &c->graphs[i];
    for (uint32_t i = 0; i < c->delegate_graph_count; i++)
        if (!strcmp(c->delegate_graphs[i].id, id))
            return &c->delegate_graphs[i];
    return NULL;
}

int64_t etp_me_find_node(const etp_me_graph *g, const char *id)
{
    for (uint32_t k = 0; k < g->node_count; k++)
        if (g->nodes[k].id && !strcmp(g->nodes[k].id, id))
            return k;
    return -1;
}
