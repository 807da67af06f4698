/*
 * me_vgf.c - build and write the Model Explorer graph of a VGF with the
 * rules of Arm's VGF adapter (shared/specs/vgf.md 4.2-4.4). The adapter
 * reads the MLIR text of the deserialized SPIR-V, so its node ids count the
 * constants MLIR materialises at each use, and its "loc" attribute is the
 * op's line and column in that text; both are reproduced from the bytes.
 */
#include "outputs/mexplorer/me_vgf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/mexplorer/me_pystr.h"
#include "util/vec.h"

/* ---- a bump allocator for the graph's strings and arrays ---------------- */

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} chunk;

struct etp_me_vgf_arena {
    chunk *head;
};

static void *arena_alloc(etp_me_vgf_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->head->cap - a->head->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        chunk *c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->next = a->head;
        c->used = 0;
        c->cap = cap;
        a->head = c;
    }
    void *p = a->head->data + a->head->used;
    a->head->used += n;
    memset(p, 0, n);
    return p;
}

static char *arena_str(etp_me_vgf_arena *a, const char *s)
{
    size_t n = strlen(s);
    char *p = arena_alloc(a, n + 1);
    if (p)
        memcpy(p, s, n + 1);
    return p;
}

static char *arena_num(etp_me_vgf_arena *a, const char *prefix, uint64_t v)
{
    char b[48];
    snprintf(b, sizeof b, "%s%llu", prefix, (unsigned long long)v);
    return arena_str(a, b);
}

/* A growable text for attribute values. */
typedef struct text {
    char *p;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *np = realloc(t->p, cap);
        if (!np) {
            t->failed = 1;
            return;
        }
        t->p = np;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n + 1);
    t->len += n;
}

static void put_int(text *t, int64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%lld", (long long)v);
    put(t, b);
}

/* ---- building ------------------------------------------------------------ */

typedef struct builder {
    etp_me_vgf_graph *g;
    etp_me_vgf_arena *a;
    VEC(etp_me_vgf_node) nodes;
    const etp_vgf *v;
    text t;
    uint64_t budget; /* attribute elements left to format (bounds hostile inputs) */
    etp_error *err;
} builder;

/* Attribute values formatted per graph, at most: the real graphs format a
 * few thousand; a crafted one could repeat a huge constant at every use. */
#define ATTR_ELEMENT_BUDGET (1u << 24)

static const char *const acc_types[] = {"INT32", "FP16", "FP32", "INT48"};
static const char *const rounding_modes[] = {"SINGLE_ROUND", "INEXACT_ROUND", "DOUBLE_ROUND"};

static void put_elem(text *t, const etp_spv_values *vals, uint64_t i)
{
    char b[40];
    if (vals->elem == ETP_SPV_ELEM_FLOAT) {
        etp_py_repr_double(b, sizeof b, vals->floats[i]);
        put(t, b);
    } else if (vals->elem == ETP_SPV_ELEM_BOOL)
        put(t, vals->ints[i] ? "True" : "False");
    else
        put_int(t, vals->ints[i]);
}

/* Python list text of the values, nested along dims[d..]. */
static void put_list(text *t, const etp_spv_values *vals, uint32_t d, uint64_t *at)
{
    put(t, "[");
    uint32_t n = d < vals->rank ? vals->dims[d] : 0;
    for (uint32_t k = 0; k < n; k++) {
        if (k)
            put(t, ", ");
        if (d + 1 < vals->rank)
            put_list(t, vals, d + 1, at);
        else if (*at < vals->count)
            put_elem(t, vals, (*at)++);
    }
    put(t, "]");
}

/* The adapter's text for an attribute operand (4.3). */
static const char *attr_value(builder *b, const etp_spv_module *m, const etp_spv_operand *o)
{
    etp_spv_values vals;
    if (etp_spv_constant_values(m, o->id, b->budget < (1u << 20) ? b->budget : (1u << 20), &vals,
                                b->err))
        return NULL;
    b->budget -= vals.count;
    text *t = &b->t;
    t->len = 0;
    if (t->p)
        t->p[0] = '\0';
    if (!vals.is_tensor && vals.count == 1) {
        if (vals.elem == ETP_SPV_ELEM_BOOL)
            put(t, vals.ints[0] ? "true" : "false");
        else if (vals.elem == ETP_SPV_ELEM_INT && o->role && !strcmp(o->role, "acc_type") &&
                 vals.ints[0] >= 1 && vals.ints[0] <= 4)
            put(t, acc_types[vals.ints[0] - 1]);
        else if (vals.elem == ETP_SPV_ELEM_INT && o->role && !strcmp(o->role, "rounding_mode") &&
                 vals.ints[0] >= 1 && vals.ints[0] <= 3)
            put(t, rounding_modes[vals.ints[0] - 1]);
        else {
            char b2[40];
            put_elem(t, &vals, 0);
            snprintf(b2, sizeof b2, " : %s%u", vals.elem == ETP_SPV_ELEM_FLOAT ? "f" : "i",
                     vals.width);
            put(t, b2);
        }
    } else {
        uint64_t product = vals.rank ? 1 : 0, at = 0;
        for (uint32_t k = 0; k < vals.rank; k++)
            product *= vals.dims[k];
        if (product != vals.count) { /* shape unknown: a flat list */
            vals.rank = 1;
            vals.dims[0] = (uint32_t)vals.count;
        }
        put_list(t, &vals, 0, &at);
    }
    free(vals.ints);
    free(vals.floats);
    if (t->failed) {
        etp_error_set(b->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
        return NULL;
    }
    return arena_str(b->a, t->p ? t->p : "");
}

static etp_status nomem(builder *b)
{
    return etp_error_set(b->err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET,
                         "out of memory building the VGF graph");
}

static etp_me_vgf_node *new_node(builder *b, const char *id, const char *label, const char *ns)
{
    etp_me_vgf_node nd;
    memset(&nd, 0, sizeof nd);
    nd.id = id;
    nd.label = label;
    nd.ns = ns;
    nd.segment = -1;
    if (!id || !label || !ns || VEC_PUSH(b->nodes, nd))
        return NULL;
    return &b->nodes.v[b->nodes.n - 1];
}

static etp_me_vgf_kv *kv_array(builder *b, uint32_t n)
{
    return n ? arena_alloc(b->a, n * sizeof(etp_me_vgf_kv)) : NULL;
}

/* inputsMetadata entry {id, [tensor_shape]}. */
static int shape_meta(builder *b, etp_me_vgf_meta *m, uint32_t id, const etp_spv_module *mod,
                      uint32_t type_id, int with_index)
{
    char buf[512];
    etp_spv_type_str(mod, type_id, buf, sizeof buf);
    m->id = id;
    m->attr_count = with_index ? 2 : 1;
    if (!(m->attrs = kv_array(b, m->attr_count)))
        return -1;
    uint32_t k = 0;
    if (with_index) {
        m->attrs[k].key = "tensor_index";
        m->attrs[k++].value = "0";
    }
    m->attrs[k].key = "tensor_shape";
    m->attrs[k].value = arena_str(b->a, buf);
    return m->attrs[k].value ? 0 : -1;
}

static const char *loc_text(builder *b, uint64_t line, uint64_t col)
{
    char buf[64];
    snprintf(buf, sizeof buf, "loc(\"-\":%llu:%llu)", (unsigned long long)line,
             (unsigned long long)col);
    return arena_str(b->a, buf);
}

static unsigned digits(uint64_t v)
{
    unsigned n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Per module: the adapter's counter and the MLIR SSA numbering (4.2, 4.4). */
typedef struct numbering {
    uint64_t counter;
    uint64_t ssa;
    uint64_t line_base;
} numbering;

/* Source node id of an operand; takes a counter value for constants. */
static const char *operand_source(builder *b, const etp_spv_module *m, const etp_vgf_segment *sg,
                                  const etp_spv_operand *o, const char **op_ids, numbering *nb,
                                  int *drop)
{
    *drop = 0;
    switch (o->kind) {
    case ETP_SPV_GRAPH_INPUT:
        if (o->index >= sg->input_count) {
            *drop = 1;
            return NULL;
        }
        return arena_num(b->a, "mrt_", sg->inputs[o->index].mrt_index);
    case ETP_SPV_OP_RESULT:
    case ETP_SPV_EXTRACT: return op_ids[o->index];
    case ETP_SPV_GRAPH_CONSTANT:
        nb->ssa++;
        return arena_num(b->a, "", nb->counter++);
    case ETP_SPV_CONSTANT:
        if (etp_spv_def_opcode(m, o->id) == 4461 /* OpConstantCompositeReplicateEXT */)
            nb->ssa++;
        return arena_num(b->a, "", nb->counter++);
    }
    return NULL;
}

static etp_status build_op(builder *b, const etp_spv_module *m, const etp_vgf_segment *sg,
                           int32_t seg, const etp_spv_graph *gr, uint32_t i, const char **op_ids,
                           numbering *nb)
{
    const etp_spv_op *op = &gr->ops[i];
    uint32_t n = op->operand_count;
    etp_me_vgf_edge *edges = n ? arena_alloc(b->a, n * sizeof *edges) : NULL;
    etp_me_vgf_meta *ins = n ? arena_alloc(b->a, n * sizeof *ins) : NULL;
    etp_me_vgf_kv *attrs = kv_array(b, n + 1);
    if ((n && (!edges || !ins)) || !attrs)
        return nomem(b);
    uint32_t ne = 0, na = 1;
    for (uint32_t k = 0; k < n; k++) {
        const etp_spv_operand *o = &op->operands[k];
        int drop;
        const char *src = operand_source(b, m, sg, o, op_ids, nb, &drop);
        if (!drop) {
            if (!src)
                return nomem(b);
            edges[ne].source = src;
            edges[ne].source_output = 0;
            edges[ne++].target_input = k;
        }
        if (shape_meta(b, &ins[k], k, m, o->type_id, 0))
            return nomem(b);
        if (o->attribute && o->kind == ETP_SPV_CONSTANT) {
            attrs[na].key = o->role;
            if (!(attrs[na++].value = attr_value(b, m, o)))
                return b->err->code ? b->err->code : nomem(b);
        }
    }
    uint64_t id = nb->counter++, ssa = nb->ssa++;
    if (!(op_ids[i] = arena_num(b->a, "", id)))
        return nomem(b);
    if (op->is_extract)
        return ETP_OK; /* takes a number, draws no node */
    attrs[0].key = "loc";
    if (!(attrs[0].value = loc_text(b, id + nb->line_base, 8 + 1 + digits(ssa))))
        return nomem(b);
    etp_me_vgf_node *nd = new_node(b, op_ids[i], op->label, gr->name);
    etp_me_vgf_meta *out = arena_alloc(b->a, sizeof *out);
    if (!nd || !out || shape_meta(b, out, 0, m, op->type_id, 1))
        return nomem(b);
    nd->attrs = attrs;
    nd->attr_count = na;
    nd->edges = edges;
    nd->edge_count = ne;
    nd->inputs = ins;
    nd->input_count = n;
    nd->outputs = out;
    nd->output_count = 1;
    nd->op = op;
    nd->segment = seg;
    return ETP_OK;
}

/* The terminator "GraphOutputs" node of one graph. */
static etp_status build_terminator(builder *b, const etp_spv_module *m, const etp_vgf_segment *sg,
                                   int32_t seg, const etp_spv_graph *gr, const char **op_ids,
                                   numbering *nb)
{
    uint32_t n = gr->output_count;
    etp_me_vgf_edge *edges = n ? arena_alloc(b->a, n * sizeof *edges) : NULL;
    etp_me_vgf_meta *ins = n ? arena_alloc(b->a, n * sizeof *ins) : NULL;
    etp_me_vgf_kv *attrs = kv_array(b, 1);
    if ((n && (!edges || !ins)) || !attrs)
        return nomem(b);
    uint32_t ne = 0;
    for (uint32_t k = 0; k < n; k++) {
        const etp_spv_io *io = &gr->outputs[k];
        /* Classify the output value like an operand. */
        etp_spv_operand o;
        memset(&o, 0, sizeof o);
        o.id = io->id;
        o.type_id = io->type_id;
        const etp_spv_op *src_op = etp_spv_find_op(gr, io->id);
        uint32_t in_index = UINT32_MAX;
        for (uint32_t q = 0; q < gr->input_count; q++)
            if (gr->inputs[q].id == io->id)
                in_index = gr->inputs[q].index;
        if (src_op) {
            o.kind = ETP_SPV_OP_RESULT;
            o.index = (uint32_t)(src_op - gr->ops);
        } else if (in_index != UINT32_MAX) {
            o.kind = ETP_SPV_GRAPH_INPUT;
            o.index = in_index;
        } else
            o.kind = etp_spv_def_opcode(m, io->id) == 4181 ? ETP_SPV_GRAPH_CONSTANT
                                                            : ETP_SPV_CONSTANT;
        int drop;
        const char *src = operand_source(b, m, sg, &o, op_ids, nb, &drop);
        if (!drop) {
            if (!src)
                return nomem(b);
            edges[ne].source = src;
            edges[ne].source_output = 0;
            edges[ne++].target_input = k;
        }
        if (shape_meta(b, &ins[k], k, m, io->type_id, 0))
            return nomem(b);
    }
    uint64_t id = nb->counter++;
    attrs[0].key = "loc";
    attrs[0].value = loc_text(b, id + nb->line_base, 5);
    etp_me_vgf_node *nd = new_node(b, arena_num(b->a, "", id), "GraphOutputs", gr->name);
    if (!nd || !attrs[0].value)
        return nomem(b);
    nd->attrs = attrs;
    nd->attr_count = 1;
    nd->edges = edges;
    nd->edge_count = ne;
    nd->inputs = ins;
    nd->input_count = n;
    nd->segment = seg;
    return ETP_OK;
}

static char *shape_text(builder *b, const etp_vgf_resource *r)
{
    text *t = &b->t;
    t->len = 0;
    put(t, "[");
    for (uint32_t k = 0; k < r->rank; k++) {
        if (k)
            put(t, ", ");
        put_int(t, r->shape[k]);
    }
    put(t, "]");
    return t->failed ? NULL : arena_str(b->a, t->p);
}

static etp_status build_segment(builder *b, uint32_t si, const char **last_node)
{
    const etp_vgf *v = b->v;
    const etp_vgf_segment *sg = &v->segments[si];
    const etp_vgf_module *mod = &v->modules[sg->module_index];
    const etp_spv_module *m = mod->spv;
    char buf[24];
    *last_node = NULL;
    etp_status s;
    if (m && sg->type != ETP_VGF_COMPUTE) {
        numbering nb = {0, 0, 2 + (uint64_t)m->variable_count + m->entry_point_count + 1};
        for (uint32_t gi = 0; gi < m->graph_count; gi++) {
            const etp_spv_graph *gr = &m->graphs[gi];
            const char **op_ids = gr->op_count ? calloc(gr->op_count, sizeof *op_ids) : NULL;
            if (gr->op_count && !op_ids)
                return nomem(b);
            for (uint32_t i = 0; i < gr->op_count; i++)
                if ((s = build_op(b, m, sg, (int32_t)si, gr, i, op_ids, &nb))) {
                    free(op_ids);
                    return s;
                }
            s = build_terminator(b, m, sg, (int32_t)si, gr, op_ids, &nb);
            free(op_ids);
            if (s)
                return s;
            *last_node = b->nodes.v[b->nodes.n - 1].id;
            nb.line_base += 2; /* the graph's closing line, the next one's header */
        }
    }
    char mt[24];
    const char *module_type = arena_str(b->a, etp_vgf_module_type_name(mod->type, mt));
    for (uint32_t k = 0; k < sg->input_count; k++) {
        const etp_vgf_resource *r = &v->resources[sg->inputs[k].mrt_index];
        etp_me_vgf_node *nd =
            new_node(b, arena_num(b->a, "mrt_", sg->inputs[k].mrt_index),
                     arena_str(b->a, etp_vgf_descriptor_type_name(r->descriptor_type, buf)), "");
        etp_me_vgf_kv *attrs = kv_array(b, 3);
        etp_me_vgf_kv *oattr = kv_array(b, 1);
        etp_me_vgf_meta *out = arena_alloc(b->a, sizeof *out);
        if (!nd || !attrs || !oattr || !out || !module_type)
            return nomem(b);
        attrs[0].key = "Shape";
        attrs[0].value = shape_text(b, r);
        attrs[1].key = "Category";
        attrs[1].value = arena_str(b->a, etp_vgf_category_name(r->category, buf));
        attrs[2].key = "Format";
        attrs[2].value = arena_str(b->a, etp_vgf_format_name(r->vk_format, buf));
        if (!attrs[0].value || !attrs[1].value || !attrs[2].value)
            return nomem(b);
        nd->attrs = attrs;
        nd->attr_count = 3;
        if (r->category == ETP_VGF_INPUT) {
            if (!(nd->edges = arena_alloc(b->a, sizeof *nd->edges)))
                return nomem(b);
            nd->edges[0].source = "GraphInputs";
            nd->edge_count = 1;
        }
        oattr[0].key = "type";
        oattr[0].value = module_type;
        out->attrs = oattr;
        out->attr_count = 1;
        nd->outputs = out;
        nd->output_count = 1;
        nd->segment = (int32_t)si;
    }
    for (uint32_t k = 0; k < sg->output_count; k++) {
        const etp_vgf_resource *r = &v->resources[sg->outputs[k].mrt_index];
        etp_me_vgf_node *nd =
            new_node(b, arena_num(b->a, "mrt_", sg->outputs[k].mrt_index),
                     arena_str(b->a, etp_vgf_descriptor_type_name(r->descriptor_type, buf)), "");
        if (!nd)
            return nomem(b);
        nd->segment = (int32_t)si;
        if (*last_node) {
            if (!(nd->edges = arena_alloc(b->a, sizeof *nd->edges)))
                return nomem(b);
            nd->edges[0].source = *last_node;
            nd->edge_count = 1;
        }
    }
    /* The adapter adds the final node once per segment (a duplicate when
     * there are several; kept for node-for-node equality). */
    etp_me_vgf_node *go = new_node(b, "GraphOutputs", "Graph Outputs", "");
    if (!go)
        return nomem(b);
    if (v->output_count && !(go->edges = arena_alloc(b->a, v->output_count * sizeof *go->edges)))
        return nomem(b);
    for (uint32_t k = 0; k < v->output_count; k++)
        if (!(go->edges[k].source = arena_num(b->a, "mrt_", v->outputs[k].mrt_index)))
            return nomem(b);
    go->edge_count = v->output_count;
    return ETP_OK;
}

etp_status etp_me_vgf_build(const etp_vgf *v, etp_me_vgf_graph **out, etp_error *err)
{
    *out = NULL;
    etp_me_vgf_graph *g = calloc(1, sizeof *g);
    etp_me_vgf_arena *a = calloc(1, sizeof *a);
    if (!g || !a) {
        free(g);
        free(a);
        return etp_error_set(err, ETP_E_NOMEM, v->file, ETP_NO_OFFSET, "out of memory");
    }
    g->arena = a;
    g->vgf = v;
    builder b;
    memset(&b, 0, sizeof b);
    b.g = g;
    b.a = a;
    b.v = v;
    b.err = err;
    b.budget = ATTR_ELEMENT_BUDGET;
    etp_error_clear(err);
    etp_status s = new_node(&b, "GraphInputs", "Graph Inputs", "") ? ETP_OK : nomem(&b);
    const char *last;
    for (uint32_t si = 0; !s && si < v->segment_count; si++)
        s = build_segment(&b, si, &last);
    free(b.t.p);
    g->nodes = b.nodes.v;
    g->node_count = (uint32_t)b.nodes.n;
    if (s) {
        if (err && !err->file[0]) { /* name the VGF in a value-level error */
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err->message[0] ? err->message : "bad VGF graph");
            etp_error_set(err, s, v->file, v->file_offset, "%s", msg);
        }
        etp_me_vgf_free(g);
        return s;
    }
    *out = g;
    return ETP_OK;
}

etp_status etp_me_vgf_build_owned(etp_vgf *v, etp_me_vgf_graph **out, etp_error *err)
{
    etp_status s = etp_me_vgf_build(v, out, err);
    if (s) {
        etp_vgf_free(v);
        return s;
    }
    (*out)->owned = v;
    return ETP_OK;
}

void etp_me_vgf_free(etp_me_vgf_graph *g)
{
    if (!g)
        return;
    for (chunk *c = g->arena ? g->arena->head : NULL, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(g->arena);
    free(g->nodes);
    etp_vgf_free(g->owned);
    free(g);
}

etp_status etp_me_vgf_attach(etp_me_collection *c, const etp_program *p, etp_error *err)
{
    for (uint32_t i = 0; i < c->delegate_graph_count; i++) {
        etp_me_graph *dg = &c->delegate_graphs[i];
        if (!etp_vgf_is_delegate(dg->delegate))
            continue;
        etp_vgf *v;
        etp_status s = etp_vgf_from_delegate(p, dg->delegate, &v, err);
        if (s || (s = etp_me_vgf_build_owned(v, &dg->vgf, err)))
            return s;
    }
    return ETP_OK;
}

/* ---- writing ------------------------------------------------------------- */

static void write_kvs(etp_jw *w, const etp_me_vgf_kv *kv, uint32_t n)
{
    etp_jw_arr_begin(w);
    for (uint32_t k = 0; k < n; k++) {
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "key", kv[k].key);
        etp_jw_kstr(w, "value", kv[k].value);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}

static void write_metas(etp_jw *w, const etp_me_vgf_meta *m, uint32_t n)
{
    char id[16];
    etp_jw_arr_begin(w);
    for (uint32_t k = 0; k < n; k++) {
        etp_format_int(id, m[k].id);
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "id", id);
        etp_jw_key(w, "attrs");
        write_kvs(w, m[k].attrs, m[k].attr_count);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
}

void etp_me_vgf_write_graph(etp_jw *w, const char *graph_id, const etp_me_vgf_graph *g)
{
    char port[16];
    etp_jw_obj_begin(w);
    etp_jw_kstr(w, "id", graph_id);
    etp_jw_key(w, "nodes");
    etp_jw_arr_begin(w);
    for (uint32_t i = 0; i < g->node_count; i++) {
        const etp_me_vgf_node *nd = &g->nodes[i];
        etp_jw_obj_begin(w);
        etp_jw_kstr(w, "id", nd->id);
        etp_jw_kstr(w, "label", nd->label);
        etp_jw_kstr(w, "namespace", nd->ns);
        etp_jw_key(w, "subgraphIds");
        etp_jw_arr_begin(w);
        etp_jw_arr_end(w);
        etp_jw_key(w, "attrs");
        write_kvs(w, nd->attrs, nd->attr_count);
        etp_jw_key(w, "incomingEdges");
        etp_jw_arr_begin(w);
        for (uint32_t k = 0; k < nd->edge_count; k++) {
            etp_jw_obj_begin(w);
            etp_jw_kstr(w, "sourceNodeId", nd->edges[k].source);
            etp_format_int(port, nd->edges[k].source_output);
            etp_jw_kstr(w, "sourceNodeOutputId", port);
            etp_format_int(port, nd->edges[k].target_input);
            etp_jw_kstr(w, "targetNodeInputId", port);
            etp_jw_obj_end(w);
        }
        etp_jw_arr_end(w);
        etp_jw_key(w, "outputsMetadata");
        write_metas(w, nd->outputs, nd->output_count);
        etp_jw_key(w, "inputsMetadata");
        write_metas(w, nd->inputs, nd->input_count);
        etp_jw_knull(w, "style");
        etp_jw_knull(w, "config");
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);
    etp_jw_knull(w, "groupNodeAttributes");
    etp_jw_knull(w, "groupNodeConfigs");
    etp_jw_knull(w, "nodeLabelsToHide");
    etp_jw_knull(w, "tasksData");
    etp_jw_knull(w, "layoutConfigs");
    etp_jw_obj_end(w);
}

etp_status etp_me_vgf_write(const etp_me_vgf_graph *g, const char *label, FILE *fp, int pretty,
                            etp_error *err)
{
    etp_jw w;
    etp_jw_init_file(&w, fp, pretty);
    etp_jw_obj_begin(&w);
    etp_jw_kstr(&w, "label", label);
    etp_jw_key(&w, "graphs");
    etp_jw_arr_begin(&w);
    etp_me_vgf_write_graph(&w, "Main", g);
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    return etp_jw_finish_status(&w, "the Model Explorer graph", err);
}
