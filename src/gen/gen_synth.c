/*
 * gen_synth.c - `etprof gen etdump`: a large CNN-like model with N
 * instructions, every K-th a DelegateCall, and its ETDump / .pte / ETRecord.
 *
 * Activations are all 50176 floats ([1, 64, 28, 28]); ops that need another
 * shape read a memory.view of the previous output (no instruction, as exir
 * emits views), so every instruction's args are consistent with its kernel.
 * Weights are constant tensors of zeros; like the exir emitter, identical
 * constant buffers share one data_buffer_idx, which keeps the .pte small.
 */
#include <stdio.h>
#include <string.h>

#include "etprof/gen.h"
#include "formats/schemas.h"
#include "gen/gen_model.h"

#define C 64
#define HW 28

enum { OP_CONV, OP_RELU, OP_ADD, OP_MAXPOOL, OP_HARDTANH, OP_PERMUTE, OP_ADDMM };

typedef struct synth_op {
    const char *op;        /* aten operator name */
    const char *edge;      /* edge-dialect target */
    double base_us;        /* typical portable-kernel time for this shape */
    const char *module;    /* nn.Module class the node came from */
    const char *fn;        /* source_fn_stack target */
    const char *line;      /* source line in model.py */
} synth_op;

static const synth_op OPS[] = {
    [OP_CONV] = {"convolution", "aten.convolution.default", 140.0, "torch.nn.modules.conv.Conv2d",
                 "torch.nn.modules.conv.Conv2d", "x = self.layers[%u](x)"},
    [OP_RELU] = {"relu", "aten.relu.default", 7.0, "torch.nn.modules.activation.ReLU",
                 "torch.nn.modules.activation.ReLU", "x = self.layers[%u](x)"},
    [OP_ADD] = {"add", "aten.add.Tensor", 14.0, "model.Residual", "operator.add",
                "x = x + skip  # layers[%u]"},
    [OP_MAXPOOL] = {"max_pool2d_with_indices", "aten.max_pool2d_with_indices.default", 30.0,
                    "torch.nn.modules.pooling.MaxPool2d", "torch.nn.modules.pooling.MaxPool2d",
                    "x = self.layers[%u](x)"},
    [OP_HARDTANH] = {"hardtanh", "aten.hardtanh.default", 6.0, "torch.nn.modules.activation.ReLU6",
                     "torch.nn.modules.activation.ReLU6", "x = self.layers[%u](x)"},
    [OP_PERMUTE] = {"permute_copy", "aten.permute_copy.default", 20.0, "model.ToChannelsLast",
                    "torch.permute", "x = x.permute(0, 2, 3, 1)  # layers[%u]"},
    [OP_ADDMM] = {"addmm", "aten.addmm.default", 45.0, "torch.nn.modules.linear.Linear",
                  "torch.nn.modules.linear.Linear", "x = self.layers[%u](x)"},
};

/* The repeating layer pattern: conv blocks with a residual add, pooling,
 * and a channels-last linear. */
static const uint8_t PATTERN[] = {OP_CONV, OP_RELU,    OP_CONV,    OP_ADD,  OP_RELU, OP_MAXPOOL,
                                  OP_CONV, OP_HARDTANH, OP_PERMUTE, OP_ADDMM, OP_RELU, OP_CONV};

/* XNNPACK operator names (as its profiler reports them) and the edge op
 * each one stands for in the pre-lowering graph. */
static const struct {
    const char *xnn;
    uint8_t op;
} XNN_OPS[] = {
    {"Convolution (NHWC, F32) IGEMM", OP_CONV},  {"Clamp (NC, F32)", OP_HARDTANH},
    {"Add (ND)", OP_ADD},                        {"Max Pooling (NHWC, F32)", OP_MAXPOOL},
    {"Convolution (NHWC, F32) GEMM", OP_CONV},   {"Transpose (ND, X32)", OP_PERMUTE},
    {"Fully Connected (NC, F32) GEMM", OP_ADDMM}, {"Clamp (NC, F32)", OP_RELU},
};

#define NXNN (sizeof XNN_OPS / sizeof XNN_OPS[0])

typedef struct synth {
    gm_program *p;
    gm_method *m;
    gen_rng rng;
    const etp_gen_etdump_opts *o;
    uint32_t act;          /* value index of the current activation */
    const char *act_name;  /* its edge-graph tensor name */
    const char *skip_name; /* residual input name */
    uint32_t skip;         /* residual input value */
    int32_t next_handle;
    uint32_t layer;        /* nn.Module index (one per node) */
    uint32_t op_count[sizeof OPS / sizeof OPS[0]];
} synth;

static const int32_t S4[4] = {1, C, HW, HW};
static const int32_t S4_NHWC[4] = {1, HW, HW, C};
static const int32_t S2[2] = {HW * HW, C};

/* The current activation, viewed as @p rank / @p sizes. */
static uint32_t input_as(synth *s, int rank, const int32_t *sizes)
{
    const gm_value *v = &GEN_AT(&s->m->values, gm_value, s->act);
    if (v->rank == rank && !memcmp(v->sizes, sizes, sizeof(int32_t) * (size_t)rank))
        return s->act;
    return gm_view(s->m, s->act, rank, sizes);
}

static const char *node_name(synth *s, uint8_t op)
{
    gm_program *p = s->p;
    uint32_t n = s->op_count[op]++;
    const char *ovl = op == OP_ADD ? "tensor" : "default";
    if (!n)
        return gen_printf(&p->arena, "aten_%s_%s", OPS[op].op, ovl);
    return gen_printf(&p->arena, "aten_%s_%s_%u", OPS[op].op, ovl, n);
}

/* One edge-graph node for layer @p op, named like torch.export names it,
 * with the metadata torch.export records. Its output tensor has its name. */
static gm_node *add_node(synth *s, uint8_t op, int32_t handle)
{
    gm_program *p = s->p;
    const synth_op *so = &OPS[op];
    uint32_t layer = s->layer++;
    const char *name = node_name(s, op);
    gm_node *n = gm_node_add(s->m, name ? name : "?", so->edge, handle);
    if (!n)
        return NULL;
    char line[96];
    snprintf(line, sizeof line, so->line, layer);
    n->stack_trace = gen_printf(&p->arena,
                                "  File \"/home/dev/synth/model.py\", line %u, in forward\n    %s\n",
                                60 + (layer % 12), line);
    n->module_stack = gen_printf(&p->arena,
                                 "L__self__,,model.SynthNet;L__self___layers_%u,layers.%u,%s",
                                 layer, layer, so->module);
    n->source_fn = gen_printf(&p->arena, "layers_%u,%s", layer, so->fn);
    n->nouts = 1;
    n->outs[0] = n->name;
    return n;
}

static const char *out_of(const gm_node *n) { return n ? n->outs[0] : "?"; }

static const char *param(synth *s, const char *what, int rank, const int64_t *sizes)
{
    gm_program *p = s->p;
    const char *name = gen_printf(&p->arena, "p_layers_%u_%s", s->layer, what);
    gm_ginput_add(s->m, name, gen_printf(&p->arena, "layers.%u.%s", s->layer, what), 0);
    gm_tmeta_add(s->m, name, GM_DT_FLOAT, rank, sizes);
    return name;
}

static void kernel(synth *s, uint8_t op, double scale)
{
    gm_program *p = s->p;
    gm_method *m = s->m;
    uint32_t a[16];
    int n = 0;
    int32_t h = s->next_handle++;
    static const int64_t one2[2] = {1, 1}, zero2[2] = {0, 0};
    static const int64_t wshape[4] = {C, C, 3, 3}, bshape[1] = {C}, lshape[2] = {C, C};
    static const int64_t s4[4] = {1, C, HW, HW}, nhwc[4] = {1, HW, HW, C}, s2[2] = {HW * HW, C};
    const char *in_name = s->act_name;
    const char *out_name = NULL;
    gm_node *node = NULL;
    uint32_t out;
    switch (op) {
    case OP_CONV: {
        uint32_t in = input_as(s, 4, S4);
        int32_t ws[4] = {C, C, 3, 3}, bs[1] = {C};
        uint32_t w = gm_const_tensor(p, m, GM_ST_FLOAT, 4, ws, NULL);
        uint32_t bias = gm_const_tensor(p, m, GM_ST_FLOAT, 1, bs, NULL);
        a[n++] = in, a[n++] = w, a[n++] = bias;
        a[n++] = gm_int_list(m, one2, 2), a[n++] = gm_int_list(m, one2, 2);
        a[n++] = gm_int_list(m, one2, 2), a[n++] = gm_bool(m, 0);
        a[n++] = gm_int_list(m, zero2, 2), a[n++] = gm_int(m, 1);
        out = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        a[n++] = out, a[n++] = out;
        const char *wn = param(s, "weight", 4, wshape), *bn = param(s, "bias", 1, bshape);
        node = add_node(s, op, h);
        out_name = out_of(node);
        gm_arg_tensor(node, "input", in_name);
        gm_arg_tensor(node, "weight", wn);
        gm_arg_tensor(node, "bias", bn);
        gm_arg_ints(node, "stride", one2, 2);
        gm_arg_ints(node, "padding", one2, 2);
        gm_arg_ints(node, "dilation", one2, 2);
        gm_arg_bool(node, "transposed", 0);
        gm_arg_ints(node, "output_padding", zero2, 2);
        gm_arg_int(node, "groups", 1);
        gm_tmeta_add(m, out_name, GM_DT_FLOAT, 4, s4);
        break;
    }
    case OP_RELU:
    case OP_HARDTANH: {
        uint32_t in = input_as(s, 4, S4);
        a[n++] = in;
        if (op == OP_HARDTANH)
            a[n++] = gm_double(m, 0.0), a[n++] = gm_double(m, 6.0);
        out = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        a[n++] = out, a[n++] = out;
        node = add_node(s, op, h);
        out_name = out_of(node);
        gm_arg_tensor(node, "self", in_name);
        gm_tmeta_add(m, out_name, GM_DT_FLOAT, 4, s4);
        break;
    }
    case OP_ADD: {
        uint32_t in = input_as(s, 4, S4);
        a[n++] = in, a[n++] = s->skip, a[n++] = gm_int(m, 1);
        out = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        a[n++] = out, a[n++] = out;
        node = add_node(s, op, h);
        out_name = out_of(node);
        gm_arg_tensor(node, "self", in_name);
        gm_arg_tensor(node, "other", s->skip_name);
        gm_tmeta_add(m, out_name, GM_DT_FLOAT, 4, s4);
        break;
    }
    case OP_MAXPOOL: {
        static const int64_t k3[2] = {3, 3};
        uint32_t in = input_as(s, 4, S4);
        a[n++] = in, a[n++] = gm_int_list(m, k3, 2), a[n++] = gm_int_list(m, one2, 2);
        a[n++] = gm_int_list(m, one2, 2), a[n++] = gm_int_list(m, one2, 2);
        a[n++] = gm_bool(m, 0);
        out = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        uint32_t idx = gm_tensor(m, GM_ST_LONG, 4, S4);
        a[n++] = out, a[n++] = idx, a[n++] = out, a[n++] = idx;
        /* getitem nodes are folded into the producer's named outputs */
        uint32_t k = s->op_count[op];
        out_name = k ? gen_printf(&p->arena, "getitem_%u", 2 * k) : "getitem";
        const char *idx_name = gen_printf(&p->arena, "getitem_%u", 2 * k + 1);
        node = add_node(s, op, h);
        if (node) {
            node->nouts = 2;
            node->outs[0] = out_name;
            node->outs[1] = idx_name;
        }
        gm_arg_tensor(node, "self", in_name);
        gm_arg_ints(node, "kernel_size", k3, 2);
        gm_arg_ints(node, "stride", one2, 2);
        gm_arg_ints(node, "padding", one2, 2);
        gm_tmeta_add(m, out_name, GM_DT_FLOAT, 4, s4);
        gm_tmeta_add(m, idx_name, GM_DT_LONG, 4, s4);
        break;
    }
    case OP_PERMUTE: {
        static const int64_t dims[4] = {0, 2, 3, 1};
        uint32_t in = input_as(s, 4, S4);
        a[n++] = in, a[n++] = gm_int_list(m, dims, 4);
        out = gm_tensor(m, GM_ST_FLOAT, 4, S4_NHWC);
        a[n++] = out, a[n++] = out;
        node = add_node(s, op, h);
        out_name = out_of(node);
        gm_arg_tensor(node, "self", in_name);
        gm_arg_ints(node, "dims", dims, 4);
        gm_tmeta_add(m, out_name, GM_DT_FLOAT, 4, nhwc);
        break;
    }
    default: { /* OP_ADDMM */
        uint32_t in = input_as(s, 2, S2);
        int32_t ws[2] = {C, C}, bs[1] = {C};
        uint32_t bias = gm_const_tensor(p, m, GM_ST_FLOAT, 1, bs, NULL);
        uint32_t w = gm_const_tensor(p, m, GM_ST_FLOAT, 2, ws, NULL);
        a[n++] = bias, a[n++] = in, a[n++] = w, a[n++] = gm_int(m, 1), a[n++] = gm_int(m, 1);
        out = gm_tensor(m, GM_ST_FLOAT, 2, S2);
        a[n++] = out, a[n++] = out;
        const char *wn = param(s, "weight", 2, lshape), *bn = param(s, "bias", 1, bshape);
        node = add_node(s, op, h);
        out_name = out_of(node);
        gm_arg_tensor(node, "self", bn);
        gm_arg_tensor(node, "mat1", in_name);
        gm_arg_tensor(node, "mat2", wn);
        gm_tmeta_add(m, out_name, GM_DT_FLOAT, 2, s2);
        break;
    }
    }
    gm_kernel(m, gm_op(p, m, gen_printf(&p->arena, "aten::%s", OPS[op].op), "out"), a, n, &h, 1,
              OPS[op].base_us * 1000.0 * scale);
    if (op == OP_RELU || op == OP_MAXPOOL) {
        s->skip = out; /* the next residual add's shortcut */
        s->skip_name = out_name;
    }
    s->act = out;
    s->act_name = out_name;
}

/* A lowered region: 1-3 backend ops, each one edge node with its own handle. */
static void delegate(synth *s, double scale)
{
    gm_program *p = s->p;
    gm_method *m = s->m;
    int vulkan = s->o->backend == ETP_GEN_VULKAN;
    int ndev = (int)gen_range(&s->rng, 1, 3);
    uint32_t first = (uint32_t)gen_range(&s->rng, 0, NXNN - 1);
    int32_t handles[3];
    double weight[3], total_w = 0.0, base = 0.0;
    static const int64_t s4[4] = {1, C, HW, HW};
    for (int k = 0; k < ndev; k++) {
        uint8_t op = XNN_OPS[(first + (uint32_t)k) % NXNN].op;
        handles[k] = s->next_handle++;
        weight[k] = OPS[op].base_us * (0.5 + gen_unif(&s->rng));
        total_w += weight[k];
        /* the pre-lowering graph still has the delegated nodes */
        gm_node *node = add_node(s, op, handles[k]);
        gm_arg_tensor(node, "self", s->act_name);
        gm_tmeta_add(m, out_of(node), GM_DT_FLOAT, 4, s4);
        s->act_name = out_of(node);
    }
    base = total_w * 1000.0 * 0.6 * scale; /* backends beat portable kernels */
    uint32_t seg_len = (uint32_t)gen_range(&s->rng, 512, 4096);
    uint8_t *blob = gen_alloc(&p->arena, seg_len);
    if (blob) {
        for (uint32_t k = 0; k < seg_len; k++)
            blob[k] = (uint8_t)gen_next(&s->rng);
        memset(blob, 0, 4);
        memcpy(blob + 4, vulkan ? "VH00" : "XH00", 4);
    }
    gm_delegate *d = gen_vec_push(&m->delegates);
    uint32_t di = (uint32_t)(m->delegates.len - 1);
    if (d) {
        d->id = vulkan ? "VulkanBackend" : "XnnpackBackend";
        d->segment = gm_segment_add(p, seg_len, blob);
    }
    uint32_t in = input_as(s, 4, S4);
    uint32_t out = gm_tensor(m, GM_ST_FLOAT, 4, S4);
    uint32_t a[2] = {in, out};
    gm_delegate_call(m, di, a, 2, handles, ndev, base, 1);
    for (int k = 0; k < ndev; k++) {
        const char *id = NULL;
        if (!vulkan)
            id = gen_printf(&p->arena, "%s #%d", XNN_OPS[(first + (uint32_t)k) % NXNN].xnn, k + 1);
        gm_dev_event(m, vulkan ? k : -1, id, weight[k] / total_w, &handles[k], 1);
    }
    s->act = out;
}

void etp_gen_etdump_defaults(etp_gen_etdump_opts *o)
{
    memset(o, 0, sizeof *o);
    o->executions = 5;
    o->instructions = 100;
    o->delegate_every = 10;
    o->seed = 1;
    o->backend = ETP_GEN_XNNPACK;
}

static etp_status build(gm_program *p, const etp_gen_etdump_opts *o, etp_gen_result *res)
{
    synth s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.o = o;
    s.rng = gen_rng_make(o->seed, 0x4d4f444c); /* "MODL" */
    s.next_handle = 1;
    gm_method *m = s.m = gm_add_method(p, "forward");
    p->export_graph_id = 140000000000000ll + (int64_t)(o->seed % 1000000) * 16;
    p->us_quantized = o->backend == ETP_GEN_XNNPACK;
    p->load_ns = 20000.0 + 2500.0 * o->instructions;
    m->encoded_inp = gm_encoded_inputs(p, 1);
    m->encoded_out = gm_encoded_output();
    /* Every value dies within a few instructions (the residual shortcut
     * lives longest), so 8 slots of the largest tensor (int64 indices) do. */
    m->ring_slots = 8;
    m->ring_slot_bytes = (uint64_t)C * HW * HW * 8;

    s.act = gm_tensor(m, GM_ST_FLOAT, 4, S4);
    s.skip = s.act;
    s.act_name = s.skip_name = "x";
    int32_t in_idx = (int32_t)s.act;
    gen_vec_append(&m->inputs, &in_idx, 1);
    static const int64_t s4[4] = {1, C, HW, HW};
    gm_tmeta_add(m, "x", GM_DT_FLOAT, 4, s4);

    for (uint32_t i = 0; i < o->instructions && !gm_failed(p); i++) {
        /* layer size varies: a skewed factor between 0.3x and 3x */
        double u = gen_unif(&s.rng);
        double scale = 0.3 + 2.7 * u * u;
        if (o->delegate_every && (i + 1) % o->delegate_every == 0) {
            delegate(&s, scale);
            res->delegate_calls++;
        } else {
            kernel(&s, PATTERN[i % sizeof PATTERN], scale);
            res->kernel_calls++;
        }
    }
    int32_t out_idx = (int32_t)s.act;
    gen_vec_append(&m->outputs, &out_idx, 1);
    m->goutput = s.act_name;
    /* user input last, after the lifted parameters, as torch.export orders them */
    gm_ginput_add(m, "x", NULL, 0);
    return gm_failed(p) ? ETP_E_NOMEM : ETP_OK;
}

etp_status etp_gen_etdump(const etp_gen_etdump_opts *o, etp_gen_result *res, etp_error *err)
{
    etp_gen_result local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    if (!o || !o->etdump_path)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "no ETDump output path");
    if (o->instructions < 1 || o->instructions > ETP_GEN_MAX_INSTRUCTIONS)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "instructions must be between 1 and %u", ETP_GEN_MAX_INSTRUCTIONS);
    if (o->backend != ETP_GEN_XNNPACK && o->backend != ETP_GEN_VULKAN)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "unknown delegate backend");

    gm_program p;
    gm_init(&p);
    etp_status st = build(&p, o, res);
    if (st) {
        gm_free(&p);
        return etp_error_set(err, st, o->etdump_path, ETP_NO_OFFSET,
                             "out of memory building the model");
    }
    const gm_method *m = &p.methods[0];
    if (gm_etdump_estimate(m, o->executions) > (uint64_t)UINT32_MAX) {
        gm_free(&p);
        return etp_error_set(err, ETP_E_LIMIT, o->etdump_path, ETP_NO_OFFSET,
                             "an ETDump of %u executions x %u instructions would exceed the "
                             "format's 4 GiB limit",
                             o->executions, o->instructions);
    }
    gm_etdump_opts eo = {m, o->executions, o->seed};
    st = gm_write_etdump(&p, &eo, o->etdump_path, &res->etdump_bytes, &res->events, err);
    if (!st && o->pte_path)
        st = gm_write_pte(&p, o->pte_path, &res->pte_bytes, err);
    if (!st && o->etrecord_path)
        st = gm_write_etrecord(&p, o->etrecord_path, &res->etrecord_bytes, err);
    gm_free(&p);
    return st;
}
