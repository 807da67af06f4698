/* test_nx_record.c - the VGF neural-statistics decoder on the specification's
 * test vectors (MLIA's own test inputs, values derived by hand from them),
 * the wrapper's strictness, settings resolution and the layout readings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/nx_stats.h"
#include "etprof/nx_record.h"
#include "testutil.h"

static etp_nx_settings settings(etp_nx_device dev, int mode, uint32_t lead, etp_nx_core_key key)
{
    etp_nx_settings s;
    memset(&s, 0, sizeof s);
    s.device = dev;
    s.mode = mode;
    s.layout = etp_nx_layout_get(dev, mode);
    s.leading_blocks = lead;
    s.core_key = key;
    return s;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static int counter_index(const etp_nx_layout *l, const char *name)
{
    for (uint32_t k = 0; k < l->counter_count; k++)
        if (!strcmp(l->counter_name[k], name))
            return (int)k;
    return -1;
}

static void layout_table(void **state)
{
    (void)state;
    /* The seed's words per task and the parser's tasks per block. */
    const struct { etp_nx_device d; int m; uint32_t wpt, tpb, named; } want[] = {
        {ETP_NX_MALI_G1, 0, 16, 512, 16}, {ETP_NX_MALI_G1, 1, 32, 256, 29},
        {ETP_NX_MALI_G2, 0, 16, 1024, 16}, {ETP_NX_MALI_G2, 1, 64, 256, 31}};
    for (size_t i = 0; i < 4; i++) {
        const etp_nx_layout *l = etp_nx_layout_get(want[i].d, want[i].m);
        assert_non_null(l);
        assert_int_equal(l->words_per_task, want[i].wpt);
        assert_int_equal(l->tasks_per_block, want[i].tpb);
        assert_int_equal(l->counter_count, want[i].named);
        assert_int_equal(l->leading_blocks, 1);
        for (uint32_t k = 0; k < l->counter_count; k++)
            assert_true(l->counter_word[k] < l->words_per_task);
    }
    const etp_nx_layout *g2 = etp_nx_layout_get(ETP_NX_MALI_G2, 1), *g1 = etp_nx_layout_get(ETP_NX_MALI_G1, 1);
    assert_int_equal(g2->counter_word[counter_index(g2, "me_src1_stall")], 32);
    assert_int_equal(g2->counter_word[counter_index(g2, "ow_idx_stall")], 29);
    assert_int_equal(counter_index(g1, "me_src0_stall"), -1);
    assert_int_equal(counter_index(g2, "reserved"), -1);
    assert_null(etp_nx_layout_get(ETP_NX_DEVICE_NONE, 0));
    assert_int_equal(etp_nx_device_from_target(0x13B5, "Mali-G2-Pro-NX MC1"), ETP_NX_MALI_G2);
    assert_int_equal(etp_nx_device_from_target(0x13B5, "Mali-G1"), ETP_NX_MALI_G1);
    assert_int_equal(etp_nx_device_from_target(0x13B5, "Mali-G12"), ETP_NX_DEVICE_NONE);
    assert_int_equal(etp_nx_device_from_target(0x10DE, "Mali-G2"), ETP_NX_DEVICE_NONE);
}

static etp_nx_decoded *decode(const uint8_t *mem, size_t n, const uint32_t *ids, uint32_t nids, etp_nx_settings *s)
{
    etp_nx_decoded *d = NULL;
    etp_error err;
    etp_status st = etp_nx_memory_decode(mem, n, ids, nids, s, "t", &d, &err);
    if (st)
        fail_msg("%s", err.message);
    return d;
}

/* Vector 1: mode 0, G1: one task [10,20,30,0...] -> op = total = 60. */
static void vector1_mode0_g1(void **state)
{
    (void)state;
    uint8_t mem[64] = {0};
    put32(mem, 10);
    put32(mem + 4, 20);
    put32(mem + 8, 30);
    uint32_t ids[1] = {0};
    etp_nx_settings s = settings(ETP_NX_MALI_G1, 0, 0, ETP_NX_CORE_SINGLE);
    etp_nx_decoded *d = decode(mem, sizeof mem, ids, 1, &s);
    assert_int_equal(d->stripe_count, 1);
    assert_int_equal(d->stripes[0].op_cycles, 60);
    assert_int_equal(d->stripes[0].total_cycles, 60);
    assert_int_equal(d->stripes[0].counters[2], 30); /* section_2 */
    etp_nx_decoded_free(d);
}

/* Vector 2: mode 0, G2: 513 tasks of [1,0...] are one block (1024 tasks). */
static void vector2_mode0_g2(void **state)
{
    (void)state;
    size_t n = 513 * 64;
    uint8_t *mem = calloc(1, n);
    for (size_t t = 0; t < 513; t++)
        put32(mem + t * 64, 1);
    uint32_t ids[1] = {0};
    etp_nx_settings s = settings(ETP_NX_MALI_G2, 0, 0, ETP_NX_CORE_SINGLE);
    etp_nx_decoded *d = decode(mem, n, ids, 1, &s);
    assert_int_equal(d->blocks, 1);
    assert_int_equal(d->stripes[0].op_cycles, 513);
    etp_nx_decoded_free(d);
    /* With G1's 512 tasks per block the 513th task is stripe 1, unlisted. */
    s = settings(ETP_NX_MALI_G1, 0, 0, ETP_NX_CORE_SINGLE);
    etp_error err;
    assert_int_equal(etp_nx_memory_decode(mem, n, ids, 1, &s, "t", &d, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "does not list"));
    free(mem);
}

/* Vector 3: mode 1, G2: w1 = 10, w31 = 20, w32 = 30. */
static void vector3_mode1_g2(void **state)
{
    (void)state;
    uint8_t mem[256] = {0};
    put32(mem + 4 * 1, 10);
    put32(mem + 4 * 31, 20);
    put32(mem + 4 * 32, 30);
    put32(mem + 4 * 30, 99); /* reserved: not a counter */
    uint32_t ids[1] = {0};
    etp_nx_settings s = settings(ETP_NX_MALI_G2, 1, 0, ETP_NX_CORE_SINGLE);
    etp_nx_decoded *d = decode(mem, sizeof mem, ids, 1, &s);
    const etp_nx_layout *l = d->layout;
    assert_int_equal(d->stripes[0].op_cycles, 10);
    assert_int_equal(d->stripes[0].total_cycles, 10);
    assert_int_equal(d->stripes[0].counters[counter_index(l, "me_src0_stall")], 20);
    assert_int_equal(d->stripes[0].counters[counter_index(l, "me_src1_stall")], 30);
    uint64_t sum = 0;
    for (uint32_t k = 0; k < l->counter_count; k++)
        sum += d->stripes[0].counters[k];
    assert_int_equal(sum, 60); /* word 30 not counted */
    etp_nx_decoded_free(d);
}

/* Vector 4: mode 1, G1, info [0, 2], 3 blocks, only word 1 = 10. */
static void vector4_mode1_g1(void **state)
{
    (void)state;
    size_t n = 3 * 256 * 32 * 4;
    uint8_t *mem = calloc(1, n);
    put32(mem + 4, 10);
    uint32_t ids[2] = {0, 2};
    etp_nx_settings s = settings(ETP_NX_MALI_G1, 1, 0, ETP_NX_CORE_SINGLE);
    etp_nx_decoded *d = decode(mem, n, ids, 2, &s);
    assert_int_equal(d->stripe_count, 2);
    assert_int_equal(d->stripes[0].id, 0);
    assert_int_equal(d->stripes[0].op_cycles, 10);
    assert_int_equal(d->stripes[1].id, 2);
    assert_true(d->stripes[1].zero_row);
    assert_int_equal(d->stripes[1].op_cycles, 0);
    etp_nx_decoded_free(d);
    uint32_t bad[2] = {0, 3};
    etp_error err;
    assert_int_equal(etp_nx_memory_decode(mem, n, bad, 2, &s, "t", &d, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "outside the statistics block range"));
    /* One leading block: the same memory's block 0 is skipped, stripe 0 is
     * block 1 (all zero), stripe 2 would be block 3 (absent). */
    s.leading_blocks = 1;
    uint32_t two[2] = {0, 1};
    d = decode(mem, n, two, 2, &s);
    assert_true(d->stripes[0].zero_row && d->stripes[1].zero_row);
    assert_int_equal(d->leading_nonzero_words, 1);
    etp_nx_decoded_free(d);
    assert_int_equal(etp_nx_memory_decode(mem, n, ids, 2, &s, "t", &d, &err), ETP_E_FORMAT);
    free(mem);
}

static void alignment_errors(void **state)
{
    (void)state;
    uint8_t mem[256] = {0};
    uint32_t ids[1] = {0};
    etp_nx_decoded *d;
    etp_error err;
    etp_nx_settings s = settings(ETP_NX_MALI_G2, 1, 0, ETP_NX_CORE_SINGLE);
    assert_int_equal(etp_nx_memory_decode(mem, 6, ids, 1, &s, "t", &d, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "4-byte aligned"));
    assert_int_equal(etp_nx_memory_decode(mem, 0, ids, 1, &s, "t", &d, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "empty"));
    assert_int_equal(etp_nx_memory_decode(mem, 32, ids, 1, &s, "t", &d, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "64 bytes"));
    assert_int_equal(etp_nx_memory_decode(mem, 128, ids, 1, &s, "t", &d, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "64-word tasks"));
}

/* The per-core maximum (core key word 0): core 0 tasks nx 5 + 4, core 1 nx 7. */
static void per_core_max(void **state)
{
    (void)state;
    uint8_t mem[3 * 256] = {0};
    put32(mem + 0 * 256 + 4, 5);
    put32(mem + 1 * 256, 1);
    put32(mem + 1 * 256 + 4, 7);
    put32(mem + 1 * 256 + 8, 3); /* dl_active on core 1 only */
    put32(mem + 2 * 256 + 4, 4);
    uint32_t ids[1] = {0};
    etp_nx_settings s = settings(ETP_NX_MALI_G2, 1, 0, ETP_NX_CORE_WORD0);
    etp_nx_decoded *d = decode(mem, sizeof mem, ids, 1, &s);
    assert_int_equal(d->stripes[0].op_cycles, 9);
    assert_int_equal(d->stripes[0].counters[1], 3); /* max(0, 3) */
    assert_int_equal(d->max_cores_seen, 2);
    etp_nx_decoded_free(d);
    s.core_key = ETP_NX_CORE_SINGLE;
    d = decode(mem, sizeof mem, ids, 1, &s);
    assert_int_equal(d->stripes[0].op_cycles, 16);
    etp_nx_decoded_free(d);
}

/* Vector 5 and the text form. */
static void info_forms(void **state)
{
    (void)state;
    const uint8_t framed[] = {0xFF, 0xEE, 0x11, 0x22, 1, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 7, 0, 0, 0};
    uint32_t *ids, n;
    etp_error err;
    assert_int_equal(etp_nx_info_parse(framed, sizeof framed, 0, "t", &ids, &n, &err), ETP_OK);
    assert_int_equal(n, 2);
    assert_int_equal(ids[0], 3);
    assert_int_equal(ids[1], 7);
    free(ids);
    const char text[] = "3, 7\n0x10;\0";
    assert_int_equal(etp_nx_info_parse((const uint8_t *)text, sizeof text, 1, "t", &ids, &n, &err), ETP_OK);
    assert_int_equal(n, 3);
    assert_int_equal(ids[2], 16);
    free(ids);
    const char dup[] = "1 2 1";
    assert_int_equal(etp_nx_info_parse((const uint8_t *)dup, 5, 1, "t", &ids, &n, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "twice"));
    assert_int_equal(etp_nx_info_parse((const uint8_t *)"x1", 2, 1, "t", &ids, &n, &err), ETP_E_FORMAT);
    assert_int_equal(etp_nx_info_parse((const uint8_t *)"0x100000000", 11, 1, "t", &ids, &n, &err), ETP_E_FORMAT);
    assert_int_equal(etp_nx_info_parse((const uint8_t *)" ,;", 3, 1, "t", &ids, &n, &err), ETP_E_FORMAT);
    uint8_t badver[20];
    memcpy(badver, framed, 20);
    badver[4] = 2;
    assert_int_equal(etp_nx_info_parse(badver, 20, 0, "t", &ids, &n, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "unsupported format version"));
    assert_int_equal(etp_nx_info_parse(framed, 19, 0, "t", &ids, &n, &err), ETP_E_FORMAT);
    /* unframed binary */
    assert_int_equal(etp_nx_info_parse(framed + 12, 8, 0, "t", &ids, &n, &err), ETP_OK);
    assert_int_equal(n, 2);
    free(ids);
}

static const char ddb_text[] = "id\ttosa_op\tapi_labels\n10\tConv2D\tTOSACONV2D_spirv_id_504;\n----\n"
                               "id\tapi_label\n100\tx\n----\nid\ttosa_op_ids\n20\t10\n----\n"
                               "id\tfused_op_ids\n30\t20\n----\nid\tcascade_op_ids\n40\t30\n----\n"
                               "id\top_id\tcascade_op_id\n0\t30\t40\n----\nid\tstripe_op_id\n0\t0\n";

/* Vector 6: the minimal debug database. */
static void vector6_ddb(void **state)
{
    (void)state;
    etp_nx_ddb *d;
    etp_error err;
    assert_int_equal(etp_nx_ddb_parse((const uint8_t *)ddb_text, sizeof ddb_text - 1, NULL, 0, "t", &d, &err), ETP_OK);
    etp_nx_strlist ch = etp_nx_ddb_stripe_chains(d, 0), ca = etp_nx_ddb_stripe_cascades(d, 0);
    assert_int_equal(ch.n, 1);
    assert_string_equal(ch.v[0], "30");
    assert_string_equal(ca.v[0], "40");
    etp_nx_strlist fu = etp_nx_ddb_chain_fused(d, "30");
    assert_string_equal(fu.v[0], "20");
    etp_nx_strlist to = etp_nx_ddb_fused_tosa(d, "20");
    assert_string_equal(to.v[0], "10");
    int found;
    assert_string_equal(etp_nx_ddb_tosa_types(d, "10", &found).v[0], "Conv2D");
    assert_true(found);
    etp_nx_strlist lb = etp_nx_ddb_tosa_labels(d, "10");
    assert_int_equal(lb.n, 1);
    assert_string_equal(lb.v[0], "TOSACONV2D_spirv_id_504");
    assert_int_equal(etp_nx_ddb_stripe_chains(d, 1).n, 0);
    etp_nx_ddb_free(d);
    /* Framed, with trailing NULs, CRLF line ends: the same database. */
    size_t n = sizeof ddb_text - 1;
    uint8_t *f = calloc(1, 12 + 2 * n + 3);
    size_t w = 12;
    for (size_t i = 0; i < n; i++) {
        if (ddb_text[i] == '\n')
            f[w++] = '\r';
        f[w++] = (uint8_t)ddb_text[i];
    }
    w += 3;
    put32(f, 0x1122FFEEu);
    put32(f + 4, 1);
    put32(f + 8, (uint32_t)(w - 12));
    assert_int_equal(etp_nx_ddb_parse(f, w, NULL, 0, "t", &d, &err), ETP_OK);
    assert_string_equal(etp_nx_ddb_stripe_cascades(d, 0).v[0], "40");
    etp_nx_ddb_free(d);
    free(f);
    /* Six sections (an empty one is dropped, not counted) -> error. */
    const char six[] = "id\ttosa_op\tapi_labels\n----\n----\nid\tapi_label\n----\nid\ttosa_op_ids\n----\n"
                       "id\tfused_op_ids\n----\nid\tcascade_op_ids\n----\nid\top_id\tcascade_op_id\n";
    assert_int_equal(etp_nx_ddb_parse((const uint8_t *)six, sizeof six - 1, NULL, 0, "t", &d, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "all expected profiling sections"));
    const uint8_t notutf8[] = {'i', 'd', 0xC3, 0x28};
    assert_int_equal(etp_nx_ddb_parse(notutf8, 4, NULL, 0, "t", &d, &err), ETP_E_FORMAT);
}

/* stripe_op_indexs form: every listed index maps to the stripe op of that number. */
static void ddb_index_lists(void **state)
{
    (void)state;
    const char t[] = "id\ttosa_op\tapi_labels\n----\nid\tapi_label\n----\nid\ttosa_op_ids\n----\n"
                     "id\tfused_op_ids\n----\nid\tcascade_op_ids\n----\nid\top_id\tcascade_op_id\n"
                     "5\t100\t300\n6\t200\t300\n6\t201\t301\n----\nid\tstripe_op_indexs\ncs0\t5;6\n";
    etp_nx_ddb *d;
    etp_error err;
    assert_int_equal(etp_nx_ddb_parse((const uint8_t *)t, sizeof t - 1, NULL, 0, "t", &d, &err), ETP_OK);
    assert_string_equal(etp_nx_ddb_stripe_chains(d, 5).v[0], "100");
    assert_string_equal(etp_nx_ddb_stripe_chains(d, 6).v[0], "201"); /* the last row of id 6 wins */
    assert_string_equal(etp_nx_ddb_stripe_cascades(d, 6).v[0], "301");
    etp_nx_ddb_free(d);
}

static void split(const char *cell, const char *const *known, size_t nk, uint32_t want_n, const char *a,
                  const char *b)
{
    char **v;
    uint32_t n;
    assert_int_equal(etp_nx_split_labels(cell, strlen(cell), known, nk, &v, &n), ETP_OK);
    assert_int_equal(n, want_n);
    if (want_n > 0)
        assert_string_equal(v[0], a);
    if (want_n > 1)
        assert_string_equal(v[1], b);
    for (uint32_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void label_split(void **state)
{
    (void)state;
    split("plain;fallback", NULL, 0, 2, "plain", "fallback");
    split("{broken;fallback;", NULL, 0, 2, "{broken", "fallback");
    split("{\"valid\": 1}suffix;fallback", NULL, 0, 2, "{\"valid\": 1}suffix", "fallback");
    split("{\"a\": \"x;y\"};z", NULL, 0, 2, "{\"a\": \"x;y\"}", "z");
    const char *known[] = {"known;label", "known"};
    split("a; known;label;b", known, 2, 3, "a", "known;label");
    split(";;;", NULL, 0, 0, NULL, NULL);
    split("", NULL, 0, 0, NULL, NULL);
}

static void base64(void **state)
{
    (void)state;
    uint8_t *o;
    size_t n, bad;
    assert_int_equal(etp_nx_base64_decode("aW5mbw==", 8, &o, &n, &bad), 0);
    assert_int_equal(n, 4);
    assert_memory_equal(o, "info", 4);
    free(o);
    assert_int_equal(etp_nx_base64_decode("3q0=", 4, &o, &n, &bad), 0);
    assert_int_equal(n, 2);
    assert_int_equal(o[0], 0xDE);
    assert_int_equal(o[1], 0xAD);
    free(o);
    assert_int_equal(etp_nx_base64_decode("AQID", 4, &o, &n, &bad), 0);
    assert_int_equal(n, 3);
    free(o);
    assert_int_equal(etp_nx_base64_decode("AQ-D", 4, &o, &n, &bad), -1);
    assert_int_equal(bad, 2);
    assert_int_equal(etp_nx_base64_decode("AQI", 3, &o, &n, &bad), -1);
    assert_int_equal(etp_nx_base64_decode("A=ID", 4, &o, &n, &bad), -1);
    assert_int_equal(etp_nx_base64_decode("AQ\nD", 4, &o, &n, &bad), -1);
}

/* A v2 wrapper as ExecuTorch's own test writes it (segment 0 with AQID,
 * "info", 0xDEAD), with parts replaced by @p subst pairs. */
static char *v2_json(const char *mode_block, const char *layout_block, const char *memory_b64, const char *size)
{
    char *s = malloc(4096);
    snprintf(s, 4096,
             "{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":2,\"backend\":\"VgfBackend\","
             "\"api\":\"VK_ARM_data_graph\",\"event_name\":\"VGF_NEURAL_STATISTICS\",\"api_available\":true,"
             "\"data_available\":true,\"available\":true,\"reason\":\"\",%s,"
             "\"target\":{\"available\":true,\"device_name\":\"Mali-G2-Pro-NX MC1\",\"vendor_id\":5045,"
             "\"device_id\":7,\"driver_version\":11},%s,"
             "\"segments\":[{\"segment_id\":0,\"is_data_graph_pipeline\":true,"
             "\"statistics_bind_point_available\":true,\"statistics_memory_host_visible\":true,"
             "\"statistics_memory_host_coherent\":true,\"statistics_bind_point_reason\":\"\","
             "\"debug_database\":{\"available\":true,\"is_text\":false,\"vulkan_result\":0,\"size\":3,"
             "\"encoding\":\"base64\",\"reason\":\"\",\"data\":\"AQID\"},"
             "\"statistics_info\":{\"available\":true,\"is_text\":true,\"vulkan_result\":0,\"size\":4,"
             "\"encoding\":\"base64\",\"reason\":\"\",\"data\":\"aW5mbw==\"},"
             "\"statistics_memory\":{\"available\":true,\"is_text\":false,\"vulkan_result\":0,\"size\":%s,"
             "\"encoding\":\"base64\",\"reason\":\"\",\"data\":\"%s\"}}]}",
             mode_block, layout_block, size, memory_b64);
    return s;
}

#define MODE1 "\"statistics_mode\":{\"executorch_index\":1,\"vulkan_value\":2,\"vulkan_name\":\"VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS1_ARM\"}"
#define MODE0 "\"statistics_mode\":{\"executorch_index\":0,\"vulkan_value\":1,\"vulkan_name\":\"VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS0_ARM\"}"
#define LAYOUT(id, wpt) "\"counter_layout\":{\"available\":true,\"schema_id\":\"" id "\",\"schema_version\":1,\"endianness\":\"little\",\"word_type\":\"uint32\",\"words_per_task\":" wpt ",\"leading_block_count\":1,\"reason\":\"\"}"
#define NOLAYOUT "\"counter_layout\":{\"available\":false,\"schema_id\":\"\",\"schema_version\":0,\"endianness\":\"little\",\"word_type\":\"uint32\",\"words_per_task\":0,\"leading_block_count\":0,\"reason\":\"No registered neural statistics counter layout for target\"}"

static etp_status parse_str(const char *s, etp_nx_record **r, etp_error *err)
{
    return etp_nx_record_parse((const uint8_t *)s, strlen(s), "run 1 instruction 2", r, err);
}

static void wrapper_v2(void **state)
{
    (void)state;
    char *j = v2_json(MODE1, LAYOUT("arm.mali-g2.neural-statistics.mode1", "64"), "3q0=", "2");
    etp_nx_record *r;
    etp_error err;
    assert_int_equal(parse_str(j, &r, &err), ETP_OK);
    assert_int_equal(r->schema_version, 2);
    assert_int_equal(r->segment_count, 1);
    assert_int_equal(r->segments[0].blob[ETP_NX_STATISTICS_MEMORY].len, 2);
    assert_memory_equal(r->segments[0].blob[ETP_NX_STATISTICS_INFO].data, "info", 4);
    etp_nx_settings s;
    etp_nx_notes notes = {0};
    assert_int_equal(etp_nx_settings_resolve(r, NULL, "e", &s, &notes, &err), ETP_OK);
    assert_int_equal(s.device, ETP_NX_MALI_G2);
    assert_int_equal(s.mode, 1);
    assert_int_equal(s.leading_blocks, 1);
    assert_int_equal(s.fallback_fields, 0); /* MC1: single core, nothing assumed but the leading block reading */
    assert_true(s.single_core_target);
    assert_int_equal(notes.count, 1);
    assert_string_equal(notes.items[0].code, "vgf.layout_assumption");
    etp_nx_notes_free(&notes);
    /* A fallback that disagrees with the record. */
    etp_nx_options o;
    etp_nx_options_defaults(&o);
    o.statistics_mode = 0;
    assert_int_equal(etp_nx_settings_resolve(r, &o, "e", &s, NULL, &err), ETP_E_MISMATCH);
    etp_nx_record_free(r);
    free(j);

    /* A declared Mali-G2 mode-0 layout of 64 words per task is refused. */
    j = v2_json(MODE0, LAYOUT("arm.mali-g2.neural-statistics.mode0", "64"), "3q0=", "2");
    assert_int_equal(parse_str(j, &r, &err), ETP_OK);
    assert_int_equal(etp_nx_settings_resolve(r, NULL, "e", &s, NULL, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "words_per_task"));
    assert_non_null(strstr(err.message, "64 words per task"));
    etp_nx_record_free(r);
    free(j);
    /* schema_id mode disagreeing with statistics_mode */
    j = v2_json(MODE0, LAYOUT("arm.mali-g2.neural-statistics.mode1", "64"), "3q0=", "2");
    assert_int_equal(parse_str(j, &r, &err), ETP_OK);
    assert_int_equal(etp_nx_settings_resolve(r, NULL, "e", &s, NULL, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "schema_id"));
    etp_nx_record_free(r);
    free(j);
    /* No layout: the device comes from the target name; mode recorded. */
    j = v2_json(MODE0, NOLAYOUT, "3q0=", "2");
    assert_int_equal(parse_str(j, &r, &err), ETP_OK);
    assert_int_equal(etp_nx_settings_resolve(r, NULL, "e", &s, NULL, &err), ETP_OK);
    assert_string_equal(s.device_source, "target");
    assert_int_equal(s.mode, 0);
    assert_int_equal(s.fallback_fields, ETP_NX_FB_LEADING);
    etp_nx_record_free(r);
    free(j);

    /* size disagreeing with the data, invalid base64 */
    j = v2_json(MODE1, NOLAYOUT, "3q0=", "3");
    assert_int_equal(parse_str(j, &r, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "size says 3"));
    free(j);
    j = v2_json(MODE1, NOLAYOUT, "3q0*", "2");
    assert_int_equal(parse_str(j, &r, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "statistics_memory.data: invalid base64"));
    free(j);
    /* v2 without counter_layout */
    j = v2_json(MODE1, "\"x\":1", "3q0=", "2");
    assert_int_equal(parse_str(j, &r, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "counter_layout"));
    free(j);
}

static const char v1_text[] =
    "{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":1,\"backend\":\"VgfBackend\","
    "\"api\":\"VK_ARM_data_graph\",\"event_name\":\"VGF_NEURAL_STATISTICS\",\"api_available\":true,"
    "\"data_available\":false,\"available\":false,\"reason\":\"VkDevice is null\",\"segments\":[]}";

static void wrapper_v1_and_errors(void **state)
{
    (void)state;
    etp_nx_record *r;
    etp_error err;
    assert_int_equal(parse_str(v1_text, &r, &err), ETP_OK);
    assert_int_equal(r->schema_version, 1);
    assert_false(r->data_available);
    assert_string_equal(r->reason, "VkDevice is null");
    etp_nx_settings s;
    etp_nx_notes notes = {0};
    assert_int_equal(etp_nx_settings_resolve(r, NULL, "e", &s, &notes, &err), ETP_OK);
    assert_int_equal(s.mode, 1);
    assert_int_equal(s.device, ETP_NX_MALI_G2);
    assert_int_equal(s.fallback_fields, ETP_NX_FB_MODE | ETP_NX_FB_DEVICE | ETP_NX_FB_LEADING | ETP_NX_FB_CORE);
    assert_string_equal(notes.items[0].code, "vgf.decoder_fallback");
    assert_int_equal(notes.count, 3);
    etp_nx_notes_free(&notes);
    etp_nx_options o;
    etp_nx_options_defaults(&o);
    o.statistics_mode = 0;
    o.profiling_device = ETP_NX_MALI_G1;
    assert_int_equal(etp_nx_settings_resolve(r, &o, "e", &s, NULL, &err), ETP_OK);
    assert_int_equal(s.layout->words_per_task, 16);
    assert_int_equal(s.layout->tasks_per_block, 512);
    assert_string_equal(s.mode_source, "fallback");
    etp_nx_record_free(r);

    char buf[1024];
    const struct { const char *from, *to, *msg; } bad[] = {
        {"\"schema_version\":1", "\"schema_version\":3", "schema_version 3"},
        {"neural_statistics\"", "neural_statistic\"", "schema"},
        {"\"available\":false,\"reason", "\"available\":true,\"reason", "differs from data_available"},
        {"\"segments\":[]", "\"segments\":{}", "segments"},
        {"\"api_available\":true", "\"api_available\":1", "api_available: is not a boolean"},
        {"}", "}x", "malformed"},
        {"\"reason\"", "\"reason\":1,\"reason\"", "reason: is given twice"},
        {"\"segments\":[]", "\"segments\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "nested too deeply"},
        {"VkDevice", "Vk\\uD800Device", "unpaired surrogate"},
        {"\"schema_version\":1", "\"schema_version\":1.0", "schema_version: is not an integer"},
        {"VkDevice", "Vk\001Device", "control character"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p = strstr(v1_text, bad[i].from);
        assert_non_null(p);
        snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - v1_text), v1_text, bad[i].to, p + strlen(bad[i].from));
        etp_status st = parse_str(buf, &r, &err);
        assert_true(st == ETP_E_FORMAT || (st == ETP_E_LIMIT && strstr(bad[i].msg, "deeply")));
        if (!strstr(err.message, bad[i].msg))
            fail_msg("case %zu: %s", i, err.message);
    }
    /* escapes are decoded */
    const char *p = strstr(v1_text, "VkDevice is null");
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - v1_text), v1_text, "caf\\u00e9\\n\\\"x\\\"",
             p + strlen("VkDevice is null"));
    assert_int_equal(parse_str(buf, &r, &err), ETP_OK);
    assert_string_equal(r->reason, "caf\xc3\xa9\n\"x\"");
    etp_nx_record_free(r);
    assert_true(etp_nx_claims_schema((const uint8_t *)v1_text, strlen(v1_text)));
    assert_false(etp_nx_claims_schema((const uint8_t *)"{}", 2));
}

/* The whole segment path: wrapper -> settings -> stripes with chains. */
static void segment_decode(void **state)
{
    (void)state;
    etp_nx_record *r;
    etp_error err;
    char *j = v2_json(MODE1, LAYOUT("arm.mali-g2.neural-statistics.mode1", "64"), "3q0=", "2");
    assert_int_equal(parse_str(j, &r, &err), ETP_OK);
    free(j);
    etp_nx_settings s;
    assert_int_equal(etp_nx_settings_resolve(r, NULL, "e", &s, NULL, &err), ETP_OK);
    /* Replace the ExecuTorch test's placeholder blobs with real ones. */
    etp_nx_segment *seg = &r->segments[0];
    free(seg->blob[0].data);
    seg->blob[0].len = sizeof ddb_text - 1;
    seg->blob[0].data = malloc(seg->blob[0].len);
    memcpy(seg->blob[0].data, ddb_text, seg->blob[0].len);
    free(seg->blob[1].data);
    seg->blob[1].data = (uint8_t *)strdup("0 1");
    seg->blob[1].len = 3;
    free(seg->blob[2].data);
    size_t n = 3 * 256 * 64 * 4; /* leading block + stripes 0 and 1 */
    seg->blob[2].data = calloc(1, n);
    seg->blob[2].len = n;
    put32(seg->blob[2].data + 4, 1000);                     /* leading block: ignored */
    put32(seg->blob[2].data + 256 * 256 + 4, 42);           /* stripe 0 task 0 nx_active */
    put32(seg->blob[2].data + 256 * 256 + 256 + 4, 8);      /* stripe 0 task 1 */
    put32(seg->blob[2].data + 2 * 256 * 256 + 4 * 5, 3);    /* stripe 1: ce_active only */
    etp_nx_decoded *d;
    assert_int_equal(etp_nx_segment_decode(seg, &s, NULL, "e", &d, &err), ETP_OK);
    assert_int_equal(d->stripe_count, 2);
    assert_int_equal(d->stripes[0].op_cycles, 50);
    assert_string_equal(d->stripes[0].chain, "30");
    assert_string_equal(d->stripes[0].cascade, "40");
    assert_int_equal(d->stripes[1].op_cycles, 0);
    assert_false(d->stripes[1].zero_row);
    assert_string_equal(d->stripes[1].chain, "chain_1");
    assert_true(d->stripes[1].cascade_filled);
    etp_nx_decoded_free(d);
    seg->blob[1].available = 0;
    assert_int_equal(etp_nx_segment_decode(seg, &s, NULL, "e", &d, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "segment 0: statistics_info is missing"));
    etp_nx_record_free(r);
}

/* A decoded segment of stripes with (id, chain, cascade, op, total). */
typedef struct row { uint32_t id; const char *chain, *cascade; uint64_t op, total; } row;

static void decoded_of(etp_nx_decoded *d, etp_nx_stripe *st, uint64_t *ctr, const row *rows, uint32_t n)
{
    memset(d, 0, sizeof *d);
    d->layout = etp_nx_layout_get(ETP_NX_MALI_G2, 1);
    d->stripes = st;
    d->stripe_count = n;
    for (uint32_t i = 0; i < n; i++) {
        memset(&st[i], 0, sizeof st[i]);
        st[i].id = rows[i].id;
        st[i].chain = rows[i].chain;
        st[i].cascade = rows[i].cascade;
        st[i].op_cycles = rows[i].op;
        st[i].total_cycles = rows[i].total;
        st[i].counters = ctr + (size_t)i * d->layout->counter_count;
        memset(st[i].counters, 0, d->layout->counter_count * sizeof *ctr);
        st[i].counters[0] = rows[i].op;
    }
}

static etp_nx_result *new_result(void)
{
    etp_nx_result *r;
    assert_int_equal(etp_nx_result_new(&r), ETP_OK);
    r->settings = settings(ETP_NX_MALI_G2, 1, 1, ETP_NX_CORE_SINGLE);
    r->have_settings = 1;
    return r;
}

static const etp_nx_entity *find(const etp_nx_result *r, const char *id)
{
    for (uint32_t i = 0; i < r->entity_count; i++)
        if (!strcmp(r->entities[i].id, id))
            return &r->entities[i];
    fail_msg("no entity %s", id);
    return NULL;
}

/* Vector 7: stripes 0/1/2 in chains 100/200/100 and cascades 300/300/400. */
static void vector7_memberships(void **state)
{
    (void)state;
    const row rows[3] = {{0, "100", "300", 10, 100}, {1, "200", "300", 20, 200}, {2, "100", "400", 30, 300}};
    etp_nx_stripe st[3];
    uint64_t ctr[3 * 31];
    etp_nx_decoded d;
    decoded_of(&d, st, ctr, rows, 3);
    etp_nx_result *r = new_result();
    etp_error err;
    assert_int_equal(etp_nx_add_segment(r, 0, 1, 0, &d, NULL, &err), ETP_OK);
    assert_int_equal(etp_nx_finish(r, &err), ETP_OK);
    const etp_nx_entity *c100 = find(r, "chain/segment_0/100"), *k300 = find(r, "cascade/segment_0/300");
    assert_int_equal(c100->stripe_count, 2);
    assert_int_equal(c100->stripe_ids[0], 0);
    assert_int_equal(c100->stripe_ids[1], 2);
    assert_true(c100->s.mean_op == 40 && c100->s.mean_total == 400);
    assert_int_equal(k300->stripe_count, 2);
    assert_true(k300->s.mean_op == 30 && k300->s.mean_total == 300);
    assert_true(k300->mean_counters[0] == 30); /* nx_active sums as op does */
    assert_true(r->entities[0].s.mean_total == 600 && r->model_available);
    etp_nx_result_free(r);
}

/* The seed's example: executions of 400 and 100 observed cycles average 250
 * (the second lost a stripe); min/max/median follow; nothing is estimated. */
static void lost_stripe_average(void **state)
{
    (void)state;
    const row two[2] = {{0, "1", "9", 300, 300}, {1, "1", "9", 100, 100}};
    const row one[1] = {{1, "1", "9", 100, 100}};
    etp_nx_stripe st[2];
    uint64_t ctr[2 * 31];
    etp_nx_decoded d;
    etp_nx_result *r = new_result();
    etp_error err;
    decoded_of(&d, st, ctr, two, 2);
    assert_int_equal(etp_nx_add_segment(r, 0, 1, 0, &d, NULL, &err), ETP_OK);
    decoded_of(&d, st, ctr, one, 1);
    assert_int_equal(etp_nx_add_segment(r, 1, 1, 0, &d, NULL, &err), ETP_OK);
    assert_int_equal(etp_nx_finish(r, &err), ETP_OK);
    const etp_nx_entity *m = &r->entities[0];
    assert_true(m->s.mean_total == 250);
    assert_int_equal(m->s.count, 2);
    assert_int_equal(m->s.min_total, 100);
    assert_int_equal(m->s.max_total, 400);
    assert_true(m->s.median_total == 250);
    assert_true(r->model_available);
    const etp_nx_entity *s0 = find(r, "stripe/segment_0/0");
    assert_int_equal(s0->s.count, 1);
    assert_false(s0->full_coverage);
    assert_true(find(r, "chain/segment_0/1")->full_coverage);
    etp_nx_result_free(r);
}

/* Segments measured in different executions: the model summary is withheld. */
static void coverage_differs(void **state)
{
    (void)state;
    const row a[1] = {{0, "1", "9", 50, 60}};
    etp_nx_stripe st[1];
    uint64_t ctr[31];
    etp_nx_decoded d;
    decoded_of(&d, st, ctr, a, 1);
    etp_nx_result *r = new_result();
    etp_error err;
    assert_int_equal(etp_nx_add_segment(r, 0, 1, 0, &d, NULL, &err), ETP_OK);
    assert_int_equal(etp_nx_add_segment(r, 0, 1, 1, &d, NULL, &err), ETP_OK);
    assert_int_equal(etp_nx_add_segment(r, 1, 1, 0, &d, NULL, &err), ETP_OK);
    assert_int_equal(etp_nx_finish(r, &err), ETP_OK);
    assert_false(r->model_available);
    assert_int_equal(r->issues.count, 1);
    assert_string_equal(r->issues.items[0].code->code, "vgf.coverage_differs");
    assert_int_equal(find(r, "segment/1")->s.count, 1);
    assert_int_equal(find(r, "segment/0")->s.count, 2);
    etp_nx_result_free(r);
    /* A stripe whose chain changes between executions contradicts the capture. */
    r = new_result();
    assert_int_equal(etp_nx_add_segment(r, 0, 1, 0, &d, NULL, &err), ETP_OK);
    const row b[1] = {{0, "2", "9", 50, 60}};
    decoded_of(&d, st, ctr, b, 1);
    assert_int_equal(etp_nx_add_segment(r, 1, 1, 0, &d, NULL, &err), ETP_E_FORMAT);
    assert_non_null(strstr(err.message, "stripe 0 is in chain 2"));
    etp_nx_result_free(r);
}

/* The estimator's XML-wrapped CSV tables as the device's TAB sections. */
static char *estimator_to_device(const char *xml, size_t *len)
{
    size_t cap = strlen(xml) * 2 + 64, w = 0;
    char *out = malloc(cap);
    int sections = 0;
    for (const char *p = strstr(xml, "<![CDATA["); p; p = strstr(p, "<![CDATA[")) {
        p += 9;
        const char *end = strstr(p, "]]>");
        if (!end)
            break;
        if (sections++)
            w += (size_t)sprintf(out + w, "----\n");
        for (const char *q = p; q < end; q++) {
            if (*q == '"')
                continue; /* header names are quoted */
            if (*q == ',' && q[1] == ' ') {
                out[w++] = '\t';
                q++;
                continue;
            }
            out[w++] = *q;
        }
        p = end;
    }
    out[w] = 0;
    *len = w;
    return out;
}

/* Vector 8: the estimator fixture (ds_cnn): the relations in the device
 * format, the estimator's per-stripe cycles as the rows (MLIA's expected
 * chain figures, spec 3.8). */
/* A fixture file as a NUL-terminated string (caller frees). */
static char *read_text(const char *path)
{
    size_t n;
    uint8_t *d = path ? tu_read_file(path, &n) : NULL;
    if (!d)
        return NULL;
    char *s = malloc(n + 1);
    memcpy(s, d, n);
    s[n] = 0;
    free(d);
    return s;
}

static void vector8_estimator(void **state)
{
    (void)state;
    const char *dp = tu_fixture("mlia-nx/nt_ds_cnn_large_fully_quantized_int8_debug_database.dat");
    if (!dp)
        skip();
    char *xml = read_text(dp);
    assert_non_null(xml);
    char *perf = read_text(tu_fixture("mlia-nx/nt_ds_cnn_large_fully_quantized_int8_performance_database.dat"));
    assert_non_null(perf);
    size_t len;
    char *text = estimator_to_device(xml, &len);
    etp_nx_ddb *ddb;
    etp_error err;
    assert_int_equal(etp_nx_ddb_parse((const uint8_t *)text, len, NULL, 0, "estimator", &ddb, &err), ETP_OK);
    assert_string_equal(etp_nx_ddb_stripe_chains(ddb, 26).v[0], "962");
    assert_string_equal(etp_nx_ddb_stripe_chains(ddb, 12).v[0], "668");
    assert_string_equal(etp_nx_ddb_stripe_chains(ddb, 13).v[0], "668");
    /* the performance rows: id, opCycles, totalCycles */
    row rows[64];
    uint32_t nr = 0;
    const char *p = strstr(perf, "<![CDATA[");
    assert_non_null(p);
    p = strchr(p, '\n') + 1;
    p = strchr(p, '\n') + 1; /* past the header */
    while (*p >= '0' && *p <= '9' && nr < 64) {
        unsigned id;
        unsigned long long op, total;
        assert_int_equal(sscanf(p, "%u, %llu, %llu", &id, &op, &total), 3);
        rows[nr].id = id;
        rows[nr].op = op;
        rows[nr].total = total;
        rows[nr].chain = etp_nx_ddb_stripe_chains(ddb, id).v[0];
        rows[nr].cascade = etp_nx_ddb_stripe_cascades(ddb, id).v[0];
        nr++;
        p = strchr(p, '\n') + 1;
    }
    assert_int_equal(nr, 38);
    etp_nx_stripe st[64];
    uint64_t ctr[64 * 31];
    etp_nx_decoded d;
    decoded_of(&d, st, ctr, rows, nr);
    etp_nx_result *r = new_result();
    assert_int_equal(etp_nx_add_segment(r, 0, 1, 0, &d, ddb, &err), ETP_OK);
    assert_int_equal(etp_nx_finish(r, &err), ETP_OK);
    uint32_t chains = 0, cascades = 0;
    for (uint32_t i = 0; i < r->entity_count; i++) {
        chains += r->entities[i].kind == ETP_NX_CHAIN;
        cascades += r->entities[i].kind == ETP_NX_CASCADE;
        for (uint32_t k = 0; k < r->entities[i].op_count; k++)
            assert_int_equal(r->entities[i].ops[k].spirv_id, -1); /* TFLite names link nothing */
    }
    assert_int_equal(chains, 27);
    assert_int_equal(cascades, 27);
    const etp_nx_entity *c962 = find(r, "chain/segment_0/962"), *c668 = find(r, "chain/segment_0/668"),
                        *c656 = find(r, "chain/segment_0/656");
    assert_true(c962->s.mean_op == 6 && c962->s.mean_total == 224);
    assert_true(c668->s.mean_op == 2080 && c668->s.mean_total == 9678);
    assert_true(c656->s.mean_op == 8862 && c656->s.mean_total == 9569);
    assert_true(r->entities[0].s.mean_op == 22961 && r->entities[0].s.mean_total == 77277);
    etp_nx_result_free(r);
    etp_nx_ddb_free(ddb);
    free(text);
    free(xml);
    free(perf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_table),     cmocka_unit_test(vector1_mode0_g1), cmocka_unit_test(vector2_mode0_g2),
        cmocka_unit_test(vector3_mode1_g2), cmocka_unit_test(vector4_mode1_g1), cmocka_unit_test(alignment_errors),
        cmocka_unit_test(per_core_max),     cmocka_unit_test(info_forms),       cmocka_unit_test(vector6_ddb),
        cmocka_unit_test(ddb_index_lists),  cmocka_unit_test(label_split),      cmocka_unit_test(base64),
        cmocka_unit_test(wrapper_v2),       cmocka_unit_test(wrapper_v1_and_errors),
        cmocka_unit_test(segment_decode),   cmocka_unit_test(vector7_memberships),
        cmocka_unit_test(lost_stripe_average), cmocka_unit_test(coverage_differs),
        cmocka_unit_test(vector8_estimator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
