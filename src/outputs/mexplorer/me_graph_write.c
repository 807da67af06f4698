/*
 * me_graph_write.c - serialise a Model Explorer graph collection.
 *
 * The key order, the explicit nulls and every attribute string follow the
 * PTE adapter's output (Python dataclasses through asdict, values made with
 * str() of flatbuffers object-API fields): booleans "True"/"False", absent
 * vectors and tables "None", present tables by class name
 * ("AllocationDetailsT"), lists "[a, b]", doubles as Python's repr.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etprof/mexplorer.h"
#include "util/jsonw.h"
#include "util/str.h"
#include "outputs/mexplorer/me_vgf.h"
#include "outputs/mexplorer/me_write.h"
#include "outputs/mexplorer/me_pystr.h"

/* A growable string for attribute values. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    int failed;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->failed = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

static void sb_int(sbuf *b, int64_t v)
{
    char tmp[24];
    sb_put(b, tmp, (size_t)etp_format_int(tmp, v));
}

static const char *sb_str(sbuf *b) { return b->failed || !b->p ? "" : b->p; }

typedef enum { EL_I32, EL_U8, EL_I64, EL_F64, EL_BOOL } elem_kind;

/* "[a, b, c]" of @p count elements at @p items, or "None" when the vector is absent. */
static void sb_list(sbuf *b, const void *items, uint32_t count, elem_kind k)
{
    if (!items) {
        sb_puts(b, "None");
        return;
    }
    const uint8_t *p = items;
    sb_puts(b, "[");
    for (uint32_t i = 0; i < count; i++) {
        if (i)
            sb_puts(b, ", ");
        switch (k) {
        case EL_I32: {
            int32_t v;
            memcpy(&v, p + 4 * (size_t)i, 4);
            sb_int(b, v);
            break;
        }
        case EL_U8:
            sb_int(b, p[i]);
            break;
        case EL_BOOL:
            sb_puts(b, p[i] ? "True" : "False");
            break;
        case EL_I64: {
            int64_t v;
            memcpy(&v, p + 8 * (size_t)i, 8);
            sb_int(b, v);
            break;
        }
        case EL_F64: {
            double v;
            char d[40];
            memcpy(&v, p + 8 * (size_t)i, 8);
            etp_py_repr_double(d, sizeof d, v);
            sb_puts(b, d);
            break;
        }
        }
    }
    sb_puts(b, "]");
}

static void kv(etp_jw *w, const char *key, const char *value)
{
    ETP_JW_OBJ2S_LIT(w, "key", key, "value", value);
}

static void kv_int(etp_jw *w, const char *key, int64_t v)
{
    char b[32];
    etp_format_int(b, v);
    kv(w, key, b);
}

/* kv with a value built in @p b (reset first by the caller's macros). */
static void kv_sb(etp_jw *w, const char *key, sbuf *b)
{
    kv(w, key, sb_str(b));
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

/* The concrete value's fields in schema order (the adapter lists the object
 * API fields of the union value, then valType). */
static void evalue_fields(etp_jw *w, const etp_evalue *v, sbuf *b)
{
    char d[40];
    switch (v->kind) {
    case ETP_EV_INT:
        kv_int(w, "intVal", v->i);
        break;
    case ETP_EV_BOOL:
        kv(w, "boolVal", v->i ? "True" : "False");
        break;
    case ETP_EV_DOUBLE:
        etp_py_repr_double(d, sizeof d, v->d);
        kv(w, "doubleVal", d);
        break;
    case ETP_EV_STRING:
        if (v->s) {
            char *s = etp_py_decode_utf8(v->s, strlen(v->s));
            kv(w, "stringVal", s ? s : "");
            if (!s)
                w->failed = 1;
            free(s);
        } else
            kv(w, "stringVal", "None");
        break;
    case ETP_EV_TENSOR:
        kv_int(w, "scalarType", v->scalar_type);
        kv_int(w, "storageOffset", v->storage_offset);
        sb_list(b, v->items, v->count, EL_I32);
        kv_sb(w, "sizes", b);
        sb_list(b, v->dim_order, v->dim_order_len, EL_U8);
        kv_sb(w, "dimOrder", b);
        kv(w, "requiresGrad", v->requires_grad ? "True" : "False");
        kv_int(w, "dataBufferIdx", v->data_buffer_idx);
        kv(w, "allocationInfo", v->has_allocation ? "AllocationDetailsT" : "None");
        kv_int(w, "layout", v->layout);
        kv_int(w, "shapeDynamism", v->shape_dynamism);
        kv(w, "extraTensorInfo", v->has_extra ? "ExtraTensorInfoT" : "None");
        break;
    case ETP_EV_INT_LIST:
        sb_list(b, v->items, v->count, EL_I64);
        kv_sb(w, "items", b);
        break;
    case ETP_EV_DOUBLE_LIST:
        sb_list(b, v->items, v->count, EL_F64);
        kv_sb(w, "items", b);
        break;
    case ETP_EV_BOOL_LIST:
        sb_list(b, v->items, v->count, EL_BOOL);
        kv_sb(w, "items", b);
        break;
    case ETP_EV_TENSOR_LIST:
    case ETP_EV_OPT_TENSOR_LIST:
        sb_list(b, v->items, v->count, EL_I32);
        kv_sb(w, "items", b);
        break;
    default: /* Null: a table without fields */
        break;
    }
}

/* A metadata item {id, attrs} describing EValue @p idx. An index outside
 * the value table gets only its index (the adapter has nothing to print). */
static void metadata_item_text(etp_jw *w, const etp_plan *pl, int32_t idx, sbuf *b)
{
    char id[16];
    etp_format_int(id, idx);
    etp_jw_obj_begin(w);
    ETP_JW_KSTR_LIT(w, "id", id);
    ETP_JW_KEY_LIT(w, "attrs");
    etp_jw_arr_begin(w);
    kv(w, "EValue Index", id);
    if (pl && idx >= 0 && (uint32_t)idx < pl->value_count) {
        const etp_evalue *v = &pl->values[idx];
        if (v->has_val && v->kind > ETP_EV_NONE && v->kind <= ETP_EV_OPT_TENSOR_LIST)
            evalue_fields(w, v, b);
        kv_int(w, "valType", (int)v->kind);
    }
    etp_jw_arr_end(w);
    etp_jw_obj_end(w);
}

/* Compact text of the metadata items of EValues described more than once,
 * made once: a tensor produced in the graph is described as an output of
 * its producer and again as an input of each consumer. Most items of a
 * program (constants, weights) are described once and are written straight
 * out. The cached texts sit back to back in one memory writer (top-level
 * values take no separator); an item is never empty, so a length of 0
 * means "not made yet". */
typedef struct md_cache {
    etp_jw texts;
    size_t *off, *len;
    uint8_t *uses; /* per EValue: items that describe it, counted up to 2 */
    uint32_t count;
} md_cache;

static void md_cache_init(md_cache *c, const etp_jw *w, const etp_me_graph *g)
{
    const etp_plan *pl = g->plan;
    memset(c, 0, sizeof *c);
    if (w->pretty || !pl || !pl->value_count)
        return; /* indentation would depend on where the item sits */
    c->off = malloc(pl->value_count * sizeof *c->off);
    c->len = calloc(pl->value_count, sizeof *c->len);
    c->uses = calloc(pl->value_count, 1);
    if (!c->off || !c->len || !c->uses) {
        free(c->off);
        free(c->len);
        free(c->uses);
        memset(c, 0, sizeof *c); /* uncached: slower, same bytes */
        return;
    }
    for (uint32_t k = 0; k < g->node_count; k++) {
        const etp_me_node *nd = &g->nodes[k];
        for (int side = 0; side < 2; side++) {
            const int32_t *idx = side ? nd->inputs : nd->outputs;
            uint32_t n = side ? nd->input_count : nd->output_count;
            for (uint32_t i = 0; i < n; i++)
                if (idx[i] >= 0 && (uint32_t)idx[i] < pl->value_count && c->uses[idx[i]] < 2)
                    c->uses[idx[i]]++;
        }
    }
    etp_jw_init_mem(&c->texts, 0);
    c->count = pl->value_count;
}

static void md_cache_free(md_cache *c)
{
    if (c->count)
        etp_jw_discard(&c->texts);
    free(c->off);
    free(c->len);
    free(c->uses);
}

static void metadata_item(etp_jw *w, const etp_plan *pl, int32_t idx, sbuf *b, md_cache *c)
{
    if (idx < 0 || (uint32_t)idx >= c->count || c->uses[idx] < 2) {
        metadata_item_text(w, pl, idx, b);
        return;
    }
    if (!c->len[idx]) {
        size_t at = c->texts.len;
        metadata_item_text(&c->texts, pl, idx, b);
        if (c->texts.failed) {
            if (!w->failed) { /* the item writer's first failure, as the writer's own */
                w->failed = 1;
                w->cause = c->texts.cause;
                w->err_no = c->texts.err_no;
            }
            return;
        }
        c->off[idx] = at;
        c->len[idx] = c->texts.len - at;
    }
    etp_jw_raw(w, c->texts.buf + c->off[idx], c->len[idx]);
}

static void instruction_attrs(etp_jw *w, const etp_instruction *in, sbuf *b)
{
    char tmp[16];
    const char *type = etp_instr_kind_name(in->kind);
    if ((int)in->kind < 0 || (int)in->kind > ETP_INSTR_FREE) {
        snprintf(tmp, sizeof tmp, "%d", (int)in->kind);
        type = tmp;
    }
    kv(w, "Instruction Type", type);
    if (in->has_args) {
        switch (in->kind) {
        case ETP_INSTR_KERNEL:
        case ETP_INSTR_DELEGATE:
            kv_int(w, in->kind == ETP_INSTR_KERNEL ? "opIndex" : "delegateIndex", in->a);
            sb_list(b, in->args, in->arg_count, EL_I32);
            kv_sb(w, "args", b);
            break;
        case ETP_INSTR_MOVE:
            kv_int(w, "moveFrom", in->a);
            kv_int(w, "moveTo", in->b);
            break;
        case ETP_INSTR_JUMP_FALSE:
            kv_int(w, "condValueIndex", in->a);
            kv_int(w, "destinationInstruction", in->b);
            break;
        case ETP_INSTR_FREE:
            kv_int(w, "valueIndex", in->a);
            break;
        default:
            break;
        }
    }
    kv_int(w, "instrArgsType", (int)in->kind);
}

static void write_node(etp_jw *w, const etp_me_graph *g, const etp_me_node *nd, sbuf *b,
                       md_cache *mc)
{
    char port[16];
    etp_jw_obj_begin(w);
    ETP_JW_KSTR_LIT(w, "id", nd->id);
    ETP_JW_KSTR_LIT(w, "label", nd->label);
    ETP_JW_KSTR_LIT(w, "namespace", nd->ns);

    ETP_JW_KEY_LIT(w, "subgraphIds");
    etp_jw_arr_begin(w);
    if (nd->has_subgraph)
        etp_jw_str(w, nd->id);
    etp_jw_arr_end(w);

    ETP_JW_KEY_LIT(w, "attrs");
    etp_jw_arr_begin(w);
    if (nd->kind == ETP_ME_NODE_INSTRUCTION)
        instruction_attrs(w, nd->instr, b);
    else if (nd->kind == ETP_ME_NODE_EMPTY_CHAIN) {
        kv_int(w, "Chain Index", nd->chain);
        kv(w, "Instructions", "0");
    }
    etp_jw_arr_end(w);

    ETP_JW_KEY_LIT(w, "incomingEdges");
    etp_jw_arr_begin(w);
    for (uint32_t k = 0; k < nd->edge_count; k++) {
        etp_format_int(port, nd->edges[k].port);
        etp_jw_obj_begin(w);
        ETP_JW_KSTR_LIT(w, "sourceNodeId", g->nodes[nd->edges[k].source].id);
        ETP_JW_KSTR_LIT(w, "sourceNodeOutputId", port);
        ETP_JW_KSTR_LIT(w, "targetNodeInputId", port);
        etp_jw_obj_end(w);
    }
    etp_jw_arr_end(w);

    ETP_JW_KEY_LIT(w, "outputsMetadata");
    etp_jw_arr_begin(w);
    for (uint32_t k = 0; k < nd->output_count; k++)
        metadata_item(w, g->plan, nd->outputs[k], b, mc);
    etp_jw_arr_end(w);

    ETP_JW_KEY_LIT(w, "inputsMetadata");
    etp_jw_arr_begin(w);
    for (uint32_t k = 0; k < nd->input_count; k++)
        metadata_item(w, g->plan, nd->inputs[k], b, mc);
    etp_jw_arr_end(w);

    ETP_JW_KNULL_LIT(w, "style");
    ETP_JW_KNULL_LIT(w, "config");
    etp_jw_obj_end(w);
}

/* What a placeholder graph says about the delegate it stands for. */
static void delegate_summary(etp_jw *w, const etp_me_graph *g)
{
    const etp_delegate *d = g->delegate;
    char buf[32];
    ETP_JW_KEY_LIT(w, "groupNodeAttributes");
    etp_jw_obj_begin(w);
    ETP_JW_KEY_LIT(w, "");
    etp_jw_obj_begin(w);
    char *backend = etp_py_decode_utf8(d->id ? d->id : "", d->id ? strlen(d->id) : 0);
    ETP_JW_KSTR_LIT(w, "backend", backend ? backend : "");
    free(backend);
    snprintf(buf, sizeof buf, "%" PRId32, g->delegate_index);
    ETP_JW_KSTR_LIT(w, "delegateIndex", buf);
    ETP_JW_KSTR_LIT(w, "processedLocation",
                d->location == 0 ? "INLINE" : d->location == 1 ? "SEGMENT" : "unknown");
    if (d->size_known)
        snprintf(buf, sizeof buf, "%" PRIu64, d->processed_size);
    else
        snprintf(buf, sizeof buf, "unknown");
    ETP_JW_KSTR_LIT(w, "processedBytes", buf);
    ETP_JW_KSTR_LIT(w, "note", "delegate payload not decoded by etprof (Arm's PTE adapter draws the "
                           "VGF or TOSA graph here)");
    etp_jw_obj_end(w);
    etp_jw_obj_end(w);
}

static void write_graph(etp_jw *w, const etp_me_graph *g, sbuf *b)
{
    if (g->vgf) { /* a VGF delegate: the adapter's TOSA graph */
        etp_me_vgf_write_graph(w, g->id, g->vgf);
        return;
    }
    etp_jw_obj_begin(w);
    ETP_JW_KSTR_LIT(w, "id", g->id);
    ETP_JW_KEY_LIT(w, "nodes");
    etp_jw_arr_begin(w);
    md_cache mc;
    md_cache_init(&mc, w, g);
    for (uint32_t k = 0; k < g->node_count; k++)
        write_node(w, g, &g->nodes[k], b, &mc);
    md_cache_free(&mc);
    etp_jw_arr_end(w);
    if (g->delegate)
        delegate_summary(w, g);
    else
        ETP_JW_KNULL_LIT(w, "groupNodeAttributes");
    ETP_JW_KNULL_LIT(w, "groupNodeConfigs");
    ETP_JW_KNULL_LIT(w, "nodeLabelsToHide");
    ETP_JW_KNULL_LIT(w, "tasksData");
    ETP_JW_KNULL_LIT(w, "layoutConfigs");
    etp_jw_obj_end(w);
}

etp_status etp_me_write_extended(const etp_me_collection *c, FILE *fp, int flags,
                                 void (*extra)(etp_jw *w, void *ctx), void *ctx, etp_error *err)
{
    etp_jw w;
    sbuf b = {0};
    etp_jw_init_file(&w, fp, (flags & ETP_ME_PRETTY) != 0);
    etp_jw_obj_begin(&w);
    ETP_JW_KSTR_LIT(&w, "label", c->label);
    ETP_JW_KEY_LIT(&w, "graphs");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < c->graph_count; i++)
        write_graph(&w, &c->graphs[i], &b);
    if (extra)
        extra(&w, ctx);
    if (!(flags & ETP_ME_NO_DELEGATE_GRAPHS))
        for (uint32_t i = 0; i < c->delegate_graph_count; i++)
            write_graph(&w, &c->delegate_graphs[i], &b);
    etp_jw_arr_end(&w);
    etp_jw_obj_end(&w);
    int failed = b.failed;
    free(b.p);
    if (etp_jw_finish(&w) || failed)
        return etp_error_set(err, ETP_E_IO, NULL, ETP_NO_OFFSET,
                             "could not write the Model Explorer graph");
    return ETP_OK;
}

etp_status etp_me_write(const etp_me_collection *c, FILE *fp, int flags, etp_error *err)
{
    return etp_me_write_extended(c, fp, flags, NULL, NULL, err);
}
