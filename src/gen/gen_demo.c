/*
 * gen_demo.c - `etprof gen demo`: a small, fixed, consistent triple
 * (model.pte, model.etrecord, run.etdp) of this PyTorch model:
 *
 *   class DemoNet(nn.Module):                                  # model.py
 *       def forward(self, x):                                  # x: [1, 3, 16, 16]
 *           x = self.pool1(self.relu1(self.conv1(x)))          # line 24
 *           x = self.pool2(self.relu2(self.conv2(x)))          # line 25 (Vulkan)
 *           x = torch.flatten(x, 1)                            # line 26
 *           x = self.relu3(self.fc1(x))                        # line 27
 *           x = torch.addmm(self.fc2_bias, x, self.fc2_weight) # line 28
 *           return torch.softmax(x, dim=1)                     # line 29
 *       def preprocess(self, x):
 *           return (x - self.mean) / self.std                  # line 32
 *
 * forward's chain (instruction: kind, operator or backend, debug handle(s)):
 *   0 KernelCall   aten::convolution.out              1
 *   1 KernelCall   aten::relu.out                     2
 *   2 KernelCall   aten::max_pool2d_with_indices.out  3
 *   3 DelegateCall VulkanBackend                      [4, 5, 6]
 *   4 KernelCall   executorch_prim::et_view.default   10 (torch.flatten)
 *   5 KernelCall   aten::addmm.out                    7 (fc1)
 *   6 KernelCall   aten::relu.out                     8
 *   7 KernelCall   aten::addmm.out                    9
 *   8 KernelCall   aten::_softmax.out                 11
 * Vulkan's delegate map: id 0 -> [4] (conv2), 1 -> [5] (relu2), 2 -> [6]
 * (pool2): every operator has its own event, so no timing is shared. The
 * view aliases the delegate's output, so the delegate's output feeds the
 * rest of the chain (one connected graph). fc1's weight is transposed at
 * export (permute_copy, handle 12, folded into a constant: no instruction).
 * Every handle resolves: the demo's analysis is VALID with its declared
 * nanosecond ticks.
 * With ETP_GEN_DEMO_FLAWS (`etprof gen demo --flaws`) it is the variant that
 * shows the warnings instead: Vulkan's id 1 -> [5, 6] (relu2 + pool2 share
 * one event), fc1 as permute_copy + addmm sharing handle 7, the view without
 * an instruction (the graph drawn in two parts), and the softmax with
 * handle 12, which no node has.
 * preprocess: 0 aten::sub.out (handle 1), 1 aten::div.out (handle 2).
 */
#include <stdio.h>
#include <string.h>

#include "etprof/gen.h"
#include "gen/gen_model.h"

#define MODEL_PY "/home/dev/demo/model.py"
#define ROOT "L__self__,,model.DemoNet"

typedef struct demo {
    gm_program *p;
    gm_method *m;
    gen_rng rng;
    int flaws; /* ETP_GEN_DEMO_FLAWS: the variant with shared and unresolved timings */
} demo;

/* A node with the metadata torch.export records; @p line is the source
 * line, @p module the nn_module_stack tail (NULL: the root module only),
 * @p src the source_fn_stack, @p from "name,target" of the ATen node it
 * was decomposed from. */
static gm_node *node(demo *d, const char *name, const char *target, int32_t handle, int line,
                     const char *code, const char *module, const char *src, const char *from)
{
    gm_program *p = d->p;
    gm_node *n = gm_node_add(d->m, name, target, handle);
    if (!n)
        return NULL;
    n->stack_trace = gen_printf(&p->arena,
                                "  File \"" MODEL_PY "\", line %d, in %s\n    %s\n", line,
                                d->m->name, code);
    n->module_stack = module ? gen_printf(&p->arena, ROOT ";%s", module) : ROOT;
    n->source_fn = src;
    if (from) {
        const char *comma = strchr(from, ',');
        int nlen = comma ? (int)(comma - from) : (int)strlen(from);
        n->from_node = gen_printf(
            &p->arena,
            "[{\"name\": \"%.*s\", \"target\": \"%s\", \"graph_id\": %lld, "
            "\"pass_name\": \"ExportedProgram.module().run_decompositions()\", "
            "\"action\": [\"replace\"], \"from_node\": []}]",
            nlen, from, comma ? comma + 1 : "", (long long)p->export_graph_id);
    }
    n->nouts = 1;
    n->outs[0] = name;
    return n;
}

static void meta(demo *d, const char *name, int dtype, int rank, int64_t a, int64_t b, int64_t c,
                 int64_t e)
{
    int64_t s[4] = {a, b, c, e};
    gm_tmeta_add(d->m, name, dtype, rank, s);
}

static void param(demo *d, const char *name, const char *fqn, int rank, int64_t a, int64_t b,
                  int64_t c, int64_t e)
{
    gm_ginput_add(d->m, name, fqn, 0);
    meta(d, name, GM_DT_FLOAT, rank, a, b, c, e);
}

static uint32_t ilist2(gm_method *m, int64_t a, int64_t b)
{
    int64_t v[2] = {a, b};
    return gm_int_list(m, v, 2);
}

static void build_forward(demo *d)
{
    gm_program *p = d->p;
    gm_method *m = d->m = gm_add_method(p, "forward");
    gen_rng *r = &d->rng;
    m->encoded_inp = gm_encoded_inputs(p, 1);
    m->encoded_out = gm_encoded_output();
    static const int64_t one2[2] = {1, 1}, zero2[2] = {0, 0}, two2[2] = {2, 2};

    /* ---- program values and instructions ---- */
    int32_t xs[4] = {1, 3, 16, 16};
    uint32_t x = gm_tensor(m, GM_ST_FLOAT, 4, xs);
    int32_t in_idx = (int32_t)x;
    gen_vec_append(&m->inputs, &in_idx, 1);

    int32_t w1s[4] = {8, 3, 3, 3}, b1s[1] = {8}, c1s[4] = {1, 8, 16, 16};
    uint32_t w1 = gm_const_tensor(p, m, GM_ST_FLOAT, 4, w1s, r);
    uint32_t b1 = gm_const_tensor(p, m, GM_ST_FLOAT, 1, b1s, r);
    uint32_t a0[11] = {x, w1, b1, ilist2(m, 1, 1), ilist2(m, 1, 1), ilist2(m, 1, 1),
                       gm_bool(m, 0), ilist2(m, 0, 0), gm_int(m, 1), 0, 0};
    uint32_t c1 = gm_tensor(m, GM_ST_FLOAT, 4, c1s);
    a0[9] = a0[10] = c1;
    int32_t h = 1;
    gm_kernel(m, gm_op(p, m, "aten::convolution", "out"), a0, 11, &h, 1, 310000.0);

    uint32_t r1 = gm_tensor(m, GM_ST_FLOAT, 4, c1s);
    uint32_t a1[3] = {c1, r1, r1};
    h = 2;
    gm_kernel(m, gm_op(p, m, "aten::relu", "out"), a1, 3, &h, 1, 9000.0);

    int32_t p1s[4] = {1, 8, 8, 8};
    uint32_t a2[10] = {r1, ilist2(m, 2, 2), ilist2(m, 2, 2), ilist2(m, 0, 0), ilist2(m, 1, 1),
                       gm_bool(m, 0)};
    uint32_t p1 = gm_tensor(m, GM_ST_FLOAT, 4, p1s);
    uint32_t i1 = gm_tensor(m, GM_ST_LONG, 4, p1s);
    a2[6] = p1, a2[7] = i1, a2[8] = p1, a2[9] = i1;
    h = 3;
    gm_kernel(m, gm_op(p, m, "aten::max_pool2d_with_indices", "out"), a2, 10, &h, 1, 42000.0);

    /* The Vulkan delegate: conv2 + relu2 + pool2, blob in a segment. */
    uint32_t seg_len = 1536;
    uint8_t *blob = gen_alloc(&p->arena, seg_len);
    if (blob) {
        for (uint32_t k = 8; k < seg_len; k++)
            blob[k] = (uint8_t)gen_next(r);
        memcpy(blob + 4, "VH00", 4);
    }
    gm_delegate *dg = gen_vec_push(&m->delegates);
    if (dg) {
        static const uint8_t storage[4] = {1, 0, 0, 0};     /* TEXTURE_3D */
        static const uint8_t limit_x[4] = {0, 0x40, 0, 0};  /* 16384 */
        dg->id = "VulkanBackend";
        dg->segment = gm_segment_add(p, seg_len, blob);
        dg->nspecs = 2;
        dg->spec_key[0] = "storage_type_override";
        dg->spec_val[0] = storage;
        dg->spec_len[0] = 4;
        dg->spec_key[1] = "texture_limits_x";
        dg->spec_val[1] = limit_x;
        dg->spec_len[1] = 4;
    }
    int32_t p2s[4] = {1, 16, 4, 4};
    uint32_t p2 = gm_tensor(m, GM_ST_FLOAT, 4, p2s);
    uint32_t a3[2] = {p1, p2};
    int32_t dh[3] = {4, 5, 6};
    gm_delegate_call(m, 0, a3, 2, dh, 3, 180000.0, 1);
    int32_t vs[2] = {1, 256};
    uint32_t flat;
    if (d->flaws) {
        /* relu2 + pool2 share one event; the view has no instruction */
        gm_dev_event(m, 0, NULL, 0.72, &dh[0], 1);
        gm_dev_event(m, 1, NULL, 0.28, &dh[1], 2);
        flat = gm_view(m, p2, 2, vs);
    } else {
        gm_dev_event(m, 0, NULL, 0.72, &dh[0], 1);
        gm_dev_event(m, 1, NULL, 0.08, &dh[1], 1);
        gm_dev_event(m, 2, NULL, 0.20, &dh[2], 1);
        /* torch.flatten: a view of the delegate's output (et_view, as the
         * ExecuTorch emitter writes a memory.view) */
        flat = gm_view(m, p2, 2, vs);
        static const int64_t flat_dims[2] = {1, 256};
        uint32_t av[3] = {p2, gm_int_list(m, flat_dims, 2), flat};
        h = 10;
        gm_kernel(m, gm_op(p, m, "executorch_prim::et_view", "default"), av, 3, &h, 1, 300.0);
    }
    int32_t fw1s[2] = {256, 32}, fb1s[1] = {32}, f1s[2] = {1, 32};
    uint32_t fb1 = gm_const_tensor(p, m, GM_ST_FLOAT, 1, fb1s, r);
    uint32_t fw1 = gm_const_tensor(p, m, GM_ST_FLOAT, 2, fw1s, r); /* permute folded */
    uint32_t f1 = gm_tensor(m, GM_ST_FLOAT, 2, f1s);
    uint32_t a4[7] = {fb1, flat, fw1, gm_int(m, 1), gm_int(m, 1), f1, f1};
    h = 7;
    gm_kernel(m, gm_op(p, m, "aten::addmm", "out"), a4, 7, &h, 1, 28000.0);

    uint32_t r3 = gm_tensor(m, GM_ST_FLOAT, 2, f1s);
    uint32_t a5[3] = {f1, r3, r3};
    h = 8;
    gm_kernel(m, gm_op(p, m, "aten::relu", "out"), a5, 3, &h, 1, 400.0);

    int32_t fw2s[2] = {32, 10}, fb2s[1] = {10}, f2s[2] = {1, 10};
    uint32_t fb2 = gm_const_tensor(p, m, GM_ST_FLOAT, 1, fb2s, r);
    uint32_t fw2 = gm_const_tensor(p, m, GM_ST_FLOAT, 2, fw2s, r);
    uint32_t f2 = gm_tensor(m, GM_ST_FLOAT, 2, f2s);
    uint32_t a6[7] = {fb2, r3, fw2, gm_int(m, 1), gm_int(m, 1), f2, f2};
    h = 9;
    gm_kernel(m, gm_op(p, m, "aten::addmm", "out"), a6, 7, &h, 1, 3100.0);

    uint32_t sm = gm_tensor(m, GM_ST_FLOAT, 2, f2s);
    uint32_t a7[5] = {f2, gm_int(m, 1), gm_bool(m, 0), sm, sm};
    h = d->flaws ? 12 : 11; /* flaws: a handle no node has */
    gm_kernel(m, gm_op(p, m, "aten::_softmax", "out"), a7, 5, &h, 1, 2500.0);
    int32_t out_idx = (int32_t)sm;
    gen_vec_append(&m->outputs, &out_idx, 1);

    /* ---- the edge graph, recorded before lowering ---- */
    param(d, "p_conv1_weight", "conv1.weight", 4, 8, 3, 3, 3);
    param(d, "p_conv1_bias", "conv1.bias", 1, 8, 0, 0, 0);
    param(d, "p_conv2_weight", "conv2.weight", 4, 16, 8, 3, 3);
    param(d, "p_conv2_bias", "conv2.bias", 1, 16, 0, 0, 0);
    param(d, "p_fc1_weight", "fc1.weight", 2, 32, 256, 0, 0);
    param(d, "p_fc1_bias", "fc1.bias", 1, 32, 0, 0, 0);
    param(d, "p_fc2_weight", "fc2_weight", 2, 32, 10, 0, 0);
    param(d, "p_fc2_bias", "fc2_bias", 1, 10, 0, 0, 0);
    gm_ginput_add(m, "x", NULL, 0);
    meta(d, "x", GM_DT_FLOAT, 4, 1, 3, 16, 16);

    static const char l24[] = "x = self.pool1(self.relu1(self.conv1(x)))";
    static const char l25[] = "x = self.pool2(self.relu2(self.conv2(x)))";
    static const char l27[] = "x = self.relu3(self.fc1(x))";
    gm_node *n = node(d, "aten_convolution_default", "aten.convolution.default", 1, 24, l24,
                      "L__self___conv1,conv1,torch.nn.modules.conv.Conv2d",
                      "conv1,torch.nn.modules.conv.Conv2d", "conv2d,aten.conv2d.default");
    gm_arg_tensor(n, "input", "x");
    gm_arg_tensor(n, "weight", "p_conv1_weight");
    gm_arg_tensor(n, "bias", "p_conv1_bias");
    gm_arg_ints(n, "stride", one2, 2);
    gm_arg_ints(n, "padding", one2, 2);
    gm_arg_ints(n, "dilation", one2, 2);
    gm_arg_bool(n, "transposed", 0);
    gm_arg_ints(n, "output_padding", zero2, 2);
    gm_arg_int(n, "groups", 1);
    meta(d, "aten_convolution_default", GM_DT_FLOAT, 4, 1, 8, 16, 16);

    n = node(d, "aten_relu_default", "aten.relu.default", 2, 24, l24,
             "L__self___relu1,relu1,torch.nn.modules.activation.ReLU",
             "relu1,torch.nn.modules.activation.ReLU", "relu,aten.relu.default");
    gm_arg_tensor(n, "self", "aten_convolution_default");
    meta(d, "aten_relu_default", GM_DT_FLOAT, 4, 1, 8, 16, 16);

    n = node(d, "aten_max_pool2d_with_indices_default", "aten.max_pool2d_with_indices.default", 3,
             24, l24, "L__self___pool1,pool1,torch.nn.modules.pooling.MaxPool2d",
             "pool1,torch.nn.modules.pooling.MaxPool2d", "max_pool2d,aten.max_pool2d.default");
    gm_arg_tensor(n, "self", "aten_relu_default");
    gm_arg_ints(n, "kernel_size", two2, 2);
    gm_arg_ints(n, "stride", two2, 2);
    if (n) {
        n->nouts = 2;
        n->outs[0] = "getitem";
        n->outs[1] = "getitem_1";
    }
    meta(d, "getitem", GM_DT_FLOAT, 4, 1, 8, 8, 8);
    meta(d, "getitem_1", GM_DT_LONG, 4, 1, 8, 8, 8);

    n = node(d, "aten_convolution_default_1", "aten.convolution.default", 4, 25, l25,
             "L__self___conv2,conv2,torch.nn.modules.conv.Conv2d",
             "conv2,torch.nn.modules.conv.Conv2d", "conv2d_1,aten.conv2d.default");
    gm_arg_tensor(n, "input", "getitem");
    gm_arg_tensor(n, "weight", "p_conv2_weight");
    gm_arg_tensor(n, "bias", "p_conv2_bias");
    gm_arg_ints(n, "stride", one2, 2);
    gm_arg_ints(n, "padding", one2, 2);
    gm_arg_ints(n, "dilation", one2, 2);
    gm_arg_bool(n, "transposed", 0);
    gm_arg_ints(n, "output_padding", zero2, 2);
    gm_arg_int(n, "groups", 1);
    meta(d, "aten_convolution_default_1", GM_DT_FLOAT, 4, 1, 16, 8, 8);

    n = node(d, "aten_relu_default_1", "aten.relu.default", 5, 25, l25,
             "L__self___relu2,relu2,torch.nn.modules.activation.ReLU",
             "relu2,torch.nn.modules.activation.ReLU", "relu_1,aten.relu.default");
    gm_arg_tensor(n, "self", "aten_convolution_default_1");
    meta(d, "aten_relu_default_1", GM_DT_FLOAT, 4, 1, 16, 8, 8);

    n = node(d, "aten_max_pool2d_with_indices_default_1", "aten.max_pool2d_with_indices.default",
             6, 25, l25, "L__self___pool2,pool2,torch.nn.modules.pooling.MaxPool2d",
             "pool2,torch.nn.modules.pooling.MaxPool2d", "max_pool2d_1,aten.max_pool2d.default");
    gm_arg_tensor(n, "self", "aten_relu_default_1");
    gm_arg_ints(n, "kernel_size", two2, 2);
    gm_arg_ints(n, "stride", two2, 2);
    if (n) {
        n->nouts = 2;
        n->outs[0] = "getitem_2";
        n->outs[1] = "getitem_3";
    }
    meta(d, "getitem_2", GM_DT_FLOAT, 4, 1, 16, 4, 4);
    meta(d, "getitem_3", GM_DT_LONG, 4, 1, 16, 4, 4);

    static const int64_t flat_size[2] = {1, 256}, perm[2] = {1, 0};
    n = node(d, "aten_view_copy_default", "aten.view_copy.default", 10, 26,
             "x = torch.flatten(x, 1)", NULL, "flatten,torch.flatten",
             "flatten,aten.flatten.using_ints");
    gm_arg_tensor(n, "self", "getitem_2");
    gm_arg_ints(n, "size", flat_size, 2);
    meta(d, "aten_view_copy_default", GM_DT_FLOAT, 2, 1, 256, 0, 0);

    /* fc1 = linear, decomposed into permute_copy + addmm; the permute of a
     * weight is folded into a constant when lowered, so its handle (12)
     * names no instruction and only the addmm is timed */
    n = node(d, "aten_permute_copy_default", "aten.permute_copy.default", d->flaws ? 7 : 12, 27,
             l27,
             "L__self___fc1,fc1,torch.nn.modules.linear.Linear",
             "fc1,torch.nn.modules.linear.Linear", "linear,aten.linear.default");
    gm_arg_tensor(n, "self", "p_fc1_weight");
    gm_arg_ints(n, "dims", perm, 2);
    meta(d, "aten_permute_copy_default", GM_DT_FLOAT, 2, 256, 32, 0, 0);

    n = node(d, "aten_addmm_default", "aten.addmm.default", 7, 27, l27,
             "L__self___fc1,fc1,torch.nn.modules.linear.Linear",
             "fc1,torch.nn.modules.linear.Linear", "linear,aten.linear.default");
    gm_arg_tensor(n, "self", "p_fc1_bias");
    gm_arg_tensor(n, "mat1", "aten_view_copy_default");
    gm_arg_tensor(n, "mat2", "aten_permute_copy_default");
    meta(d, "aten_addmm_default", GM_DT_FLOAT, 2, 1, 32, 0, 0);

    n = node(d, "aten_relu_default_2", "aten.relu.default", 8, 27, l27,
             "L__self___relu3,relu3,torch.nn.modules.activation.ReLU",
             "relu3,torch.nn.modules.activation.ReLU", "relu_2,aten.relu.default");
    gm_arg_tensor(n, "self", "aten_addmm_default");
    meta(d, "aten_relu_default_2", GM_DT_FLOAT, 2, 1, 32, 0, 0);

    n = node(d, "aten_addmm_default_1", "aten.addmm.default", 9, 28,
             "x = torch.addmm(self.fc2_bias, x, self.fc2_weight)", NULL, "addmm,torch.addmm",
             "addmm,aten.addmm.default");
    gm_arg_tensor(n, "self", "p_fc2_bias");
    gm_arg_tensor(n, "mat1", "aten_relu_default_2");
    gm_arg_tensor(n, "mat2", "p_fc2_weight");
    meta(d, "aten_addmm_default_1", GM_DT_FLOAT, 2, 1, 10, 0, 0);

    n = node(d, "aten__softmax_default", "aten._softmax.default", 11, 29,
             "return torch.softmax(x, dim=1)", NULL, "softmax,torch.softmax",
             "softmax,aten.softmax.int");
    gm_arg_tensor(n, "self", "aten_addmm_default_1");
    gm_arg_int(n, "dim", 1);
    gm_arg_bool(n, "half_to_float", 0);
    meta(d, "aten__softmax_default", GM_DT_FLOAT, 2, 1, 10, 0, 0);
    m->goutput = "aten__softmax_default";
}

static void build_preprocess(demo *d)
{
    gm_program *p = d->p;
    gm_method *m = d->m = gm_add_method(p, "preprocess");
    gen_rng *r = &d->rng;
    m->encoded_inp = gm_encoded_inputs(p, 1);
    m->encoded_out = gm_encoded_output();
    int32_t xs[4] = {1, 3, 16, 16}, cs[3] = {3, 1, 1};
    uint32_t x = gm_tensor(m, GM_ST_FLOAT, 4, xs);
    int32_t in_idx = (int32_t)x;
    gen_vec_append(&m->inputs, &in_idx, 1);
    uint32_t mean = gm_const_tensor(p, m, GM_ST_FLOAT, 3, cs, r);
    uint32_t std = gm_const_tensor(p, m, GM_ST_FLOAT, 3, cs, r);
    uint32_t s = gm_tensor(m, GM_ST_FLOAT, 4, xs);
    uint32_t a0[5] = {x, mean, gm_int(m, 1), s, s};
    int32_t h = 1;
    gm_kernel(m, gm_op(p, m, "aten::sub", "out"), a0, 5, &h, 1, 6000.0);
    uint32_t q = gm_tensor(m, GM_ST_FLOAT, 4, xs);
    uint32_t a1[4] = {s, std, q, q};
    h = 2;
    gm_kernel(m, gm_op(p, m, "aten::div", "out"), a1, 4, &h, 1, 7000.0);
    int32_t out_idx = (int32_t)q;
    gen_vec_append(&m->outputs, &out_idx, 1);

    gm_ginput_add(m, "b_mean", "mean", 1);
    gm_ginput_add(m, "b_std", "std", 1);
    gm_ginput_add(m, "x", NULL, 0);
    meta(d, "b_mean", GM_DT_FLOAT, 3, 3, 1, 1, 0);
    meta(d, "b_std", GM_DT_FLOAT, 3, 3, 1, 1, 0);
    meta(d, "x", GM_DT_FLOAT, 4, 1, 3, 16, 16);
    static const char l32[] = "return (x - self.mean) / self.std";
    gm_node *n = node(d, "aten_sub_tensor", "aten.sub.Tensor", 1, 32, l32, NULL,
                      "sub,operator.sub", "sub,aten.sub.Tensor");
    gm_arg_tensor(n, "self", "x");
    gm_arg_tensor(n, "other", "b_mean");
    meta(d, "aten_sub_tensor", GM_DT_FLOAT, 4, 1, 3, 16, 16);
    n = node(d, "aten_div_tensor", "aten.div.Tensor", 2, 32, l32, NULL, "truediv,operator.truediv",
             "div,aten.div.Tensor");
    gm_arg_tensor(n, "self", "aten_sub_tensor");
    gm_arg_tensor(n, "other", "b_std");
    meta(d, "aten_div_tensor", GM_DT_FLOAT, 4, 1, 3, 16, 16);
    m->goutput = "aten_div_tensor";
}

etp_status etp_gen_demo(const char *dir, uint32_t executions, uint64_t seed, etp_gen_result *res,
                        etp_error *err)
{
    return etp_gen_demo_ex(dir, executions, seed, 0, res, err);
}

etp_status etp_gen_demo_ex(const char *dir, uint32_t executions, uint64_t seed, unsigned flags,
                           etp_gen_result *res, etp_error *err)
{
    etp_gen_result local;
    if (!res)
        res = &local;
    memset(res, 0, sizeof *res);
    if (!dir || !*dir)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "no output directory");
    char pte[4096], etr[4096], etd[4096];
    if (snprintf(pte, sizeof pte, "%s/model.pte", dir) >= (int)sizeof pte ||
        snprintf(etr, sizeof etr, "%s/model.etrecord", dir) >= (int)sizeof etr ||
        snprintf(etd, sizeof etd, "%s/run.etdp", dir) >= (int)sizeof etd)
        return etp_error_set(err, ETP_E_USAGE, dir, ETP_NO_OFFSET, "directory path too long");

    gm_program p;
    gm_init(&p);
    demo d = {&p, NULL, gen_rng_make(seed, 0x44454d4f), (flags & ETP_GEN_DEMO_FLAWS) != 0}; /* "DEMO" */
    p.export_graph_id = 140234567890128ll;
    p.load_ns = 61000.0;
    build_forward(&d);
    build_preprocess(&d);
    if (gm_failed(&p)) {
        gm_free(&p);
        return etp_error_set(err, ETP_E_NOMEM, dir, ETP_NO_OFFSET, "out of memory building demo");
    }
    const gm_method *fwd = &p.methods[0];
    res->kernel_calls = d.flaws ? 7 : 8;
    res->delegate_calls = 1;
    gm_etdump_opts eo = {fwd, executions, seed, 1.0, NULL};
    etp_status st = gm_write_pte(&p, pte, &res->pte_bytes, err);
    if (!st)
        st = gm_write_etrecord(&p, etr, &res->etrecord_bytes, err);
    if (!st)
        st = gm_write_etdump(&p, &eo, etd, &res->etdump_bytes, &res->events, err);
    gm_free(&p);
    return st;
}
