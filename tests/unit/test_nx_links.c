/* test_nx_links.c - NX ops linked to source operators through the ETRecord's
 * delegate map (etp_nx_link_sources): a link only where a delegate debug
 * identifier is the op's SPIR-V result id or one of its labels, and each
 * kind of missing link with its own reason. The ETRecord is written by the
 * generators' model writer; every expected value is read off the small
 * tables below by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/etrecord.h"
#include "etprof/nx_stats.h"
#include "gen/gen_model.h"
#include "testutil.h"

/* One chain (30) of three TOSA ops: 10 names SPIR-V id 504, 11 id 505, 12
 * only a plain label. */
static const char ddb_text[] = "id\ttosa_op\tapi_labels\n"
                               "10\tConv2D\tTOSACONV2D_spirv_id_504;\n"
                               "11\tAdd\tTOSAADD_spirv_id_505;\n"
                               "12\tClamp\tmodel/relu\n"
                               "----\nid\tapi_label\n100\tx\n----\nid\ttosa_op_ids\n20\t10;11;12\n----\n"
                               "id\tfused_op_ids\n30\t20\n----\nid\tcascade_op_ids\n40\t30\n----\n"
                               "id\top_id\tcascade_op_id\n0\t30\t40\n----\nid\tstripe_op_id\n0\t0\n";

/* forward: 0 KernelCall (handle 1); 1 DelegateCall VgfBackend whose map says
 * "504" -> [7], "model/relu" -> [8], "505" -> [99] (no node has 99); 2 the
 * same delegate with an empty map; 3 KernelCall (no delegate_map entry).
 * Nodes: conv (7), relu_a and relu_b (both 8), quant (1). */
static char *write_etrecord(const char *dir)
{
    gm_program p;
    gm_init(&p);
    gm_method *m = gm_add_method(&p, "forward");
    assert_non_null(m);
    m->encoded_inp = gm_encoded_inputs(&p, 1);
    m->encoded_out = gm_encoded_output();
    static const int64_t one[4] = {1, 1, 1, 1};
    gm_ginput_add(m, "x", NULL, 0);
    gm_tmeta_add(m, "x", GM_DT_FLOAT, 4, one);
    const char *names[4] = {"quant", "conv", "relu_a", "relu_b"};
    const int32_t handles[4] = {1, 7, 8, 8};
    const char *prev = "x";
    for (int i = 0; i < 4; i++) {
        gm_node *n = gm_node_add(m, names[i], "aten.relu.default", handles[i]);
        assert_non_null(n);
        gm_arg_tensor(n, "input", prev);
        n->nouts = 1;
        n->outs[0] = names[i];
        gm_tmeta_add(m, names[i], GM_DT_FLOAT, 4, one);
        prev = names[i];
    }
    m->goutput = prev;
    int32_t h = 1;
    gm_kernel(m, gm_op(&p, m, "aten::relu", "out"), NULL, 0, &h, 1, 1000.0);
    gm_delegate *d = gen_vec_push(&m->delegates);
    assert_non_null(d);
    d->id = "VgfBackend";
    const int32_t all[2] = {7, 8}, h7 = 7, h8 = 8, h99 = 99;
    gm_delegate_call(m, 0, NULL, 0, all, 2, 1000.0, 1);
    gm_dev_event(m, 504, NULL, 0, &h7, 1);
    gm_dev_event(m, -1, "model/relu", 0, &h8, 1);
    GEN_AT(&m->devs, gm_dev, m->devs.len - 1).map_str = 1;
    gm_dev_event(m, 505, NULL, 0, &h99, 1);
    gm_delegate_call(m, 0, NULL, 0, all, 2, 1000.0, 1);
    gm_kernel(m, gm_op(&p, m, "aten::relu", "out"), NULL, 0, &h, 1, 1000.0);
    assert_false(gm_failed(&p));
    char *path = malloc(strlen(dir) + 32);
    assert_non_null(path);
    sprintf(path, "%s/links.etrecord", dir);
    etp_error err;
    if (gm_write_etrecord(&p, path, NULL, &err))
        fail_msg("%s", err.message);
    gm_free(&p);
    return path;
}

/* The NX result: the same segment (one stripe of chain 30) at instructions 1, 2, 3. */
static etp_nx_result *nx_result(void)
{
    etp_nx_result *r;
    etp_error err;
    assert_int_equal(etp_nx_result_new(&r), ETP_OK);
    r->settings.device = ETP_NX_MALI_G2;
    r->settings.mode = 1;
    r->settings.layout = etp_nx_layout_get(ETP_NX_MALI_G2, 1);
    r->settings.leading_blocks = 1;
    r->have_settings = 1;
    etp_nx_ddb *ddb;
    assert_int_equal(etp_nx_ddb_parse((const uint8_t *)ddb_text, sizeof ddb_text - 1, NULL, 0, "t", &ddb, &err),
                     ETP_OK);
    uint64_t ctr[64] = {0};
    etp_nx_stripe st;
    memset(&st, 0, sizeof st);
    st.id = 0;
    st.chain = "30";
    st.cascade = "40";
    st.op_cycles = st.total_cycles = 100;
    st.counters = ctr;
    etp_nx_decoded dec;
    memset(&dec, 0, sizeof dec);
    dec.layout = r->settings.layout;
    dec.stripes = &st;
    dec.stripe_count = 1;
    for (int32_t instr = 1; instr <= 3; instr++)
        if (etp_nx_add_segment(r, 0, instr, 0, &dec, ddb, &err))
            fail_msg("%s", err.message);
    assert_int_equal(etp_nx_finish(r, &err), ETP_OK);
    etp_nx_ddb_free(ddb);
    return r;
}

static const etp_nx_entity *chain_of(const etp_nx_result *r, int32_t instr)
{
    for (uint32_t i = 0; i < r->entity_count; i++)
        if (r->entities[i].kind == ETP_NX_CHAIN && r->entities[i].instruction_id == instr)
            return &r->entities[i];
    fail_msg("no chain at instruction %d", (int)instr);
    return NULL;
}

static const etp_nx_op *op_of(const etp_nx_entity *e, const char *tosa)
{
    for (uint32_t k = 0; k < e->op_count; k++)
        if (!strcmp(e->ops[k].tosa_id, tosa))
            return &e->ops[k];
    fail_msg("no TOSA op %s in %s", tosa, e->id);
    return NULL;
}

static void links_and_reasons(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = write_etrecord(dir);
    etp_etrecord *rec = NULL;
    etp_error err;
    if (etp_etrecord_open(path, &rec, &err))
        fail_msg("%s", err.message);
    etp_nx_result *r = nx_result();
    assert_int_equal(etp_nx_link_sources(r, rec, "forward", &err), ETP_OK);

    /* Instruction 1: 504 -> conv; 505 -> handle 99, no node; the label -> both handle-8 nodes. */
    const etp_nx_entity *c1 = chain_of(r, 1);
    const etp_nx_op *o10 = op_of(c1, "10"), *o11 = op_of(c1, "11"), *o12 = op_of(c1, "12");
    assert_int_equal(o10->source_handle_count, 1);
    assert_int_equal(o10->source_handles[0], 7);
    assert_int_equal(o10->source_node_count, 1);
    assert_string_equal(o10->source_nodes[0], "conv");
    assert_null(o10->source_link_reason);
    assert_int_equal(o11->source_handle_count, 1);
    assert_int_equal(o11->source_handles[0], 99);
    assert_int_equal(o11->source_node_count, 0);
    assert_non_null(strstr(o11->source_link_reason, "match no node"));
    assert_int_equal(o12->spirv_id, -1); /* the label names no SPIR-V id, the map names the label */
    assert_int_equal(o12->source_node_count, 2);
    assert_string_equal(o12->source_nodes[0], "relu_a");
    assert_string_equal(o12->source_nodes[1], "relu_b");
    assert_int_equal(c1->source_node_count, 3);
    assert_string_equal(c1->source_nodes[0], "conv");
    assert_string_equal(c1->source_nodes[2], "relu_b");
    /* Instruction 2: an entry that names nothing; 3: no entry at all. */
    const etp_nx_entity *c2 = chain_of(r, 2), *c3 = chain_of(r, 3);
    for (uint32_t k = 0; k < 3; k++) {
        assert_int_equal(c2->ops[k].source_node_count, 0);
        assert_non_null(strstr(c2->ops[k].source_link_reason, "names no delegate debug identifier"));
        assert_non_null(strstr(c3->ops[k].source_link_reason, "no entry for this DELEGATE_CALL"));
    }
    assert_int_equal(c3->source_node_count, 0);
    assert_true(r->sources_checked);
    assert_int_equal(r->source_linked_ops, 2);
    assert_int_equal(r->source_unlinked_ops, 7);

    /* A method the maps do not have, then no ETRecord: every link is gone, each op says why. */
    assert_int_equal(etp_nx_link_sources(r, rec, "decode", &err), ETP_OK);
    assert_int_equal(chain_of(r, 1)->ops[0].source_node_count, 0);
    assert_non_null(strstr(chain_of(r, 1)->ops[0].source_link_reason, "no delegate_map for this method"));
    assert_int_equal(etp_nx_link_sources(r, NULL, "forward", &err), ETP_OK);
    assert_false(r->sources_checked);
    assert_int_equal(r->source_linked_ops, 0);
    assert_non_null(strstr(chain_of(r, 1)->ops[0].source_link_reason, "no ETRecord"));
    assert_int_equal(chain_of(r, 1)->source_node_count, 0);

    etp_nx_result_free(r);
    etp_etrecord_free(rec);
    tu_rmrf(dir);
    free(dir);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(links_and_reasons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
