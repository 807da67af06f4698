/* test_vgf.c - the VGF reader's public API on the real files, against the
 * byte-level facts of shared/specs/vgf.md 5.1 and 3.6 (read off the bytes
 * there, not from etprof), and byte damage that must fail cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/program.h"
#include "etprof/vgf.h"
#include "testutil.h"

static etp_program *prog;
static const etp_delegate *del;

static int setup(void **state)
{
    (void)state;
    etp_error err;
    if (etp_program_open(tu_fixture("pte-adapter/mobilenet_v2_vgf/input.pte"), &prog, &err))
        return -1;
    del = &prog->plans[0].delegates[0];
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    etp_program_free(prog);
    return 0;
}

static void delegate_payload(void **state)
{
    (void)state;
    assert_true(etp_vgf_is_delegate(del));
    assert_int_equal(del->location, 0);
    assert_int_equal(del->processed_size, 4003940);
    assert_int_equal(del->processed_offset, 112); /* 16-aligned, after its u32 length at 108 */
}

static void tables(void **state)
{
    (void)state;
    etp_error err;
    etp_vgf *v;
    assert_int_equal(etp_vgf_from_delegate(prog, del, &v, &err), ETP_OK);
    assert_int_equal(v->major * 10000 + v->minor * 100 + v->patch, 400);
    static const uint64_t sec[4][2] = {
        {128, 451664}, {451792, 764}, {452556, 6928}, {459484, 3544456}};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(v->sections[k].offset, sec[k][0]);
        assert_int_equal(v->sections[k].size, sec[k][1]);
    }
    assert_true(v->constants_raw);
    assert_int_equal(v->module_count, 1);
    const etp_vgf_module *m = &v->modules[0];
    assert_int_equal(m->type, ETP_VGF_GRAPH);
    assert_string_equal(m->name, "graph_partition_0");
    assert_string_equal(m->entry_point, "graph_partition_0");
    assert_int_equal(m->spirv_words, 112886);
    assert_int_equal(m->spirv_offset, 248);
    assert_int_equal(m->spirv[0], 0x07230203);
    assert_int_equal(v->segment_count, 1);
    const etp_vgf_segment *s = &v->segments[0];
    assert_string_equal(s->name, "graph_segment_0");
    assert_int_equal(s->set_count, 1);
    assert_int_equal(s->sets[0].set_index, ETP_VGF_UNSET);
    assert_int_equal(s->sets[0].effective_index, 0);
    assert_int_equal(s->sets[0].binding_count, 2);
    assert_int_equal(s->sets[0].bindings[1].mrt_index, 106);
    assert_int_equal(s->input_count, 1);
    assert_int_equal(s->inputs[0].mrt_index, 105);
    assert_int_equal(s->outputs[0].binding, 1);
    assert_int_equal(s->outputs[0].mrt_index, 106);
    assert_int_equal(s->constant_count, 105);
    for (uint32_t k = 0; k < 105; k++)
        assert_int_equal(s->constants[k], k);
    assert_true(s->has_dispatch_shape);
    assert_int_equal(s->dispatch_shape[0] | s->dispatch_shape[1] | s->dispatch_shape[2], 0);
    assert_int_equal(v->resource_count, 107);
    const etp_vgf_resource *in = &v->resources[105];
    assert_int_equal(in->category, ETP_VGF_INPUT);
    assert_int_equal(in->descriptor_type, 1000460000u);
    assert_int_equal(in->vk_format, 14);
    assert_int_equal(in->rank, 4);
    assert_int_equal(in->shape[1], 3);
    assert_int_equal(in->shape[3], 224);
    assert_int_equal(v->resources[106].category, ETP_VGF_OUTPUT);
    assert_int_equal(v->resources[106].shape[1], 1000);
    assert_int_equal(v->resources[0].descriptor_type, ETP_VGF_UNSET);
    assert_int_equal(v->constant_count, 105);
    assert_int_equal(v->constants[0].mrt_index, 0);
    assert_int_equal(v->constants[0].sparsity_dimension, -1);
    assert_int_equal(v->constants[0].size, 864);
    assert_int_equal(v->constants[0].offset, 459484 + 2536);
    assert_int_equal(v->input_name_count, 1);
    assert_string_equal(v->input_names[0], "tosa_deserialized_input_0:0");
    assert_string_equal(v->output_names[0], "tosa_deserialized_output_0:0");
    char b[24];
    assert_string_equal(etp_vgf_descriptor_type_name(in->descriptor_type, b),
                        "VK_DESCRIPTOR_TYPE_TENSOR_ARM");
    assert_string_equal(etp_vgf_descriptor_type_name(ETP_VGF_UNSET, b), "none");
    assert_string_equal(etp_vgf_format_name(14, b), "VK_FORMAT_R8_SINT");
    assert_string_equal(etp_vgf_format_name(5, b), "Unknown(5)");
    etp_vgf_free(v);
}

static void spirv_graph(void **state)
{
    (void)state;
    etp_error err;
    etp_vgf *v;
    assert_int_equal(etp_vgf_from_delegate(prog, del, &v, &err), ETP_OK);
    const etp_spv_module *m = v->modules[0].spv;
    assert_non_null(m);
    assert_int_equal(m->version, 0x00010500);
    assert_int_equal(m->generator, 0x00160016);
    assert_int_equal(m->bound, 18685);
    assert_int_equal(m->instruction_count, 18705);
    assert_string_equal(m->tosa_set, "TOSA.001000.1");
    assert_int_equal(m->variable_count, 2);
    assert_int_equal(m->graph_constant_count, 105);
    assert_string_equal(etp_spv_name_of(m, 11), "graph_partition_0_arg_0");
    assert_int_equal(m->graph_count, 1);
    const etp_spv_graph *g = &m->graphs[0];
    assert_string_equal(g->name, "graph_partition_0");
    assert_int_equal(g->input_count, 1);
    assert_int_equal(g->inputs[0].id, 21);
    assert_int_equal(g->output_count, 1);
    assert_int_equal(g->outputs[0].id, 18684);
    assert_int_equal(g->op_count, 184);
    static const char *const names[] = {"RESCALE", "CONV2D", "CLAMP", "DEPTHWISE_CONV2D",
                                        "ADD", "TRANSPOSE", "AVG_POOL2D", "RESHAPE"};
    static const uint32_t counts[] = {83, 36, 35, 17, 10, 1, 1, 1};
    for (int k = 0; k < 8; k++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < g->op_count; i++)
            n += g->ops[i].name && !strcmp(g->ops[i].name, names[k]);
        assert_int_equal(n, counts[k]);
    }
    const etp_spv_op *first = etp_spv_find_op(g, 18385);
    assert_ptr_equal(first, &g->ops[0]);
    assert_string_equal(first->name, "TRANSPOSE");
    assert_string_equal(first->label, "Transpose");
    char t[128];
    etp_spv_type_str(m, first->type_id, t, sizeof t);
    assert_string_equal(t, "!spirv.arm.tensor<1x224x224x3xi8>");
    assert_int_equal(first->operand_count, 2);
    assert_int_equal(first->operands[0].kind, ETP_SPV_CONSTANT);
    assert_true(first->operands[0].attribute);
    assert_string_equal(first->operands[0].role, "perms");
    etp_spv_values vals;
    assert_int_equal(etp_spv_constant_values(m, first->operands[0].id, 16, &vals, &err), ETP_OK);
    assert_int_equal(vals.count, 4);
    assert_int_equal(vals.ints[0] * 1000 + vals.ints[1] * 100 + vals.ints[2] * 10 + vals.ints[3],
                     231);
    free(vals.ints);
    free(vals.floats);
    assert_int_equal(first->operands[1].kind, ETP_SPV_GRAPH_INPUT);
    assert_int_equal(first->operands[1].id, 21);
    const etp_spv_op *last = etp_spv_find_op(g, 18684);
    assert_ptr_equal(last, &g->ops[183]);
    assert_string_equal(last->name, "RESHAPE");
    etp_spv_type_str(m, last->type_id, t, sizeof t);
    assert_string_equal(t, "!spirv.arm.tensor<1x1000xi8>");
    assert_int_equal(last->operands[0].kind, ETP_SPV_OP_RESULT);
    assert_int_equal(last->operands[0].id, g->ops[last->operands[0].index].result_id);
    assert_null(etp_spv_find_op(g, 21));
    /* Every op result id is found again by its id. */
    for (uint32_t i = 0; i < g->op_count; i++)
        assert_ptr_equal(etp_spv_find_op(g, g->ops[i].result_id), &g->ops[i]);
    etp_vgf_free(v);
}

static void legacy_file(void **state)
{
    (void)state;
    etp_error err;
    etp_vgf *v;
    assert_int_equal(etp_vgf_open(tu_fixture("vgf-adapter/mobilenet_v2/input.vgf"), &v, &err),
                     ETP_OK);
    assert_int_equal(v->minor, 3);
    assert_false(v->constants_raw);
    assert_int_equal(v->modules[0].spv->graphs[0].op_count, 199);
    assert_int_equal(v->constants[0].sparsity_dimension, -1); /* stored explicitly */
    etp_vgf_free(v);
}

/* Cut the VGF at many lengths and flip bytes in every section: an error or
 * a decode, never a crash (the sanitizer build checks the reads). */
static void damage(void **state)
{
    (void)state;
    size_t n = (size_t)del->processed_size;
    uint8_t *copy = malloc(n);
    assert_non_null(copy);
    etp_error err;
    etp_vgf *v;
    for (size_t cut = 0; cut < n; cut += cut < 4096 ? 7 : 65521) {
        if (etp_vgf_from_memory(del->processed, cut, "cut", 0, &v, &err) == ETP_OK)
            etp_vgf_free(v);
        else
            assert_true(err.message[0] != '\0');
    }
    uint64_t rng = 42;
    for (int round = 0; round < 300; round++) {
        memcpy(copy, del->processed, n);
        for (int k = 0; k < 8; k++) {
            /* Mostly the header and the tables and SPIR-V (the first 460 KB). */
            size_t at = (size_t)(tu_rand(&rng) % (round % 3 ? 460000 : n));
            copy[at] ^= (uint8_t)(1u << (tu_rand(&rng) % 8));
        }
        if (etp_vgf_from_memory(copy, n, "flipped", 0, &v, &err) == ETP_OK)
            etp_vgf_free(v);
    }
    free(copy);
}

int main(void)
{
    TU_REQUIRE_FIXTURES();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(delegate_payload), cmocka_unit_test(tables),
        cmocka_unit_test(spirv_graph), cmocka_unit_test(legacy_file), cmocka_unit_test(damage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
