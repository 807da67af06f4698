/* gen_vgf_companion.c - the ETRecord and the two-call program that
 * `etprof gen vgf-stats` writes beside its ETDumps (gen_vgf_companion.h).
 * Both are described as a gm_program and written by the shared writers. */
#include <string.h>

#include "gen/gen_model.h"
#include "gen/gen_vgf_companion.h"

/* An edge-dialect target for a TOSA op type: a plausible source of it. The
 * analysis never reads it to make a link (links come from the delegate map). */
static const char *target_for(const char *tosa_type)
{
    static const struct {
        const char *tosa, *target;
    } t[] = {
        {"Conv2D", "aten.convolution.default"},   {"DepthwiseConv2D", "aten.convolution.default"},
        {"Clamp", "aten.hardtanh.default"},       {"Add", "aten.add.Tensor"},
        {"AvgPool2D", "aten.avg_pool2d.default"}, {"Reshape", "aten.view_copy.default"},
        {"Transpose", "aten.permute_copy.default"},
    };
    for (size_t i = 0; tosa_type && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].tosa, tosa_type))
            return t[i].target;
    return "aten.linear.default";
}

static gm_node *source_node(gm_program *p, gm_method *m, const char *name, const char *target, int32_t handle,
                            const char *input)
{
    gm_node *n = gm_node_add(m, name, target, handle);
    if (!n)
        return NULL;
    gm_arg_tensor(n, "input", input);
    n->nouts = 1;
    n->outs[0] = name;
    n->stack_trace = gen_printf(&p->arena, "  File \"/home/dev/mobilenet/model.py\", line %d, in forward\n"
                                           "    x = self.features(x)\n",
                                40 + handle % 50);
    n->module_stack = "L__self__,,torchvision.models.mobilenetv2.MobileNetV2";
    static const int64_t one[4] = {1, 1, 1, 1};
    gm_tmeta_add(m, name, GM_DT_FLOAT, 4, one);
    return n;
}

etp_status gen_vgf_etrecord(const etp_spv_op *const *ops, uint32_t nops, const char *path, uint64_t *bytes,
                            etp_error *err)
{
    gm_program p;
    gm_init(&p);
    p.export_graph_id = 140234567890123;
    gm_method *m = gm_add_method(&p, "forward");
    etp_status st = ETP_OK;
    int32_t *node_of = NULL;
    if (!m || !(node_of = gen_alloc(&p.arena, (nops + 1) * sizeof *node_of))) {
        st = etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
        goto done;
    }
    m->encoded_inp = gm_encoded_inputs(&p, 1);
    m->encoded_out = gm_encoded_output();
    static const int64_t in_sizes[4] = {1, 3, 224, 224};
    gm_ginput_add(m, "x", NULL, 0);
    gm_tmeta_add(m, "x", GM_DT_FLOAT, 4, in_sizes);
    source_node(&p, m, "quantize_per_tensor_default", "quantized_decomposed.quantize_per_tensor.default", 1, "x");
    /* One source node per TOSA op, a Rescale sharing the node before it. */
    const char *prev = "quantize_per_tensor_default";
    int32_t nodes = 0;
    for (uint32_t k = 0; k < nops; k++) {
        const char *type = ops[k]->label;
        if (k && type && !strcmp(type, "Rescale")) {
            node_of[k] = node_of[k - 1];
            continue;
        }
        const char *tg = target_for(type);
        /* "aten.convolution.default" -> "convolution_<n>" */
        const char *b = strchr(tg, '.') + 1, *e = strchr(b, '.');
        char *name = gen_printf(&p.arena, "%.*s_%d", (int)(e - b), b, nodes);
        node_of[k] = 10 + nodes++;
        if (!name || !source_node(&p, m, name, tg, node_of[k], prev)) {
            st = etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
            goto done;
        }
        prev = name;
    }
    source_node(&p, m, "dequantize_per_tensor_default", "quantized_decomposed.dequantize_per_tensor.default", 2,
                prev);
    m->goutput = "dequantize_per_tensor_default";

    /* forward's chain, as the program has it */
    int32_t h = 1;
    gm_kernel(m, gm_op(&p, m, "quantized_decomposed::quantize_per_tensor", "out"), NULL, 0, &h, 1, 20000.0);
    gm_delegate *dg = gen_vec_push(&m->delegates);
    if (dg)
        dg->id = "VgfBackend";
    int32_t *all = gen_alloc(&p.arena, ((size_t)nodes + 1) * sizeof *all);
    for (int32_t i = 0; all && i < nodes; i++)
        all[i] = 10 + i;
    gm_delegate_call(m, 0, NULL, 0, all, nodes, 2000000.0, 1);
    for (uint32_t k = 0; k < nops; k++) {
        if (gen_vgf_unnamed(k))
            continue;
        if (gen_vgf_plain_label(k)) {
            gm_dev_event(m, -1, gen_printf(&p.arena, "model/op_%u", k), 0, &node_of[k], 1);
            if (m->devs.len)
                GEN_AT(&m->devs, gm_dev, m->devs.len - 1).map_str = 1;
        } else {
            gm_dev_event(m, (int32_t)ops[k]->result_id, NULL, 0, &node_of[k], 1);
        }
    }
    h = 2;
    gm_kernel(m, gm_op(&p, m, "quantized_decomposed::dequantize_per_tensor", "out"), NULL, 0, &h, 1, 5000.0);
    if (gm_failed(&p) || !all) {
        st = etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory");
        goto done;
    }
    st = gm_write_etrecord(&p, path, bytes, err);
done:
    gm_free(&p);
    return st;
}

etp_status gen_vgf_two_call_pte(const etp_delegate *d, const char *path, uint64_t *bytes, etp_error *err)
{
    gm_program p;
    gm_init(&p);
    gm_method *m = gm_add_method(&p, "forward");
    uint8_t *blob = d && d->processed ? gen_alloc(&p.arena, (size_t)d->processed_size) : NULL;
    if (!m || !blob) {
        gm_free(&p);
        return etp_error_set(err, d && d->processed ? ETP_E_NOMEM : ETP_E_USAGE, path, ETP_NO_OFFSET,
                             d && d->processed ? "out of memory" : "the VGF delegate has no payload to copy");
    }
    memcpy(blob, d->processed, (size_t)d->processed_size);
    m->encoded_inp = gm_encoded_inputs(&p, 1);
    m->encoded_out = gm_encoded_output();
    static const int32_t in_sizes[4] = {1, 3, 224, 224}, out_sizes[2] = {1, 1000};
    uint32_t x = gm_tensor(m, GM_ST_FLOAT, 4, in_sizes);
    int32_t xi = (int32_t)x;
    gen_vec_append(&m->inputs, &xi, 1);
    uint32_t q = gm_tensor(m, GM_ST_CHAR, 4, in_sizes);
    uint32_t qa[8] = {x, gm_double(m, 0.0187), gm_int(m, -14), gm_int(m, -128), gm_int(m, 127), gm_int(m, 1), q, q};
    int32_t h = 1;
    gm_kernel(m, gm_op(&p, m, "quantized_decomposed::quantize_per_tensor", "out"), qa, 8, &h, 1, 20000.0);
    gm_delegate *dg = gen_vec_push(&m->delegates);
    if (dg) {
        dg->id = "VgfBackend";
        dg->segment = gm_segment_add(&p, d->processed_size, blob);
    }
    /* The same delegate called twice, on the same input. */
    uint32_t y1 = gm_tensor(m, GM_ST_CHAR, 2, out_sizes), y2 = gm_tensor(m, GM_ST_CHAR, 2, out_sizes);
    uint32_t a1[2] = {q, y1}, a2[2] = {q, y2};
    gm_delegate_call(m, 0, a1, 2, NULL, 0, 2000000.0, 1);
    gm_delegate_call(m, 0, a2, 2, NULL, 0, 2000000.0, 1);
    uint32_t out = gm_tensor(m, GM_ST_FLOAT, 2, out_sizes);
    uint32_t da[9] = {y1, gm_double(m, 0.0711), gm_int(m, -60), gm_int(m, -128), gm_int(m, 127), gm_int(m, 1),
                      gm_int(m, 6), out, out};
    h = 2;
    gm_kernel(m, gm_op(&p, m, "quantized_decomposed::dequantize_per_tensor", "out"), da, 9, &h, 1, 5000.0);
    int32_t oi = (int32_t)out;
    gen_vec_append(&m->outputs, &oi, 1);
    etp_status st = gm_failed(&p) ? etp_error_set(err, ETP_E_NOMEM, path, ETP_NO_OFFSET, "out of memory")
                                  : gm_write_pte(&p, path, bytes, err);
    gm_free(&p);
    return st;
}
