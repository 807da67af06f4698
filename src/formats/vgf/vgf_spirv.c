/*
 * vgf_spirv.c - the data graphs of a SPIR-V module: one pass over the words
 * records every id's defining instruction (checking word counts, the id
 * bound and that types and constants only refer to earlier ids, so they
 * cannot form cycles), a second pass walks each OpGraphARM block and lists
 * its TOSA operations with their classified operands.
 */
#include "formats/vgf/vgf_spirv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

#define SPV_MAGIC 0x07230203u
/* Ids are dense in practice; a bound beyond this is refused (memory cap). */
#define MAX_BOUND (1u << 22)
#define MAX_TYPE_DEPTH 16

struct etp_spv_internal {
    const uint32_t *w;
    uint32_t n;
    uint32_t *def;   /* per id: word position of its defining instruction + 1; 0 = none */
    uint32_t *name;  /* per id: word position of its OpName string + 1; 0 = none */
};

typedef struct dctx {
    etp_spv_module *m;
    const uint32_t *w;
    uint32_t n;
    const char *file;
    int64_t base;
    etp_error *err;
} dctx;

#define AT(c, pos) ((c)->base + 4 * (int64_t)(pos))

static etp_status nomem(const dctx *c)
{
    return etp_error_set(c->err, ETP_E_NOMEM, c->file, ETP_NO_OFFSET,
                         "out of memory decoding SPIR-V");
}

static uint16_t op_of(uint32_t word) { return (uint16_t)(word & 0xFFFFu); }
static uint32_t wc_of(uint32_t word) { return word >> 16; }

/* Where the result id of an instruction sits (1 or 2), 0 if it has none
 * this decoder tracks. */
static unsigned result_slot(uint32_t op)
{
    if ((op >= SPV_OP_TYPE_VOID && op <= 39) || op == SPV_OP_EXT_INST_IMPORT ||
        op == SPV_OP_TYPE_TENSOR_ARM || op == SPV_OP_TYPE_GRAPH_ARM || op == 7 /* OpString */)
        return 1;
    switch (op) {
    case SPV_OP_EXT_INST:
    case SPV_OP_CONSTANT_TRUE:
    case SPV_OP_CONSTANT_FALSE:
    case SPV_OP_CONSTANT:
    case SPV_OP_CONSTANT_COMPOSITE:
    case SPV_OP_CONSTANT_NULL:
    case SPV_OP_SPEC_TRUE:
    case SPV_OP_SPEC_FALSE:
    case SPV_OP_SPEC_CONSTANT:
    case SPV_OP_SPEC_COMPOSITE:
    case SPV_OP_VARIABLE:
    case SPV_OP_COMPOSITE_EXTRACT:
    case SPV_OP_GRAPH_CONSTANT_ARM:
    case SPV_OP_GRAPH_ARM:
    case SPV_OP_GRAPH_INPUT_ARM:
    case SPV_OP_CONSTANT_COMPOSITE_REPLICATE_EXT:
        return 2;
    default:
        return 0;
    }
}

static int is_constant_op(uint32_t op)
{
    return op == SPV_OP_CONSTANT_TRUE || op == SPV_OP_CONSTANT_FALSE || op == SPV_OP_CONSTANT ||
           op == SPV_OP_CONSTANT_COMPOSITE || op == SPV_OP_CONSTANT_NULL ||
           op == SPV_OP_SPEC_TRUE || op == SPV_OP_SPEC_FALSE || op == SPV_OP_SPEC_CONSTANT ||
           op == SPV_OP_SPEC_COMPOSITE || op == SPV_OP_CONSTANT_COMPOSITE_REPLICATE_EXT;
}

static int is_type_op(uint32_t op)
{
    return (op >= SPV_OP_TYPE_VOID && op <= 39) || op == SPV_OP_TYPE_TENSOR_ARM ||
           op == SPV_OP_TYPE_GRAPH_ARM;
}

/* A literal string in words [from, end): its bytes must hold a NUL. */
static const char *literal_string(const uint32_t *w, uint32_t from, uint32_t end)
{
    if (from >= end)
        return NULL;
    const char *s = (const char *)(w + from);
    return memchr(s, 0, 4 * (size_t)(end - from)) ? s : NULL;
}

/* id @p id at word @p pos must already be defined (an earlier instruction). */
static etp_status need_defined(dctx *c, uint32_t id, uint32_t pos, const char *what)
{
    if (id == 0 || id >= c->m->bound)
        return etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos),
                             "SPIR-V %s refers to id %u, outside the bound %u", what, id,
                             c->m->bound);
    if (!c->m->in->def[id])
        return etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos),
                             "SPIR-V %s refers to id %u before (or without) its definition", what,
                             id);
    return ETP_OK;
}

/* The ids a type or constant instruction refers to, all of which must be
 * defined earlier: words [a0, a1) and [b0, b1). */
static etp_status check_refs(dctx *c, uint32_t op, uint32_t pos, uint32_t wc)
{
    uint32_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    switch (op) {
    case SPV_OP_TYPE_VECTOR: a0 = 2; a1 = 3; break;
    case SPV_OP_TYPE_ARRAY: a0 = 2; a1 = 4; break;
    case SPV_OP_TYPE_STRUCT: a0 = 2; a1 = wc; break;
    case SPV_OP_TYPE_POINTER: a0 = 3; a1 = 4; break;
    case SPV_OP_TYPE_TENSOR_ARM: a0 = 2; a1 = 5; break;
    case SPV_OP_TYPE_GRAPH_ARM: a0 = 3; a1 = wc; break;
    case SPV_OP_CONSTANT_COMPOSITE:
    case SPV_OP_SPEC_COMPOSITE: a0 = 1; a1 = 2; b0 = 3; b1 = wc; break;
    case SPV_OP_CONSTANT_COMPOSITE_REPLICATE_EXT: a0 = 1; a1 = 2; b0 = 3; b1 = 4; break;
    default:
        if (is_constant_op(op) || op == SPV_OP_GRAPH_CONSTANT_ARM || op == SPV_OP_VARIABLE) {
            a0 = 1;
            a1 = 2;
        }
        break;
    }
    for (uint32_t k = a0; k < a1 && k < wc; k++) {
        etp_status s = need_defined(c, c->w[pos + k], pos + k, "type or constant");
        if (s)
            return s;
    }
    for (uint32_t k = b0; k < b1 && k < wc; k++) {
        etp_status s = need_defined(c, c->w[pos + k], pos + k, "constant");
        if (s)
            return s;
    }
    return ETP_OK;
}

typedef struct entry {
    uint32_t graph;
    const char *name;
} entry;

typedef struct span {
    uint32_t start, end; /* OpGraphARM and OpGraphEndARM word positions */
} span;

typedef VEC(entry) entry_vec;
typedef VEC(span) span_vec;

/* Pass 1: split into instructions and record definitions. */
static etp_status scan(dctx *c, entry_vec *entries, span_vec *spans)
{
    etp_spv_module *m = c->m;
    etp_spv_internal *in = m->in;
    uint32_t pos = 5, open = 0;
    int in_graph = 0;
    while (pos < c->n) {
        uint32_t word = c->w[pos], op = op_of(word), wc = wc_of(word);
        if (wc == 0)
            return etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos),
                                 "SPIR-V instruction (opcode %u) has a word count of 0", op);
        if (wc > c->n - pos)
            return etp_error_set(c->err, ETP_E_TRUNCATED, c->file, AT(c, pos),
                                 "SPIR-V instruction (opcode %u, %u words) runs past the end of "
                                 "the module (%u words)", op, wc, c->n);
        m->instruction_count++;
        unsigned slot = result_slot(op);
        if (slot) {
            if (wc <= slot)
                return etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos),
                                     "SPIR-V instruction (opcode %u) of %u words has no room for "
                                     "its result id", op, wc);
            uint32_t id = c->w[pos + slot];
            if (id == 0 || id >= m->bound)
                return etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos + slot),
                                     "SPIR-V result id %u is outside the bound %u", id, m->bound);
            if (in->def[id])
                return etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos + slot),
                                     "SPIR-V id %u is defined twice", id);
            if (is_type_op(op) || is_constant_op(op) || op == SPV_OP_GRAPH_CONSTANT_ARM ||
                op == SPV_OP_VARIABLE) {
                etp_status s = check_refs(c, op, pos, wc);
                if (s)
                    return s;
            }
            in->def[id] = pos + 1;
        }
        switch (op) {
        case SPV_OP_NAME:
            if (wc >= 3 && c->w[pos + 1] < m->bound && literal_string(c->w, pos + 2, pos + wc))
                in->name[c->w[pos + 1]] = pos + 2 + 1;
            break;
        case SPV_OP_EXT_INST_IMPORT: {
            const char *s = literal_string(c->w, pos + 2, pos + wc);
            if (s && !strncmp(s, "TOSA.", 5) && !m->tosa_set_id) {
                m->tosa_set = s;
                m->tosa_set_id = c->w[pos + 1];
            }
            break;
        }
        case SPV_OP_VARIABLE: m->variable_count++; break;
        case SPV_OP_GRAPH_CONSTANT_ARM:
            if (wc < 4)
                return etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos),
                                     "OpGraphConstantARM of %u words has no GraphConstantID", wc);
            m->graph_constant_count++;
            break;
        case SPV_OP_GRAPH_ENTRY_POINT_ARM: {
            m->entry_point_count++;
            if (wc < 2)
                break;
            const char *s = literal_string(c->w, pos + 2, pos + wc);
            entry e = {c->w[pos + 1], s ? s : ""};
            if (VEC_PUSH(*entries, e))
                return nomem(c);
            break;
        }
        case SPV_OP_GRAPH_ARM:
            if (in_graph)
                return etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos),
                                     "OpGraphARM inside the graph that starts at word %u", open);
            in_graph = 1;
            open = pos;
            break;
        case SPV_OP_GRAPH_END_ARM: {
            if (!in_graph)
                return etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos),
                                     "OpGraphEndARM without an OpGraphARM");
            in_graph = 0;
            span sp = {open, pos};
            if (VEC_PUSH(*spans, sp))
                return nomem(c);
            break;
        }
        default:
            if (is_constant_op(op))
                m->constant_count++;
            break;
        }
        pos += wc;
    }
    if (in_graph)
        return etp_error_set(c->err, ETP_E_TRUNCATED, c->file, AT(c, open),
                             "the graph that starts here has no OpGraphEndARM");
    return ETP_OK;
}

uint32_t etp_spv_def_opcode(const etp_spv_module *m, uint32_t id)
{
    if (!m || id == 0 || id >= m->bound || !m->in->def[id])
        return 0;
    return op_of(m->in->w[m->in->def[id] - 1]);
}

/* Words of the instruction defining @p id, or NULL; *wc its word count. */
static const uint32_t *def_words(const etp_spv_module *m, uint32_t id, uint32_t *wc)
{
    if (id == 0 || id >= m->bound || !m->in->def[id])
        return NULL;
    const uint32_t *w = m->in->w + m->in->def[id] - 1;
    *wc = wc_of(w[0]);
    return w;
}

const char *etp_spv_name_of(const etp_spv_module *m, uint32_t id)
{
    if (!m || id == 0 || id >= m->bound || !m->in->name[id])
        return NULL;
    return (const char *)(m->in->w + m->in->name[id] - 1);
}

/* The integer value of the scalar OpConstant @p id (sign-extended), or -1 on failure. */
static int scalar_int(const etp_spv_module *m, uint32_t id, int64_t *v)
{
    uint32_t wc, twc;
    const uint32_t *w = def_words(m, id, &wc);
    if (!w || op_of(w[0]) != SPV_OP_CONSTANT || wc < 4)
        return -1;
    const uint32_t *t = def_words(m, w[1], &twc);
    if (!t || op_of(t[0]) != SPV_OP_TYPE_INT || twc < 4)
        return -1;
    uint32_t width = t[2];
    uint64_t raw = w[3];
    if (width > 32) {
        if (wc < 5)
            return -1;
        raw |= (uint64_t)w[4] << 32;
    }
    if (width > 0 && width < 64 && (raw >> (width - 1)) & 1)
        raw |= ~0ull << width;
    else if (width > 0 && width < 64)
        raw &= (1ull << width) - 1;
    *v = (int64_t)raw;
    return 0;
}

/* Type id of a value (word 1 of its defining instruction). */
static uint32_t type_of(const etp_spv_module *m, uint32_t id)
{
    uint32_t wc;
    const uint32_t *w = def_words(m, id, &wc);
    return w && result_slot(op_of(w[0])) == 2 ? w[1] : 0;
}

static int op_cmp_ctx_sort(const void *a, const void *b, const etp_spv_op *ops)
{
    uint32_t x = ops[*(const uint32_t *)a].result_id, y = ops[*(const uint32_t *)b].result_id;
    return x < y ? -1 : x > y;
}

/* Insertion sort of op positions by result id: already sorted for the files
 * MLIR writes (ids increase along the body), so linear there. */
static void sort_by_id(uint32_t *idx, uint32_t n, const etp_spv_op *ops)
{
    for (uint32_t i = 1; i < n; i++) {
        uint32_t v = idx[i], j = i;
        while (j > 0 && op_cmp_ctx_sort(&idx[j - 1], &v, ops) > 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
}

const etp_spv_op *etp_spv_find_op(const etp_spv_graph *g, uint32_t result_id)
{
    uint32_t lo = 0, hi = g->op_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t id = g->ops[g->ops_by_id[mid]].result_id;
        if (id == result_id)
            return &g->ops[g->ops_by_id[mid]];
        if (id < result_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Per-id state while walking one graph: which op (position + 1) or input defines it. */
typedef struct walk {
    uint32_t *op_pos;   /* per id: op position + 1 in the current graph */
    uint32_t *in_pos;   /* per id: InputIndex + 1 of a graph input of the current graph */
    uint32_t graph_no;  /* stamp: entries are valid when stamp[id] == graph_no + 1 */
    uint32_t *stamp;
} walk;

static etp_status classify(dctx *c, walk *wk, const etp_spv_graph *g, uint32_t id, uint32_t pos,
                           etp_spv_operand *o)
{
    etp_spv_module *m = c->m;
    etp_status s = need_defined(c, id, pos, "operand");
    if (s)
        return s;
    uint32_t def = m->in->def[id] - 1, op = op_of(c->w[def]);
    o->id = id;
    o->type_id = type_of(m, id);
    o->index = 0;
    int here = wk->stamp[id] == wk->graph_no + 1;
    if (op == SPV_OP_GRAPH_INPUT_ARM && here && wk->in_pos[id]) {
        o->kind = ETP_SPV_GRAPH_INPUT;
        o->index = wk->in_pos[id] - 1;
    } else if ((op == SPV_OP_EXT_INST || op == SPV_OP_COMPOSITE_EXTRACT) && here &&
               wk->op_pos[id]) {
        o->kind = op == SPV_OP_EXT_INST ? ETP_SPV_OP_RESULT : ETP_SPV_EXTRACT;
        o->index = wk->op_pos[id] - 1;
    } else if (op == SPV_OP_GRAPH_CONSTANT_ARM) {
        o->kind = ETP_SPV_GRAPH_CONSTANT;
        o->index = c->w[def + 3];
    } else if (is_constant_op(op)) {
        o->kind = ETP_SPV_CONSTANT;
    } else {
        return etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos),
                             "graph operand %%%u is not a graph input, an earlier operation of "
                             "the graph or a constant (its definition has opcode %u)", id, op);
    }
    return ETP_OK;
}

/* Pass 2 for one graph block. */
static etp_status walk_graph(dctx *c, walk *wk, span sp, const entry_vec *entries,
                             etp_spv_graph *g)
{
    etp_spv_module *m = c->m;
    const uint32_t *w = c->w;
    VEC(etp_spv_io) inputs = {0};
    VEC(etp_spv_io) outputs = {0};
    VEC(etp_spv_op) ops = {0};
    VEC(etp_spv_operand) operands = {0};
    VEC(uint32_t) first = {0}; /* per op: its first operand in `operands` */
    etp_status s = ETP_OK;
    g->id = w[sp.start + 2];
    g->name = "";
    for (size_t k = 0; k < entries->n; k++)
        if (entries->v[k].graph == g->id) {
            g->name = entries->v[k].name;
            break;
        }
    for (uint32_t pos = sp.start + wc_of(w[sp.start]); pos < sp.end && !s;
         pos += wc_of(w[pos])) {
        uint32_t op = op_of(w[pos]), wc = wc_of(w[pos]);
        if (op == SPV_OP_GRAPH_INPUT_ARM) {
            int64_t idx;
            if (wc < 4) {
                s = etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos),
                                  "OpGraphInputARM of %u words has no InputIndex", wc);
                break;
            }
            if ((s = need_defined(c, w[pos + 3], pos + 3, "graph input index")))
                break;
            if (scalar_int(m, w[pos + 3], &idx) || idx < 0 || idx >= UINT32_MAX) {
                s = etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos + 3),
                                  "graph input %%%u: InputIndex %%%u is not a non-negative "
                                  "integer constant", w[pos + 2], w[pos + 3]);
                break;
            }
            etp_spv_io io = {w[pos + 2], (uint32_t)idx, w[pos + 1]};
            if (VEC_PUSH(inputs, io)) {
                s = nomem(c);
                break;
            }
            wk->stamp[io.id] = wk->graph_no + 1;
            wk->in_pos[io.id] = io.index + 1;
            wk->op_pos[io.id] = 0;
        } else if (op == SPV_OP_GRAPH_SET_OUTPUT_ARM) {
            int64_t idx;
            if (wc < 3) {
                s = etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos),
                                  "OpGraphSetOutputARM of %u words", wc);
                break;
            }
            etp_spv_operand tmp;
            if ((s = classify(c, wk, g, w[pos + 1], pos + 1, &tmp)) ||
                (s = need_defined(c, w[pos + 2], pos + 2, "graph output index")))
                break;
            if (scalar_int(m, w[pos + 2], &idx) || idx < 0 || idx > UINT32_MAX) {
                s = etp_error_set(c->err, ETP_E_FORMAT, c->file, AT(c, pos + 2),
                                  "graph output: OutputIndex %%%u is not a non-negative integer "
                                  "constant", w[pos + 2]);
                break;
            }
            etp_spv_io io = {w[pos + 1], (uint32_t)idx, tmp.type_id};
            if (VEC_PUSH(outputs, io))
                s = nomem(c);
        } else if ((op == SPV_OP_EXT_INST && wc >= 5 && w[pos + 3] == m->tosa_set_id &&
                    m->tosa_set_id) ||
                   (op == SPV_OP_COMPOSITE_EXTRACT && wc >= 4)) {
            etp_spv_op o;
            memset(&o, 0, sizeof o);
            o.type_id = w[pos + 1];
            o.result_id = w[pos + 2];
            o.word_offset = pos;
            uint32_t from = op == SPV_OP_EXT_INST ? 5 : 3, to = op == SPV_OP_EXT_INST ? wc : 4;
            const etp_tosa_op_info *info = NULL;
            if (op == SPV_OP_EXT_INST) {
                o.opcode = w[pos + 4];
                info = etp_tosa_op(o.opcode);
                o.name = info ? info->name : NULL;
                o.label = info ? info->label : "Unknown";
            } else {
                o.is_extract = 1;
                o.label = "CompositeExtract";
            }
            if (VEC_PUSH(first, (uint32_t)operands.n)) {
                s = nomem(c);
                break;
            }
            for (uint32_t k = from; k < to && !s; k++) {
                etp_spv_operand od;
                memset(&od, 0, sizeof od);
                if ((s = classify(c, wk, g, w[pos + k], pos + k, &od)))
                    break;
                if (info && info->operand_count) {
                    uint32_t r = k - from;
                    if (r >= info->operand_count)
                        r = info->variadic ? info->operand_count - 1u : UINT32_MAX;
                    if (r != UINT32_MAX) {
                        od.role = info->roles[r];
                        od.attribute = (info->attribute_mask >> r) & 1u;
                    }
                }
                if (VEC_PUSH(operands, od))
                    s = nomem(c);
            }
            if (s)
                break;
            o.operand_count = (uint32_t)(operands.n - first.v[first.n - 1]);
            if (VEC_PUSH(ops, o)) {
                s = nomem(c);
                break;
            }
            wk->stamp[o.result_id] = wk->graph_no + 1;
            wk->op_pos[o.result_id] = (uint32_t)ops.n;
            wk->in_pos[o.result_id] = 0;
        }
        /* Anything else in a body (debug info, other sets) is not part of the graph. */
    }
    if (!s && ops.n) {
        if (!(g->ops_by_id = malloc(ops.n * sizeof *g->ops_by_id)))
            s = nomem(c);
    }
    if (s) {
        VEC_FREE(inputs);
        VEC_FREE(outputs);
        VEC_FREE(ops);
        VEC_FREE(operands);
        VEC_FREE(first);
        return s;
    }
    /* Outputs in OutputIndex order (insertion sort: usually one or two). */
    for (size_t i = 1; i < outputs.n; i++) {
        etp_spv_io v = outputs.v[i];
        size_t j = i;
        while (j > 0 && outputs.v[j - 1].index > v.index) {
            outputs.v[j] = outputs.v[j - 1];
            j--;
        }
        outputs.v[j] = v;
    }
    g->inputs = inputs.v;
    g->input_count = (uint32_t)inputs.n;
    g->outputs = outputs.v;
    g->output_count = (uint32_t)outputs.n;
    g->ops = ops.v;
    g->op_count = (uint32_t)ops.n;
    /* One operand array for the whole graph: ops[0].operands owns it. */
    for (size_t i = 0; i < ops.n; i++)
        g->ops[i].operands = operands.v ? operands.v + first.v[i] : NULL;
    if (!ops.n)
        VEC_FREE(operands); /* else ops[0].operands is operands.v (first.v[0] == 0) */
    VEC_FREE(first);
    for (uint32_t i = 0; i < g->op_count; i++)
        g->ops_by_id[i] = i;
    sort_by_id(g->ops_by_id, g->op_count, g->ops);
    return ETP_OK;
}

etp_status etp_spv_decode(const uint32_t *words, uint32_t n, const char *file, int64_t file_offset,
                          etp_spv_module **out, etp_error *err)
{
    *out = NULL;
    if (n < 5)
        return etp_error_set(err, ETP_E_TRUNCATED, file, file_offset,
                             "SPIR-V module of %u words is shorter than its 5-word header", n);
    if (words[0] != SPV_MAGIC)
        return etp_error_set(err, ETP_E_FORMAT, file, file_offset,
                             "SPIR-V module does not start with the magic 0x07230203 (0x%08x)%s",
                             words[0], words[0] == 0x03022307u ? ": big-endian" : "");
    if (words[3] > MAX_BOUND)
        return etp_error_set(err, ETP_E_LIMIT, file, file_offset + 12,
                             "SPIR-V id bound %u is above etprof's cap of %u", words[3],
                             MAX_BOUND);
    etp_spv_module *m = calloc(1, sizeof *m);
    etp_spv_internal *in = calloc(1, sizeof *in);
    uint32_t bound = words[3] ? words[3] : 1;
    if (m)
        m->in = in;
    if (!m || !in || !(in->def = calloc(bound, 4)) || !(in->name = calloc(bound, 4))) {
        etp_spv_free(m);
        if (!m)
            free(in);
        return etp_error_set(err, ETP_E_NOMEM, file, ETP_NO_OFFSET, "out of memory");
    }
    m->version = words[1];
    m->generator = words[2];
    m->bound = words[3];
    m->word_count = n;
    in->w = words;
    in->n = n;
    dctx c = {m, words, n, file, file_offset, err};
    entry_vec entries = {0};
    span_vec spans = {0};
    etp_status s = scan(&c, &entries, &spans);
    walk wk = {0};
    if (!s && spans.n) {
        if (!(m->graphs = calloc(spans.n, sizeof *m->graphs)) ||
            !(wk.op_pos = calloc(bound, 4)) || !(wk.in_pos = calloc(bound, 4)) ||
            !(wk.stamp = calloc(bound, 4)))
            s = nomem(&c);
        for (size_t i = 0; !s && i < spans.n; i++) {
            wk.graph_no = (uint32_t)i;
            s = walk_graph(&c, &wk, spans.v[i], &entries, &m->graphs[i]);
            if (!s)
                m->graph_count++;
        }
    }
    free(wk.op_pos);
    free(wk.in_pos);
    free(wk.stamp);
    VEC_FREE(entries);
    VEC_FREE(spans);
    if (s) {
        etp_spv_free(m);
        return s;
    }
    *out = m;
    return ETP_OK;
}

void etp_spv_free(etp_spv_module *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; m->graphs && i < m->graph_count; i++) {
        etp_spv_graph *g = &m->graphs[i];
        free(g->inputs);
        free(g->outputs);
        if (g->op_count)
            free(g->ops[0].operands);
        free(g->ops);
        free(g->ops_by_id);
    }
    free(m->graphs);
    if (m->in) {
        free(m->in->def);
        free(m->in->name);
        free(m->in);
    }
    free(m);
}

/* ---- types and constant values ------------------------------------------ */

typedef struct tbuf {
    char *p;
    size_t size, len; /* len: what the full text needs */
    unsigned visits;  /* types visited: shared members could make the walk exponential */
} tbuf;

#define MAX_TYPE_VISITS 4096

static void tput(tbuf *t, const char *s)
{
    size_t n = strlen(s);
    if (t->len < t->size) {
        size_t room = t->size - t->len - 1;
        memcpy(t->p + t->len, s, n < room ? n : room);
        t->p[t->len + (n < room ? n : room)] = '\0';
    }
    t->len += n;
}

static void tnum(tbuf *t, int64_t v)
{
    char b[24];
    snprintf(b, sizeof b, "%lld", (long long)v);
    tput(t, b);
}

static void type_text(const etp_spv_module *m, uint32_t id, int depth, tbuf *t);

/* Shape of a tensor type: the dims, or -1 (unranked), in @p dims (<= 8). */
static int tensor_dims(const etp_spv_module *m, const uint32_t *w, uint32_t wc, int64_t *dims,
                       uint32_t *rank)
{
    int64_t r;
    if (wc < 4)
        return -1; /* unranked */
    if (scalar_int(m, w[3], &r) || r < 0 || r > 8)
        return -2;
    *rank = (uint32_t)r;
    for (uint32_t k = 0; k < *rank; k++)
        dims[k] = -1;
    if (wc < 5)
        return 0;
    uint32_t swc;
    const uint32_t *s = def_words(m, w[4], &swc);
    if (!s || op_of(s[0]) != SPV_OP_CONSTANT_COMPOSITE || swc - 3 != *rank)
        return -2;
    for (uint32_t k = 0; k < *rank; k++)
        if (scalar_int(m, s[3 + k], &dims[k]))
            return -2;
    return 0;
}

static void type_text(const etp_spv_module *m, uint32_t id, int depth, tbuf *t)
{
    uint32_t wc;
    const uint32_t *w = def_words(m, id, &wc);
    if (!w || depth > MAX_TYPE_DEPTH || ++t->visits > MAX_TYPE_VISITS) {
        tput(t, "?");
        return;
    }
    switch (op_of(w[0])) {
    case SPV_OP_TYPE_BOOL: tput(t, "i1"); break;
    case SPV_OP_TYPE_INT:
        tput(t, wc >= 4 && w[3] ? "si" : "i");
        tnum(t, wc >= 3 ? w[2] : 0);
        break;
    case SPV_OP_TYPE_FLOAT:
        if (wc >= 4 && w[3] == 0)
            tput(t, "bf16");
        else if (wc >= 4 && w[3] == 4214)
            tput(t, "f8E4M3FN");
        else if (wc >= 4 && w[3] == 4215)
            tput(t, "f8E5M2");
        else {
            tput(t, "f");
            tnum(t, wc >= 3 ? w[2] : 0);
        }
        break;
    case SPV_OP_TYPE_TENSOR_ARM: {
        int64_t dims[8];
        uint32_t rank = 0;
        int r = tensor_dims(m, w, wc, dims, &rank);
        tput(t, "!spirv.arm.tensor<");
        if (r == -1)
            tput(t, "*x");
        else if (r == 0)
            for (uint32_t k = 0; k < rank; k++) {
                if (dims[k] < 0)
                    tput(t, "?");
                else
                    tnum(t, dims[k]);
                tput(t, "x");
            }
        else
            tput(t, "?x");
        type_text(m, wc >= 3 ? w[2] : 0, depth + 1, t);
        tput(t, ">");
        break;
    }
    case SPV_OP_TYPE_ARRAY: {
        int64_t len = 0;
        tput(t, "!spirv.array<");
        if (wc >= 4 && !scalar_int(m, w[3], &len))
            tnum(t, len);
        else
            tput(t, "?");
        tput(t, " x ");
        type_text(m, wc >= 3 ? w[2] : 0, depth + 1, t);
        tput(t, ">");
        break;
    }
    case SPV_OP_TYPE_VECTOR:
        tput(t, "vector<");
        tnum(t, wc >= 4 ? w[3] : 0);
        tput(t, "x");
        type_text(m, wc >= 3 ? w[2] : 0, depth + 1, t);
        tput(t, ">");
        break;
    case SPV_OP_TYPE_STRUCT:
        tput(t, "!spirv.struct<(");
        for (uint32_t k = 2; k < wc; k++) {
            if (k > 2)
                tput(t, ", ");
            type_text(m, w[k], depth + 1, t);
        }
        tput(t, ")>");
        break;
    default: tput(t, "?"); break;
    }
}

int etp_spv_type_str(const etp_spv_module *m, uint32_t type_id, char *buf, size_t size)
{
    tbuf t = {buf, size, 0, 0};
    if (size)
        buf[0] = '\0';
    type_text(m, type_id, 0, &t);
    return (int)t.len;
}

typedef struct vals {
    VEC(int64_t) i;
    VEC(double) f;
    uint64_t max;
    uint64_t visits; /* constants visited: empty composites shared many times add no
                      * elements, so the element cap alone would not bound the walk */
} vals;

static double half_to_double(uint32_t h)
{
    int e = (h >> 10) & 31, s = (h >> 15) & 1;
    double mant = h & 1023;
    double v = e == 0 ? mant / 1024.0 / 16384.0
                      : e == 31 ? (mant ? NAN : INFINITY)
                                : (1.0 + mant / 1024.0) * (double)(1ull << e) / 32768.0;
    return s ? -v : v;
}

/* The scalar element type at the bottom of @p type: kind and width. */
static int elem_of(const etp_spv_module *m, uint32_t type, int depth, etp_spv_elem *e,
                   uint32_t *width)
{
    uint32_t wc;
    const uint32_t *w = def_words(m, type, &wc);
    if (!w || depth > MAX_TYPE_DEPTH)
        return -1;
    switch (op_of(w[0])) {
    case SPV_OP_TYPE_BOOL: *e = ETP_SPV_ELEM_BOOL; *width = 1; return 0;
    case SPV_OP_TYPE_INT: *e = ETP_SPV_ELEM_INT; *width = wc >= 3 ? w[2] : 32; return 0;
    case SPV_OP_TYPE_FLOAT: *e = ETP_SPV_ELEM_FLOAT; *width = wc >= 3 ? w[2] : 32; return 0;
    case SPV_OP_TYPE_TENSOR_ARM:
    case SPV_OP_TYPE_ARRAY:
    case SPV_OP_TYPE_VECTOR: return wc >= 3 ? elem_of(m, w[2], depth + 1, e, width) : -1;
    default: return -1;
    }
}

/* Number of scalars in a value of @p type (for null and replicate), or -1. */
static int64_t scalar_count(const etp_spv_module *m, uint32_t type, int depth)
{
    uint32_t wc;
    const uint32_t *w = def_words(m, type, &wc);
    if (!w || depth > MAX_TYPE_DEPTH)
        return -1;
    switch (op_of(w[0])) {
    case SPV_OP_TYPE_BOOL:
    case SPV_OP_TYPE_INT:
    case SPV_OP_TYPE_FLOAT: return 1;
    case SPV_OP_TYPE_TENSOR_ARM: {
        int64_t dims[8];
        uint32_t rank = 0;
        if (tensor_dims(m, w, wc, dims, &rank))
            return -1;
        int64_t n = 1;
        for (uint32_t k = 0; k < rank; k++) {
            if (dims[k] < 0 || (dims[k] && n > INT64_MAX / dims[k] / 2))
                return -1;
            n *= dims[k];
        }
        return n;
    }
    case SPV_OP_TYPE_ARRAY: {
        int64_t len, inner;
        if (wc < 4 || scalar_int(m, w[3], &len) || len < 0 ||
            (inner = scalar_count(m, w[2], depth + 1)) < 0 ||
            (len && inner > INT64_MAX / len / 2))
            return -1;
        return len * inner;
    }
    case SPV_OP_TYPE_VECTOR: {
        int64_t inner = wc >= 4 ? scalar_count(m, w[2], depth + 1) : -1;
        return inner < 0 ? -1 : inner * (int64_t)w[3];
    }
    default: return -1;
    }
}

static int push_scalar(vals *v, etp_spv_elem e, int64_t i, double f)
{
    if ((uint64_t)(v->i.n + v->f.n) >= v->max)
        return 1;
    if (e == ETP_SPV_ELEM_FLOAT)
        return VEC_PUSH(v->f, f) ? 2 : 0;
    return VEC_PUSH(v->i, i) ? 2 : 0;
}

/* Append the scalars of constant @p id; 0 ok, 1 over the cap, 2 no memory,
 * -1 not a readable constant. */
static int flatten(const etp_spv_module *m, uint32_t id, int depth, vals *v)
{
    uint32_t wc, twc;
    const uint32_t *w = def_words(m, id, &wc);
    if (!w || depth > MAX_TYPE_DEPTH || wc < 3)
        return -1;
    if (++v->visits > 2 * v->max + 1024)
        return 1;
    uint32_t op = op_of(w[0]);
    etp_spv_elem e;
    uint32_t width;
    if (elem_of(m, w[1], 0, &e, &width))
        return -1;
    switch (op) {
    case SPV_OP_CONSTANT_TRUE:
    case SPV_OP_SPEC_TRUE: return push_scalar(v, e, 1, 1.0);
    case SPV_OP_CONSTANT_FALSE:
    case SPV_OP_SPEC_FALSE: return push_scalar(v, e, 0, 0.0);
    case SPV_OP_CONSTANT:
    case SPV_OP_SPEC_CONSTANT: {
        if (wc < 4)
            return -1;
        if (e == ETP_SPV_ELEM_INT) {
            int64_t x;
            if (scalar_int(m, id, &x))
                return -1;
            return push_scalar(v, e, x, 0.0);
        }
        double f;
        if (width == 16)
            f = half_to_double(w[3] & 0xFFFFu);
        else if (width == 64 && wc >= 5) {
            uint64_t bits = w[3] | (uint64_t)w[4] << 32;
            memcpy(&f, &bits, 8);
        } else {
            float x;
            memcpy(&x, &w[3], 4);
            f = x;
        }
        return push_scalar(v, e, 0, f);
    }
    case SPV_OP_CONSTANT_NULL: {
        int64_t n = scalar_count(m, w[1], 0);
        if (n < 0)
            return -1;
        for (int64_t k = 0; k < n; k++) {
            int r = push_scalar(v, e, 0, 0.0);
            if (r)
                return r;
        }
        return 0;
    }
    case SPV_OP_CONSTANT_COMPOSITE:
    case SPV_OP_SPEC_COMPOSITE:
        for (uint32_t k = 3; k < wc; k++) {
            int r = flatten(m, w[k], depth + 1, v);
            if (r)
                return r;
        }
        return 0;
    case SPV_OP_CONSTANT_COMPOSITE_REPLICATE_EXT: {
        if (wc < 4)
            return -1;
        int64_t n = scalar_count(m, w[1], 0);
        const uint32_t *inner = def_words(m, w[3], &twc);
        int64_t per = inner ? scalar_count(m, inner[1], 0) : -1;
        if (n < 0 || per <= 0)
            return -1;
        for (int64_t k = 0; k < n / per; k++) {
            int r = flatten(m, w[3], depth + 1, v);
            if (r)
                return r;
        }
        return 0;
    }
    default: return -1;
    }
}

etp_status etp_spv_constant_values(const etp_spv_module *m, uint32_t id, uint64_t max_count,
                                   etp_spv_values *out, etp_error *err)
{
    memset(out, 0, sizeof *out);
    uint32_t wc, twc;
    const uint32_t *w = def_words(m, id, &wc);
    if (!w || !is_constant_op(op_of(w[0])) || wc < 3)
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "SPIR-V id %u is not a constant", id);
    const uint32_t *t = def_words(m, w[1], &twc);
    if (!t || elem_of(m, w[1], 0, &out->elem, &out->width))
        return etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                             "SPIR-V constant %u has no readable type", id);
    uint32_t top = op_of(t[0]);
    if (top == SPV_OP_TYPE_TENSOR_ARM) {
        int64_t dims[8];
        out->is_tensor = 1;
        if (tensor_dims(m, t, twc, dims, &out->rank) == 0)
            for (uint32_t k = 0; k < out->rank; k++)
                out->dims[k] = dims[k] < 0 ? 0 : (uint32_t)dims[k];
        else
            out->rank = 0;
    } else if (top == SPV_OP_TYPE_ARRAY || top == SPV_OP_TYPE_VECTOR) {
        int64_t n = scalar_count(m, w[1], 0);
        out->is_tensor = 1;
        out->rank = 1;
        out->dims[0] = n < 0 ? 0 : (uint32_t)n;
    }
    vals v = {{0}, {0}, max_count, 0};
    int r = flatten(m, id, 0, &v);
    if (r) {
        VEC_FREE(v.i);
        VEC_FREE(v.f);
        return r == 1   ? etp_error_set(err, ETP_E_LIMIT, NULL, ETP_NO_OFFSET,
                                        "SPIR-V constant %u has more than %llu elements", id,
                                        (unsigned long long)max_count)
               : r == 2 ? etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory")
                        : etp_error_set(err, ETP_E_FORMAT, NULL, ETP_NO_OFFSET,
                                        "SPIR-V constant %u cannot be read", id);
    }
    out->count = v.i.n + v.f.n;
    out->ints = v.i.v;
    out->floats = v.f.v;
    return ETP_OK;
}
