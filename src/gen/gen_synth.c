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
#include "formats/flatbuffers/schemas.h"
#include "gen/gen_model.h"

#define C 64
#define HW 28

enum { OP_CONV, OP_RELU, OP_ADD, OP_MAXPOOL, OP_HARDTANH, OP_PERMUTE, OP_ADDMM };

typedef struct synth_op {
    const char *op;        /* aten operator name */
    const char *qualified; /* .pte operator name */
    const char *edge;      /* edge-dialect target */
    double base_us;        /* typical portable-kernel time for this shape */
    const char *module;    /* nn.Module class the node came from */
    const char *fn;        /* source_fn_stack target */
    const char *line;      /* source line in model.py */
} synth_op;

static const synth_op OPS[] = {
    [OP_CONV] = {"convolution", "aten::convolution", "aten.convolution.default", 140.0,
                 "torch.nn.modules.conv.Conv2d", "torch.nn.modules.conv.Conv2d",
                 "x = self.layers[%u](x)"},
    [OP_RELU] = {"relu", "aten::relu", "aten.relu.default", 7.0,
                 "torch.nn.modules.activation.ReLU", "torch.nn.modules.activation.ReLU",
                 "x = self.layers[%u](x)"},
    [OP_ADD] = {"add", "aten::add", "aten.add.Tensor", 14.0, "model.Residual", "operator.add",
                "x = x + skip  # layers[%u]"},
    [OP_MAXPOOL] = {"max_pool2d_with_indices", "aten::max_pool2d_with_indices",
                    "aten.max_pool2d_with_indices.default", 30.0,
                    "torch.nn.modules.pooling.MaxPool2d", "torch.nn.modules.pooling.MaxPool2d",
                    "x = self.layers[%u](x)"},
    [OP_HARDTANH] = {"hardtanh", "aten::hardtanh", "aten.hardtanh.default", 6.0,
                     "torch.nn.modules.activation.ReLU6", "torch.nn.modules.activation.ReLU6",
                     "x = self.layers[%u](x)"},
    [OP_PERMUTE] = {"permute_copy", "aten::permute_copy", "aten.permute_copy.default", 20.0,
                    "model.ToChannelsLast", "torch.permute",
                    "x = x.permute(0, 2, 3, 1)  # layers[%u]"},
    [OP_ADDMM] = {"addmm", "aten::addmm", "aten.addmm.default", 45.0,
                  "torch.nn.modules.linear.Linear", "torch.nn.modules.linear.Linear",
                  "x = self.layers[%u](x)"},
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
    int values;            /* build program values (for --pte) */
    int graph;             /* build the edge graph (for --etrecord) */
    uint32_t act;          /* value index of the current activation */
    uint32_t skip;         /* residual shortcut value */
    const char *act_name;  /* edge-graph names of the same */
    const char *skip_name;
    int32_t next_handle;
    uint32_t layer;        /* nn.Module index (one per node) */
    uint32_t op_count[sizeof OPS / sizeof OPS[0]];
} synth;

static const int32_t S4[4] = {1, C, HW, HW};
static const int32_t S4_NHWC[4] = {1, HW, HW, C};
static const int32_t S2[2] = {HW * HW, C};
static const int64_t L4[4] = {1, C, HW, HW};
static const int64_t L4_NHWC[4] = {1, HW, HW, C};
static const int64_t L2[2] = {HW * HW, C};
static const int64_t ONE2[2] = {1, 1}, ZERO2[2] = {0, 0}, K3[2] = {3, 3};
static const int64_t NHWC_DIMS[4] = {0, 2, 3, 1};

/* The current activation, viewed as @p rank / @p sizes. */
static uint32_t input_as(synth *s, int rank, const int32_t *sizes)
{
    const gm_value *v = &GEN_AT(&s->m->values, gm_value, s->act);
    if (v->rank == rank && !memcmp(v->sizes, sizes, sizeof(int32_t) * (size_t)rank))
        return s->act;
    return gm_view(s->m, s->act, rank, sizes);
}

/* The values of one KernelCall, in the order the exir emitter lays them
 * out (inputs, then out arguments, then the returned tensor(s) again).
 * Returns the arg count; *out is the output tensor. */
static int kernel_args(synth *s, uint8_t op, uint32_t *a, uint32_t *out)
{
    gm_program *p = s->p;
    gm_method *m = s->m;
    int n = 0;
    switch (op) {
    case OP_CONV: {
        static const int32_t ws[4] = {C, C, 3, 3}, bs[1] = {C};
        a[n++] = input_as(s, 4, S4);
        a[n++] = gm_const_tensor(p, m, GM_ST_FLOAT, 4, ws, NULL);
        a[n++] = gm_const_tensor(p, m, GM_ST_FLOAT, 1, bs, NULL);
        a[n++] = gm_int_list(m, ONE2, 2);  /* stride */
        a[n++] = gm_int_list(m, ONE2, 2);  /* padding */
        a[n++] = gm_int_list(m, ONE2, 2);  /* dilation */
        a[n++] = gm_bool(m, 0);            /* transposed */
        a[n++] = gm_int_list(m, ZERO2, 2); /* output_padding */
        a[n++] = gm_int(m, 1);             /* groups */
        *out = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        break;
    }
    case OP_RELU:
        a[n++] = input_as(s, 4, S4);
        *out = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        break;
    case OP_HARDTANH:
        a[n++] = input_as(s, 4, S4);
        a[n++] = gm_double(m, 0.0);
        a[n++] = gm_double(m, 6.0);
        *out = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        break;
    case OP_ADD:
        a[n++] = input_as(s, 4, S4);
        a[n++] = s->skip;
        a[n++] = gm_int(m, 1); /* alpha */
        *out = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        break;
    case OP_MAXPOOL: {
        a[n++] = input_as(s, 4, S4);
        a[n++] = gm_int_list(m, K3, 2);
        a[n++] = gm_int_list(m, ONE2, 2);
        a[n++] = gm_int_list(m, ONE2, 2);
        a[n++] = gm_int_list(m, ONE2, 2);
        a[n++] = gm_bool(m, 0); /* ceil_mode */
        *out = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        uint32_t idx = gm_tensor(m, GM_ST_LONG, 4, S4);
        a[n++] = *out, a[n++] = idx, a[n++] = *out, a[n++] = idx;
        return n;
    }
    case OP_PERMUTE:
        a[n++] = input_as(s, 4, S4);
        a[n++] = gm_int_list(m, NHWC_DIMS, 4);
        *out = gm_tensor(m, GM_ST_FLOAT, 4, S4_NHWC);
        break;
    default: { /* OP_ADDMM */
        static const int32_t ws[2] = {C, C}, bs[1] = {C};
        a[n++] = gm_const_tensor(p, m, GM_ST_FLOAT, 1, bs, NULL);
        a[n++] = input_as(s, 2, S2);
        a[n++] = gm_const_tensor(p, m, GM_ST_FLOAT, 2, ws, NULL);
        a[n++] = gm_int(m, 1); /* beta */
        a[n++] = gm_int(m, 1); /* alpha */
        *out = gm_tensor(m, GM_ST_FLOAT, 2, S2);
        break;
    }
    }
    a[n++] = *out; /* out= argument */
    a[n++] = *out; /* returned value */
    return n;
}

static const char *node_name(synth *s, uint8_t op)
{
    uint32_t n = s->op_count[op]++;
    const char *ovl = op == OP_ADD ? "tensor" : "default";
    if (!n)
        return gen_printf(&s->p->arena, "aten_%s_%s", OPS[op].op, ovl);
    return gen_printf(&s->p->arena, "aten_%s_%s_%u", OPS[op].op, ovl, n);
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
    n->stack_trace =
        gen_printf(&p->arena, "  File \"/home/dev/synth/model.py\", line %u, in forward\n    %s\n",
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

/* A lifted parameter of the layer about to be added. */
static const char *param(synth *s, const char *what, int rank, const int64_t *sizes)
{
    gm_program *p = s->p;
    const char *name = gen_printf(&p->arena, "p_layers_%u_%s", s->layer, what);
    gm_ginput_add(s->m, name, gen_printf(&p->arena, "layers.%u.%s", s->layer, what), 0);
    gm_tmeta_add(s->m, name, GM_DT_FLOAT, rank, sizes);
    return name;
}

/* The edge node of one KernelCall; returns its output tensor's name. */
static const char *kernel_node(synth *s, uint8_t op, int32_t h)
{
    gm_program *p = s->p;
    gm_method *m = s->m;
    static const int64_t wshape[4] = {C, C, 3, 3}, bshape[1] = {C}, lshape[2] = {C, C};
    const char *in = s->act_name, *wn = NULL, *bn = NULL;
    if (op == OP_CONV)
        wn = param(s, "weight", 4, wshape), bn = param(s, "bias", 1, bshape);
    else if (op == OP_ADDMM)
        wn = param(s, "weight", 2, lshape), bn = param(s, "bias", 1, bshape);
    /* max_pool's getitem nodes are folded into its named outputs */
    uint32_t k = s->op_count[op];
    gm_node *n = add_node(s, op, h);
    const char *out = out_of(n);
    switch (op) {
    case OP_CONV:
        gm_arg_tensor(n, "input", in);
        gm_arg_tensor(n, "weight", wn);
        gm_arg_tensor(n, "bias", bn);
        gm_arg_ints(n, "stride", ONE2, 2);
        gm_arg_ints(n, "padding", ONE2, 2);
        gm_arg_ints(n, "dilation", ONE2, 2);
        gm_arg_bool(n, "transposed", 0);
        gm_arg_ints(n, "output_padding", ZERO2, 2);
        gm_arg_int(n, "groups", 1);
        gm_tmeta_add(m, out, GM_DT_FLOAT, 4, L4);
        break;
    case OP_ADD:
        gm_arg_tensor(n, "self", in);
        gm_arg_tensor(n, "other", s->skip_name);
        gm_tmeta_add(m, out, GM_DT_FLOAT, 4, L4);
        break;
    case OP_MAXPOOL: {
        out = k ? gen_printf(&p->arena, "getitem_%u", 2 * k) : "getitem";
        const char *idx = gen_printf(&p->arena, "getitem_%u", 2 * k + 1);
        if (n) {
            n->nouts = 2;
            n->outs[0] = out;
            n->outs[1] = idx;
        }
        gm_arg_tensor(n, "self", in);
        gm_arg_ints(n, "kernel_size", K3, 2);
        gm_arg_ints(n, "stride", ONE2, 2);
        gm_arg_ints(n, "padding", ONE2, 2);
        gm_tmeta_add(m, out, GM_DT_FLOAT, 4, L4);
        gm_tmeta_add(m, idx, GM_DT_LONG, 4, L4);
        break;
    }
    case OP_PERMUTE:
        gm_arg_tensor(n, "self", in);
        gm_arg_ints(n, "dims", NHWC_DIMS, 4);
        gm_tmeta_add(m, out, GM_DT_FLOAT, 4, L4_NHWC);
        break;
    case OP_ADDMM:
        gm_arg_tensor(n, "self", bn);
        gm_arg_tensor(n, "mat1", in);
        gm_arg_tensor(n, "mat2", wn);
        gm_tmeta_add(m, out, GM_DT_FLOAT, 2, L2);
        break;
    default: /* relu, hardtanh */
        gm_arg_tensor(n, "self", in);
        gm_tmeta_add(m, out, GM_DT_FLOAT, 4, L4);
        break;
    }
    return out;
}

static void kernel(synth *s, uint8_t op, double scale)
{
    int32_t h = s->next_handle++;
    uint32_t a[16], out = 0;
    int n = s->values ? kernel_args(s, op, a, &out) : 0;
    const char *out_name = s->graph ? kernel_node(s, op, h) : NULL;
    uint32_t opi = gm_op(s->p, s->m, OPS[op].qualified, "out");
    gm_kernel(s->m, opi, a, n, &h, 1, OPS[op].base_us * 1000.0 * scale);
    if (op == OP_RELU || op == OP_MAXPOOL) {
        s->skip = out; /* the next residual add's shortcut */
        s->skip_name = out_name;
    }
    s->act = out;
    s->act_name = out_name;
}

/* A lowered region: 1-3 backend ops, each one edge node with its own handle.
 * The main PRNG stream is consumed the same way whichever files are
 * written, so the ETDump never depends on --pte / --etrecord. */
static void delegate(synth *s, double scale)
{
    gm_program *p = s->p;
    gm_method *m = s->m;
    int vulkan = s->o->backend == ETP_GEN_VULKAN;
    int ndev = (int)gen_range(&s->rng, 1, 3);
    uint32_t first = (uint32_t)gen_range(&s->rng, 0, NXNN - 1);
    int32_t handles[3];
    double weight[3], total_w = 0.0;
    for (int k = 0; k < ndev; k++) {
        uint8_t op = XNN_OPS[(first + (uint32_t)k) % NXNN].op;
        handles[k] = s->next_handle++;
        weight[k] = OPS[op].base_us * (0.5 + gen_unif(&s->rng));
        total_w += weight[k];
        if (s->graph) { /* the pre-lowering graph still has the delegated nodes */
            gm_node *node = add_node(s, op, handles[k]);
            gm_arg_tensor(node, "self", s->act_name);
            gm_tmeta_add(m, out_of(node), GM_DT_FLOAT, 4, L4);
            s->act_name = out_of(node);
        }
    }
    double base = total_w * 1000.0 * 0.6 * scale; /* backends beat portable kernels */
    uint32_t seg_len = (uint32_t)gen_range(&s->rng, 512, 4096);
    uint32_t di = (uint32_t)m->delegates.len;
    gm_delegate *d = gen_vec_push(&m->delegates);
    if (d)
        d->id = vulkan ? "VulkanBackend" : "XnnpackBackend";
    uint32_t a[2];
    int nargs = 0;
    if (s->values) {
        /* the compiled blob: a backend header magic, then opaque bytes */
        gen_rng br = gen_rng_make(s->o->seed, 0x424c4f42ull + di);
        uint8_t *blob = gen_alloc(&p->arena, seg_len);
        if (blob) {
            for (uint32_t k = 8; k < seg_len; k++)
                blob[k] = (uint8_t)gen_next(&br);
            memcpy(blob + 4, vulkan ? "VH00" : "XH00", 4);
        }
        if (d)
            d->segment = gm_segment_add(p, seg_len, blob);
        a[0] = input_as(s, 4, S4);
        a[1] = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        nargs = 2;
        s->act = a[1];
    }
    gm_delegate_call(m, di, a, nargs, handles, ndev, base, 1);
    for (int k = 0; k < ndev; k++) {
        const char *id = NULL;
        if (!vulkan)
            id = gen_printf(&p->arena, "%s #%d", XNN_OPS[(first + (uint32_t)k) % NXNN].xnn, k + 1);
        gm_dev_event(m, vulkan ? k : -1, id, weight[k] / total_w, &handles[k], 1);
    }
}

void etp_gen_etdump_defaults(etp_gen_etdump_opts *o)
{
    memset(o, 0, sizeof *o);
    o->executions = 5;
    o->instructions = 100;
    o->delegate_every = 10;
    o->seed = 1;
    o->backend = ETP_GEN_XNNPACK;
    o->time_scale = 1.0;
}

static etp_status build(gm_program *p, const etp_gen_etdump_opts *o, etp_gen_result *res)
{
    synth s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.o = o;
    s.values = o->pte_path != NULL;
    s.graph = o->etrecord_path != NULL;
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

    if (s.values) {
        s.act = s.skip = gm_tensor(m, GM_ST_FLOAT, 4, S4);
        int32_t in_idx = (int32_t)s.act;
        gen_vec_append(&m->inputs, &in_idx, 1);
    }
    if (s.graph) {
        s.act_name = s.skip_name = "x";
        gm_tmeta_add(m, "x", GM_DT_FLOAT, 4, L4);
    }
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
    if (s.values) {
        int32_t out_idx = (int32_t)s.act;
        gen_vec_append(&m->outputs, &out_idx, 1);
    }
    if (s.graph) {
        m->goutput = s.act_name;
        /* the user input comes after the lifted parameters, as torch.export orders them */
        gm_ginput_add(m, "x", NULL, 0);
    }
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

    double scale = o->time_scale == 0 ? 1.0 : o->time_scale;
    if (!(scale > 0 && scale <= 1e6)) /* also refuses NaN */
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "the time scale must be above 0 and at most 1e6");

    gm_program p;
    gm_init(&p);
    etp_status st = build(&p, o, res);
    if (st) {
        gm_free(&p);
        return etp_error_set(err, st, o->etdump_path, ETP_NO_OFFSET,
                             "out of memory building the model");
    }
    if (o->slow_factor > 0) {
        if (o->slow_instruction >= p.methods[0].instrs.len) {
            gm_free(&p);
            return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                                 "the slowed instruction %u is not among the %u instructions",
                                 o->slow_instruction, o->instructions);
        }
        ((gm_instr *)p.methods[0].instrs.items)[o->slow_instruction].base_ns *= o->slow_factor;
    }
    const gm_method *m = &p.methods[0];
    if (gm_etdump_estimate(m, o->executions) > (uint64_t)UINT32_MAX) {
        gm_free(&p);
        return etp_error_set(err, ETP_E_LIMIT, o->etdump_path, ETP_NO_OFFSET,
                             "an ETDump of %u executions x %u instructions would exceed the "
                             "format's 4 GiB limit",
                             o->executions, o->instructions);
    }
    gm_tensor_log tl;
    gm_etdump_opts eo = {m, o->executions, o->timing_seed ? o->timing_seed : o->seed, scale, NULL};
    if (o->debug_buffer_path) {
        st = gm_tensor_log_open(&tl, o->debug_buffer_path, o->tensor_elements, o->seed, o->perturb_instruction,
                                o->perturb, err);
        if (st) {
            gm_free(&p);
            return st;
        }
        eo.tensors = &tl;
    }
    st = gm_write_etdump(&p, &eo, o->etdump_path, &res->etdump_bytes, &res->events, err);
    if (eo.tensors) {
        etp_status cst = gm_tensor_log_close(&tl, err);
        if (!st)
            st = cst;
        res->debug_buffer_bytes = tl.offset;
        res->tensors = tl.tensors;
    }
    if (!st && o->pte_path)
        st = gm_write_pte(&p, o->pte_path, &res->pte_bytes, err);
    if (!st && o->etrecord_path)
        st = gm_write_etrecord(&p, o->etrecord_path, &res->etrecord_bytes, err);
    gm_free(&p);
    return st;
}
