/* test_etrecord.c - the ETRecord reader on the two real files (2023 and
 * 2026 layouts), on zips built here with libzip (DEFLATE, ZIP64 extras) or
 * by hand (a full ZIP64 archive), and on bad input: no marker, not a zip,
 * truncation, byte flips, bad JSON, bad instruction ids, duplicates, caps;
 * plus the huge-string filter at chunk boundaries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <pthread.h>
#include <zip.h>

#include "etprof/etrecord.h"
#include "formats/etrecord/etrecord_internal.h"
#include "testutil.h"

/* ---- building zips ------------------------------------------------------ */

typedef struct zent {
    const char *name;
    const char *data; /* NUL-terminated unless len is set */
    size_t len;
    int deflate;
    int unknown_size; /* libzip then writes a ZIP64 extra field */
} zent;

typedef struct fn_src {
    const char *data;
    size_t len, pos;
} fn_src;

static zip_int64_t fn_cb(void *ud, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    fn_src *s = ud;
    switch (cmd) {
    case ZIP_SOURCE_OPEN: s->pos = 0; return 0;
    case ZIP_SOURCE_READ: {
        size_t k = s->len - s->pos;
        if (k > len)
            k = (size_t)len;
        memcpy(data, s->data + s->pos, k);
        s->pos += k;
        return (zip_int64_t)k;
    }
    case ZIP_SOURCE_CLOSE: return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = data;
        zip_stat_init(st); /* size deliberately unknown */
        return sizeof *st;
    }
    case ZIP_SOURCE_ERROR: return 2 * sizeof(int);
    case ZIP_SOURCE_FREE: free(s); return 0;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                              ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE,
                                              -1);
    default: return -1;
    }
}

static uint8_t *make_zip(const zent *e, size_t n, size_t *out_len)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &ze);
    assert_non_null(src);
    zip_source_keep(src);
    zip_t *za = zip_open_from_source(src, ZIP_TRUNCATE, &ze);
    assert_non_null(za);
    for (size_t i = 0; i < n; i++) {
        size_t len = e[i].len ? e[i].len : strlen(e[i].data);
        zip_source_t *s;
        if (e[i].unknown_size) {
            fn_src *fs = calloc(1, sizeof *fs);
            fs->data = e[i].data;
            fs->len = len;
            s = zip_source_function(za, fn_cb, fs);
        } else {
            s = zip_source_buffer(za, e[i].data, len, 0);
        }
        assert_non_null(s);
        zip_int64_t idx = zip_file_add(za, e[i].name, s, ZIP_FL_ENC_UTF_8);
        if (idx < 0)
            fail_msg("zip_file_add %s: %s", e[i].name, zip_strerror(za));
        zip_set_file_compression(za, (zip_uint64_t)idx, e[i].deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                 0);
        zip_file_set_mtime(za, (zip_uint64_t)idx, 0, 0);
    }
    if (zip_close(za) != 0)
        fail_msg("zip_close: %s", zip_strerror(za));
    assert_int_equal(zip_source_open(src), 0);
    zip_source_seek(src, 0, SEEK_END);
    zip_int64_t len = zip_source_tell(src);
    zip_source_seek(src, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)len);
    assert_int_equal(zip_source_read(src, buf, (zip_uint64_t)len), len);
    zip_source_close(src);
    zip_source_free(src);
    *out_len = (size_t)len;
    return buf;
}

/* A complete ZIP64 archive (STORED): 0xFFFFFFFF sizes and offsets with
 * ZIP64 extra fields, a ZIP64 end record and its locator, as Python's
 * zipfile writes once an archive grows past 4 GiB. */
static uint32_t crc32_bytes(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= b[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

typedef struct obuf {
    uint8_t *p;
    size_t n, cap;
} obuf;

static void put(obuf *o, const void *d, size_t n)
{
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2 + 256;
        o->p = realloc(o->p, o->cap);
    }
    memcpy(o->p + o->n, d, n);
    o->n += n;
}
static void p16(obuf *o, uint16_t v) { uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)}; put(o, b, 2); }
static void p32(obuf *o, uint32_t v) { p16(o, (uint16_t)v); p16(o, (uint16_t)(v >> 16)); }
static void p64(obuf *o, uint64_t v) { p32(o, (uint32_t)v); p32(o, (uint32_t)(v >> 32)); }

static uint8_t *make_zip64(const zent *e, size_t n, uint64_t fake_size_of_last, size_t *out_len)
{
    obuf o = {0}, cd = {0};
    for (size_t i = 0; i < n; i++) {
        size_t len = e[i].len ? e[i].len : strlen(e[i].data);
        uint64_t declared = (i == n - 1 && fake_size_of_last) ? fake_size_of_last : len;
        uint64_t off = o.n;
        uint32_t crc = crc32_bytes(e[i].data, len);
        uint16_t nl = (uint16_t)strlen(e[i].name);
        p32(&o, 0x04034b50); p16(&o, 45); p16(&o, 0); p16(&o, 0); p16(&o, 0); p16(&o, 0x21);
        p32(&o, crc); p32(&o, 0xFFFFFFFFu); p32(&o, 0xFFFFFFFFu); p16(&o, nl); p16(&o, 20);
        put(&o, e[i].name, nl);
        p16(&o, 1); p16(&o, 16); p64(&o, declared); p64(&o, declared);
        put(&o, e[i].data, len);
        p32(&cd, 0x02014b50); p16(&cd, 0x032d); p16(&cd, 45); p16(&cd, 0); p16(&cd, 0);
        p16(&cd, 0); p16(&cd, 0x21); p32(&cd, crc); p32(&cd, 0xFFFFFFFFu); p32(&cd, 0xFFFFFFFFu);
        p16(&cd, nl); p16(&cd, 28); p16(&cd, 0); p16(&cd, 0); p16(&cd, 0); p32(&cd, 0);
        p32(&cd, 0xFFFFFFFFu);
        put(&cd, e[i].name, nl);
        p16(&cd, 1); p16(&cd, 24); p64(&cd, declared); p64(&cd, declared); p64(&cd, off);
    }
    uint64_t cd_off = o.n;
    put(&o, cd.p, cd.n);
    uint64_t z64_off = o.n;
    p32(&o, 0x06064b50); p64(&o, 44); p16(&o, 45); p16(&o, 45); p32(&o, 0); p32(&o, 0);
    p64(&o, n); p64(&o, n); p64(&o, cd.n); p64(&o, cd_off);
    p32(&o, 0x07064b50); p32(&o, 0); p64(&o, z64_off); p32(&o, 1);
    p32(&o, 0x06054b50); p16(&o, 0); p16(&o, 0); p16(&o, 0xFFFF); p16(&o, 0xFFFF);
    p32(&o, 0xFFFFFFFFu); p32(&o, 0xFFFFFFFFu); p16(&o, 0);
    free(cd.p);
    *out_len = o.n;
    return o.p;
}

/* ---- synthetic contents ------------------------------------------------- */

/* Current-format edge program: one-key unions, named nodes, a delegate call
 * whose lowered module (a JSON string with escapes) is @p huge_len bytes. */
static char *current_program(size_t huge_len)
{
    static const char head[] =
        "{\"graph_module\": {\"graph\": {"
        "\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}, {\"as_tensor\": {\"name\": \"w\"}}],"
        "\"outputs\": [{\"as_tensor\": {\"name\": \"out\"}}],"
        "\"nodes\": ["
        "{\"name\": \"conv\", \"target\": \"executorch.exir.dialects.edge.ops.aten.convolution.default\","
        " \"inputs\": [{\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}},"
        "  {\"name\": \"weight\", \"arg\": {\"as_tensor\": {\"name\": \"w\"}}},"
        "  {\"name\": \"bias\", \"arg\": {\"as_none\": true}},"
        "  {\"name\": \"stride\", \"arg\": {\"as_ints\": [1, 1]}}],"
        " \"outputs\": [{\"as_tensor\": {\"name\": \"conv\"}}],"
        " \"metadata\": {\"debug_handle\": \"1\", \"stack_trace\": \"  File \\\"m.py\\\", line 3\\n\","
        "  \"nn_module_stack\": \"L__self__,,m.Net;L__self___conv,getattr(L['self'], 'conv'),torch.nn.Conv2d\","
        "  \"source_fn_stack\": \"conv,torch.nn.Conv2d\"}},"
        "{\"name\": \"cat\", \"target\": \"torch.ops.aten.cat.default\","
        " \"inputs\": [{\"name\": \"tensors\", \"arg\": {\"as_optional_tensors\": [{\"as_tensor\": {\"name\": \"conv\"}},"
        "   {\"as_none\": {}}, {\"as_tensor\": {\"name\": \"x\"}}]}}],"
        " \"outputs\": [{\"as_tensors\": [{\"name\": \"cat_0\"}, {\"name\": \"cat_1\"}]}],"
        " \"metadata\": {\"debug_handle\": \"2\"}},"
        "{\"name\": \"executorch_call_delegate\", \"target\": \"torch.ops.higher_order.executorch_call_delegate\","
        " \"inputs\": [{\"name\": \"lowered_module_0\", \"arg\": {\"as_string\": \"";
    static const char tail[] =
        "\"}}, {\"name\": \"delegate_arg_0\", \"arg\": {\"as_tensor\": {\"name\": \"cat_0\"}}}],"
        " \"outputs\": [{\"as_tensor\": {\"name\": \"out\"}}],"
        " \"metadata\": {\"debug_handle\": \"3\"}},"
        "{\"name\": \"alloc\", \"target\": \"memory.alloc\", \"inputs\": [], \"outputs\": [], \"metadata\": {}}"
        "], \"tensor_values\": {}}}, \"schema_version\": {\"major\": 5, \"minor\": 4}}";
    static const char unit[] = "{\\\"backend_id\\\": \\\"XnnpackBackend\\\", \\\"processed_bytes\\\": \\\"";
    size_t n = sizeof head - 1 + huge_len + sizeof tail - 1;
    char *s = malloc(n + 1);
    char *p = s;
    memcpy(p, head, sizeof head - 1);
    p += sizeof head - 1;
    size_t k = 0;
    if (huge_len >= sizeof unit - 1) {
        memcpy(p, unit, sizeof unit - 1);
        k = sizeof unit - 1;
    }
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (; k < huge_len; k++)
        p[k] = b64[k % 64];
    p += huge_len;
    memcpy(p, tail, sizeof tail);
    return s;
}

static const char dh_map[] = "{\"forward\": {\"0\": 1, \"1\": 2, \"2\": [3, 4], \"10\": null}, \"other\": {}}";
static const char dg_map[] =
    "{\"forward\": {\"2\": {\"name\": \"VulkanBackend\", \"delegate_map\": {\"0\": [3], \"1\": [4, 5]}}}}";
static const char no_map[] = "{\"forward\": {\"2\": 1}}";

static etp_etrecord *open_mem(const uint8_t *buf, size_t len, etp_error *err)
{
    etp_etrecord *r = NULL;
    etp_error_clear(err);
    etp_status st = etp_etrecord_from_memory(buf, len, "synthetic.etrecord", &r, err);
    if (st) {
        assert_null(r);
        assert_true(err->message[0] != '\0');
        assert_null(strchr(err->message, '\n'));
        return NULL;
    }
    return r;
}

static etp_etrecord *must_open(const uint8_t *buf, size_t len)
{
    etp_error err;
    etp_etrecord *r = open_mem(buf, len, &err);
    if (!r)
        fail_msg("open failed: %s", err.message);
    return r;
}

/* Open must fail; returns the error message (static). */
static const char *must_fail(const uint8_t *buf, size_t len, etp_status *code)
{
    static etp_error err;
    etp_etrecord *r = open_mem(buf, len, &err);
    if (r) {
        etp_etrecord_free(r);
        fail_msg("open unexpectedly succeeded");
    }
    if (code)
        *code = err.code;
    return err.message;
}

static void assert_contains(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("\"%s\" does not contain \"%s\"", hay, needle);
}

/* ---- real files --------------------------------------------------------- */

static void sample_2023(void **state)
{
    (void)state;
    if (!tu_have_fixtures())
        skip();
    etp_error err;
    etp_etrecord *r = NULL;
    if (etp_etrecord_open(tu_fixture("executorch/sample_etrecord.bin"), &r, &err))
        fail_msg("%s", err.message);
    assert_string_equal(r->layout, "2023 single program");
    assert_int_equal(r->entry_count, 7);
    static const char *names[] = {"ETRECORD_V0", "aten_dialect_output/forward",
                                  "aten_dialect_output/forward_state_dict",
                                  "edge_dialect_exported_program",
                                  "edge_dialect_exported_program_state_dict", "debug_handle_map",
                                  "delegate_map"};
    static const char *roles[] = {"marker", "graph_map_program", "side_blob", "edge_program",
                                  "side_blob", "debug_handle_map", "delegate_map"};
    for (uint32_t i = 0; i < 7; i++) {
        assert_string_equal(r->entries[i].name, names[i]);
        assert_string_equal(r->entries[i].role, roles[i]);
        assert_int_equal(r->entries[i].method, 0);
    }
    assert_int_equal(r->entries[1].size, 6559);
    assert_int_equal(r->entries[2].parsed, 0); /* torch.save blob: never parsed */
    assert_int_equal(r->program_count, 2);
    const etp_exported_program *edge = etp_etrecord_edge_program(r, "forward");
    assert_ptr_equal(edge, &r->programs[0]);
    assert_ptr_equal(etp_etrecord_edge_program(r, NULL), edge);
    assert_string_equal(edge->entry, "edge_dialect_exported_program");
    assert_string_equal(edge->method, "forward");
    assert_string_equal(edge->schema_version, "1");
    assert_int_equal(edge->node_count, 1);
    const etp_graph_node *n = &edge->nodes[0];
    assert_string_equal(n->op_type, "aten.mul.Tensor");
    assert_string_equal(n->target, "executorch.exir.dialects.edge.ops.aten.mul.Tensor");
    assert_string_equal(n->name, "aten_mul_tensor");
    assert_int_equal(n->name_source, ETP_NAME_FROM_OUTPUT);
    assert_true(n->has_debug_handle);
    assert_int_equal(n->debug_handle, 2);
    assert_non_null(n->stack_trace);
    assert_contains(n->stack_trace, "toy_model/model.py\", line 18, in forward\n    return input * other\n");
    assert_string_equal(n->source_fn_stack, "mul,_operator.mul");
    assert_null(n->nn_module_stack);
    assert_int_equal(n->input_count, 2);
    assert_string_equal(n->inputs[0], "arg0_1");
    assert_string_equal(n->inputs[1], "arg1_1");
    assert_int_equal(n->output_count, 1);
    assert_int_equal(edge->input_count, 2);
    assert_string_equal(edge->outputs[0], "aten_mul_tensor");
    const uint32_t *idx;
    assert_int_equal(etp_exported_program_nodes_with_handle(edge, 2, &idx), 1);
    assert_int_equal(idx[0], 0);
    /* the ATen copy: same op, tensor named "mul", no debug handle */
    const etp_exported_program *aten = etp_etrecord_program(r, "aten_dialect_output/forward");
    assert_non_null(aten);
    assert_int_equal(aten->is_edge, 0);
    assert_string_equal(aten->nodes[0].name, "mul");
    assert_string_equal(aten->nodes[0].op_type, "aten.mul.Tensor");
    assert_false(aten->nodes[0].has_debug_handle);
    /* maps present but empty, distinct from absent */
    assert_true(r->has_debug_handle_map);
    assert_true(r->has_delegate_map);
    assert_false(r->has_num_outs_map);
    assert_false(r->has_export_graph_id);
    assert_int_equal(r->method_count, 0);
    assert_null(etp_etrecord_maps(r, "forward"));
    etp_etrecord_free(r);
}

static void kws_2026(void **state)
{
    (void)state;
    if (!tu_have_fixtures())
        skip();
    etp_error err;
    etp_etrecord *r = NULL;
    if (etp_etrecord_open(tu_fixture("real-runs/cm_et_arduino_kws_x10.etrecord"), &r, &err))
        fail_msg("%s", err.message);
    assert_string_equal(r->layout, "2026 per-method");
    assert_int_equal(r->entry_count, 13);
    assert_int_equal(r->program_count, 2);
    assert_string_equal(r->programs[0].entry, "edge_dialect_exported_program/forward");
    assert_string_equal(r->programs[1].entry, "exported_program");
    assert_int_equal(r->programs[1].kind, ETP_ETR_EXPORTED_PROGRAM);
    const etp_exported_program *edge = etp_etrecord_edge_program(r, "forward");
    assert_non_null(edge);
    assert_null(etp_etrecord_edge_program(r, "other"));
    assert_string_equal(edge->schema_version, "5.4");
    assert_int_equal(edge->node_count, 15);
    const etp_graph_node *n0 = &edge->nodes[0];
    assert_string_equal(n0->name, "quantize_per_tensor_default");
    assert_int_equal(n0->name_source, ETP_NAME_FROM_NODE);
    assert_string_equal(n0->op_type, "cortex_m.quantize_per_tensor.default");
    assert_int_equal(n0->debug_handle, 1);
    assert_int_equal(n0->module_depth, 2);
    assert_string_equal(n0->modules[0].key, "L__self__");
    assert_string_equal(n0->modules[0].path, "");
    assert_string_equal(n0->modules[0].type, "kws.model.DSCNN");
    assert_string_equal(n0->modules[1].key, "L__self___quant");
    assert_string_equal(n0->modules[1].path, "quant");
    assert_string_equal(n0->modules[1].type, "torch.nn.modules.module.Module");
    assert_string_equal(n0->inputs[0], "x");
    assert_string_equal(edge->nodes[1].inputs[0], "quantize_per_tensor_default");

    assert_true(r->has_export_graph_id);
    assert_int_equal(r->export_graph_id, 140000000000016LL);
    assert_int_equal(r->method_count, 1);
    const etp_method_maps *m = etp_etrecord_maps(r, "forward");
    assert_non_null(m);
    assert_ptr_equal(etp_etrecord_maps(r, NULL), m);
    assert_true(m->in_debug_handle_map && m->in_delegate_map && m->in_num_outs_map);
    assert_int_equal(m->handle_count, 16);
    assert_int_equal(m->delegate_count, 0);
    assert_int_equal(m->num_outs_count, 0);
    for (uint32_t i = 0; i < m->handle_count; i++)
        assert_int_equal(m->handles[i].instruction_id, (int32_t)i); /* sorted numerically */

    /* instructions 12 and 13 share handle 13: pad + avg-pool */
    const etp_handle_list *h12 = etp_etrecord_instr_handles(m, 12);
    const etp_handle_list *h13 = etp_etrecord_instr_handles(m, 13);
    assert_non_null(h12);
    assert_non_null(h13);
    assert_int_equal(h12->count, 1);
    assert_int_equal(h12->handles[0], 13);
    assert_int_equal(h13->handles[0], 13);
    const uint32_t *idx;
    assert_int_equal(etp_exported_program_nodes_with_handle(edge, 13, &idx), 2);
    assert_string_equal(edge->nodes[idx[0]].name, "pad_default");
    assert_string_equal(edge->nodes[idx[0]].op_type, "cortex_m.pad.default");
    assert_string_equal(edge->nodes[idx[1]].name, "quantized_avg_pool2d_default");
    /* instruction 15 has handle 16, which no node carries */
    const etp_handle_list *h15 = etp_etrecord_instr_handles(m, 15);
    assert_non_null(h15);
    assert_int_equal(h15->handles[0], 16);
    assert_int_equal(etp_exported_program_nodes_with_handle(edge, 16, &idx), 0);
    assert_null(idx);
    assert_null(etp_etrecord_instr_handles(m, 16));
    assert_null(etp_etrecord_instr_delegate(m, 12));
    int64_t outs = -1;
    assert_int_equal(etp_etrecord_instr_num_outs(m, 12, &outs), 0);
    /* handle 14 was never used */
    assert_int_equal(etp_exported_program_nodes_with_handle(edge, 14, NULL), 0);
    etp_etrecord_free(r);
}

/* ---- synthetic archives ------------------------------------------------- */

static void check_synthetic(const etp_etrecord *r, size_t huge_len)
{
    assert_string_equal(r->layout, "2026 per-method");
    const etp_exported_program *p = etp_etrecord_edge_program(r, "forward");
    assert_non_null(p);
    assert_int_equal(p->node_count, 4);
    assert_int_equal(p->skipped_strings, huge_len > ETP_ETRECORD_HUGE_STRING ? 1 : 0);
    assert_int_equal(p->skipped_bytes, huge_len > ETP_ETRECORD_HUGE_STRING ? huge_len : 0);
    const etp_graph_node *conv = &p->nodes[0], *cat = &p->nodes[1], *del = &p->nodes[2];
    assert_string_equal(conv->op_type, "aten.convolution.default");
    assert_int_equal(conv->input_count, 2); /* bias None and stride ints name no tensor */
    assert_string_equal(conv->inputs[1], "w");
    assert_string_equal(conv->stack_trace, "  File \"m.py\", line 3\n");
    assert_int_equal(conv->module_depth, 2);
    assert_string_equal(conv->modules[1].key, "L__self___conv");
    assert_string_equal(conv->modules[1].path, "getattr(L['self'], 'conv')");
    assert_string_equal(conv->modules[1].type, "torch.nn.Conv2d");
    assert_string_equal(cat->op_type, "aten.cat.default");
    assert_int_equal(cat->input_count, 2);
    assert_string_equal(cat->inputs[0], "conv");
    assert_string_equal(cat->inputs[1], "x");
    assert_int_equal(cat->output_count, 2);
    assert_string_equal(cat->outputs[1], "cat_1");
    assert_true(del->is_delegate_call);
    assert_false(cat->is_delegate_call);
    assert_string_equal(del->op_type, "executorch_call_delegate");
    assert_int_equal(del->debug_handle, 3);
    assert_int_equal(del->input_count, 1);
    assert_string_equal(del->inputs[0], "cat_0");
    assert_string_equal(p->nodes[3].op_type, "alloc");
    assert_false(p->nodes[3].has_debug_handle);

    assert_int_equal(r->method_count, 2);
    assert_string_equal(r->methods[0].method, "forward");
    assert_string_equal(r->methods[1].method, "other");
    const etp_method_maps *other = etp_etrecord_maps(r, "other");
    assert_true(other->in_debug_handle_map);
    assert_false(other->in_delegate_map);
    assert_int_equal(other->handle_count, 0);
    const etp_method_maps *m = etp_etrecord_maps(r, "forward");
    assert_int_equal(m->handle_count, 4);
    assert_int_equal(m->handles[3].instruction_id, 10); /* "10" sorts after "2" */
    assert_int_equal(m->handles[3].handles.count, 0);   /* null: no handles */
    const etp_handle_list *h2 = etp_etrecord_instr_handles(m, 2);
    assert_int_equal(h2->count, 2);
    assert_int_equal(h2->handles[1], 4);
    const etp_instr_delegate *d = etp_etrecord_instr_delegate(m, 2);
    assert_non_null(d);
    assert_string_equal(d->backend, "VulkanBackend");
    assert_int_equal(d->id_count, 2);
    assert_string_equal(d->ids[1].delegate_id, "1");
    assert_int_equal(d->ids[1].handles.count, 2);
    assert_int_equal(d->ids[1].handles.handles[1], 5);
    int64_t outs = 0;
    assert_int_equal(etp_etrecord_instr_num_outs(m, 2, &outs), 1);
    assert_int_equal(outs, 1);
    assert_true(r->has_export_graph_id);
    assert_int_equal(r->export_graph_id, 42);
}

static void deflate_archive(void **state)
{
    (void)state;
    char *prog = current_program(100);
    zent e[] = {
        {"ETRECORD_V0", "", 0, 0, 0},
        {"edge_dialect_exported_program/forward", prog, 0, 1, 0},
        {"edge_dialect_exported_program/forward_state_dict", "PK-not-parsed", 0, 1, 0},
        {"debug_handle_map", dh_map, 0, 1, 0},
        {"delegate_map", dg_map, 0, 1, 0},
        {"instruction_id_to_num_outs_map", no_map, 0, 1, 0},
        {"export_graph_id", "42", 0, 1, 0},
    };
    size_t len;
    uint8_t *zip = make_zip(e, 7, &len);
    etp_etrecord *r = must_open(zip, len);
    assert_int_equal(r->entries[1].method, ZIP_CM_DEFLATE);
    assert_true(r->entries[1].compressed_size < r->entries[1].size);
    check_synthetic(r, 100);
    etp_etrecord_free(r);
    free(zip);
    free(prog);
}

static void zip64_archives(void **state)
{
    (void)state;
    char *prog = current_program(100);
    zent e[] = {
        {"ETRECORD_V0", "", 0, 0, 1},
        {"edge_dialect_exported_program/forward", prog, 0, 0, 1},
        {"debug_handle_map", dh_map, 0, 1, 1},
        {"delegate_map", dg_map, 0, 0, 1},
        {"instruction_id_to_num_outs_map", no_map, 0, 0, 0},
        {"export_graph_id", "42", 0, 0, 0},
    };
    /* libzip: ZIP64 extra fields in the local headers */
    size_t len;
    uint8_t *zip = make_zip(e, 6, &len);
    etp_etrecord *r = must_open(zip, len);
    check_synthetic(r, 100);
    etp_etrecord_free(r);
    free(zip);
    /* by hand: full ZIP64 (end record, locator, 0xFFFFFFFF fields) */
    zip = make_zip64(e, 6, 0, &len);
    r = must_open(zip, len);
    check_synthetic(r, 100);
    assert_int_equal(r->entries[2].size, strlen(dh_map));
    etp_etrecord_free(r);
    free(zip);
    /* a ZIP64 entry declaring 9 GiB it does not hold */
    zip = make_zip64(e, 6, 9ull << 30, &len);
    must_fail(zip, len, NULL);
    free(zip);
    free(prog);
}

static void huge_strings_skipped(void **state)
{
    (void)state;
    size_t huge = 3u << 20; /* 3 MiB lowered module */
    char *prog = current_program(huge);
    zent e[] = {
        {"ETRECORD_V0", "", 0, 0, 0},
        {"edge_dialect_exported_program/forward", prog, 0, 0, 0},
        {"debug_handle_map", dh_map, 0, 0, 0},
        {"delegate_map", dg_map, 0, 0, 0},
        {"instruction_id_to_num_outs_map", no_map, 0, 0, 0},
        {"export_graph_id", "42", 0, 0, 0},
    };
    size_t len;
    uint8_t *zip = make_zip(e, 6, &len);
    etp_etrecord *r = must_open(zip, len);
    check_synthetic(r, huge);
    etp_etrecord_free(r);
    free(zip);
    /* just at the threshold: kept and parsed */
    char *prog2 = current_program(ETP_ETRECORD_HUGE_STRING);
    e[1].data = prog2;
    e[1].deflate = 1;
    zip = make_zip(e, 6, &len);
    r = must_open(zip, len);
    check_synthetic(r, ETP_ETRECORD_HUGE_STRING);
    etp_etrecord_free(r);
    free(zip);
    free(prog2);
    free(prog);
}

static void missing_marker_and_not_zip(void **state)
{
    (void)state;
    zent e[] = {{"debug_handle_map", dh_map, 0, 0, 0}, {"other", "{}", 0, 1, 0}};
    size_t len;
    uint8_t *zip = make_zip(e, 2, &len);
    etp_status code;
    const char *msg = must_fail(zip, len, &code);
    assert_int_equal(code, ETP_E_FORMAT);
    assert_contains(msg, "no ETRECORD_V0");
    free(zip);

    static const uint8_t junk[] = "this is not a zip archive at all, just text";
    msg = must_fail(junk, sizeof junk, &code);
    assert_int_equal(code, ETP_E_FORMAT);
    assert_contains(msg, "not a readable zip archive");
    /* an empty file is an empty archive: no marker */
    msg = must_fail(junk, 0, &code);
    assert_contains(msg, "ETRECORD_V0");
}

static void truncated_and_flipped(void **state)
{
    (void)state;
    char *prog = current_program(200);
    zent e[] = {
        {"ETRECORD_V0", "", 0, 0, 0},
        {"edge_dialect_exported_program/forward", prog, 0, 1, 0},
        {"debug_handle_map", dh_map, 0, 0, 0},
        {"delegate_map", dg_map, 0, 1, 0},
    };
    size_t len;
    uint8_t *zip = make_zip(e, 4, &len);
    etp_etrecord *r = must_open(zip, len);
    etp_etrecord_free(r);
    /* every cut point: always an error, never a crash */
    for (size_t cut = 0; cut < len; cut++) {
        etp_error err;
        r = open_mem(zip, cut, &err);
        if (r)
            fail_msg("truncated at %zu of %zu bytes but opened", cut, len);
    }
    /* every byte flipped: an error or a (CRC-proof) success, never a crash */
    uint8_t *copy = malloc(len);
    for (size_t i = 0; i < len; i++) {
        memcpy(copy, zip, len);
        copy[i] ^= 0x5A;
        etp_error err;
        r = open_mem(copy, len, &err);
        etp_etrecord_free(r);
    }
    free(copy);
    free(zip);
    free(prog);
}

static void bad_json(void **state)
{
    (void)state;
    char *prog = current_program(10);
    zent e[] = {
        {"ETRECORD_V0", "", 0, 0, 0},
        {"edge_dialect_exported_program/forward", prog, 0, 0, 0},
        {"debug_handle_map", "{\"forward\": {\"0\": 1,}}", 0, 0, 0},
    };
    size_t len;
    uint8_t *zip = make_zip(e, 3, &len);
    etp_status code;
    const char *msg = must_fail(zip, len, &code);
    assert_int_equal(code, ETP_E_FORMAT);
    assert_contains(msg, "entry 'debug_handle_map': invalid JSON near byte 21 of the entry: ");
    free(zip);

    /* a program cut short */
    e[2].data = dh_map;
    e[1].len = strlen(prog) / 2;
    zip = make_zip(e, 3, &len);
    msg = must_fail(zip, len, NULL);
    assert_contains(msg, "entry 'edge_dialect_exported_program/forward': invalid JSON");
    free(zip);

    /* the error offset counts the bytes of a skipped huge string */
    size_t hl = 100000;
    char *doc = malloc(hl + 64);
    strcpy(doc, "{\"graph_module\": \"");
    size_t at = strlen(doc);
    memset(doc + at, 'A', hl);
    strcpy(doc + at + hl, "\", oops}");
    e[1].data = doc;
    e[1].len = 0;
    zip = make_zip(e, 3, &len);
    msg = must_fail(zip, len, NULL);
    char want[64];
    snprintf(want, sizeof want, "near byte %zu ", at + hl + 1 + 2 + 4); /* end of 'oops' */
    assert_contains(msg, want);
    free(zip);
    free(doc);

    /* valid JSON, wrong shapes */
    e[1].data = "{\"graph_module\": {\"graph\": {\"nodes\": [{\"name\": \"a\"}]}}}";
    zip = make_zip(e, 3, &len);
    msg = must_fail(zip, len, NULL);
    assert_contains(msg, "graph.nodes[0] has no target string");
    free(zip);
    e[1].data = "[1, 2]";
    zip = make_zip(e, 3, &len);
    msg = must_fail(zip, len, NULL);
    assert_contains(msg, "not a serialized exported program");
    free(zip);
    e[1].data = "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", "
                "\"metadata\": {\"debug_handle\": \"1x\"}}]}}}";
    zip = make_zip(e, 3, &len);
    msg = must_fail(zip, len, NULL);
    assert_contains(msg, "metadata.debug_handle is not a decimal integer");
    free(zip);
    free(prog);
}

static void bad_instruction_ids(void **state)
{
    (void)state;
    char *prog = current_program(10);
    static const struct {
        const char *entry, *json, *want;
    } cases[] = {
        {"debug_handle_map", "{\"forward\": {\"x1\": 1}}", "key \"x1\" is not a non-negative"},
        {"debug_handle_map", "{\"forward\": {\"-1\": 1}}", "key \"-1\" is not a non-negative"},
        {"debug_handle_map", "{\"forward\": {\"01\": 1}}", "key \"01\" is not a non-negative"},
        {"debug_handle_map", "{\"forward\": {\"4294967296\": 1}}", "key \"4294967296\""},
        {"debug_handle_map", "{\"forward\": {\"1\": \"2\"}}", "instruction 1: value is not an integer"},
        {"debug_handle_map", "{\"forward\": [1]}", "method \"forward\" is not an object"},
        {"debug_handle_map", "[]", "the top level is not an object"},
        {"delegate_map", "{\"forward\": {\" 2\": {}}}", "key \" 2\" is not a non-negative"},
        {"delegate_map", "{\"forward\": {\"2\": {\"name\": \"X\", \"delegate_map\": {\"0\": \"a\"}}}}",
         "delegate id \"0\""},
        {"instruction_id_to_num_outs_map", "{\"forward\": {\"1.5\": 1}}", "key \"1.5\""},
        {"instruction_id_to_num_outs_map", "{\"forward\": {\"1\": [1]}}", "value is not an integer"},
        {"export_graph_id", "\"42\"", "entry 'export_graph_id': not a JSON integer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zent e[] = {
            {"ETRECORD_V0", "", 0, 0, 0},
            {"edge_dialect_exported_program/forward", prog, 0, 0, 0},
            {cases[i].entry, cases[i].json, 0, 0, 0},
        };
        size_t len;
        uint8_t *zip = make_zip(e, 3, &len);
        const char *msg = must_fail(zip, len, NULL);
        assert_contains(msg, cases[i].entry);
        assert_contains(msg, cases[i].want);
        free(zip);
    }
    free(prog);
}

static void duplicates_and_caps(void **state)
{
    (void)state;
    /* same-length names, then patched to be equal everywhere they occur */
    zent e[] = {
        {"ETRECORD_V0", "", 0, 0, 0},
        {"debug_handle_map", "{}", 0, 0, 0},
        {"debug_handle_mqp", "{}", 0, 0, 0},
    };
    size_t len;
    uint8_t *zip = make_zip(e, 3, &len);
    for (size_t i = 0; i + 16 <= len; i++)
        if (memcmp(zip + i, "debug_handle_mqp", 16) == 0)
            zip[i + 14] = 'a';
    const char *msg = must_fail(zip, len, NULL);
    assert_contains(msg, "the same entry name twice");
    free(zip);

    /* more entries than the cap */
    size_t n = ETP_ETRECORD_MAX_ENTRIES + 1;
    zent *many = calloc(n, sizeof *many);
    char (*names)[16] = calloc(n, 16);
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], 16, "e%zu", i);
        many[i].name = i ? names[i] : "ETRECORD_V0";
        many[i].data = "";
    }
    zip = make_zip(many, n, &len);
    etp_status code;
    msg = must_fail(zip, len, &code);
    assert_int_equal(code, ETP_E_LIMIT);
    assert_contains(msg, "entries; the limit is");
    free(zip);
    free(names);
    free(many);
}

static void old_style_program(void **state)
{
    (void)state;
    /* 2023 style: every union member written, nulls, no node names; the
     * name comes from the first output (here an as_tensors list). */
    static const char prog[] =
        "{\"graph_module\": {\"graph\": {"
        "\"inputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"a\"}, \"as_tensors\": null}],"
        "\"outputs\": [{\"as_none\": null, \"as_tensor\": null, \"as_tensors\": [{\"name\": \"s0\"}, {\"name\": \"s1\"}]}],"
        "\"nodes\": [{\"target\": \"torch.ops.aten.split.Tensor\","
        " \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_none\": null, \"as_tensor\": {\"name\": \"a\"}, \"as_tensors\": null, \"as_int\": null}},"
        "             {\"name\": \"split_size\", \"arg\": {\"as_none\": null, \"as_tensor\": null, \"as_int\": 2}}],"
        " \"outputs\": [{\"as_none\": null, \"as_tensor\": null, \"as_tensors\": [{\"name\": \"s0\"}, {\"name\": \"s1\"}]}],"
        " \"metadata\": {\"debug_handle\": \"7\", \"nn_module_stack\": null}},"
        " {\"target\": \"_operator.getitem\", \"inputs\": [], \"outputs\": [], \"metadata\": {}}]}},"
        " \"schema_version\": 1}";
    zent e[] = {
        {"ETRECORD_V0", "", 0, 0, 0},
        {"edge_dialect_exported_program", prog, 0, 0, 0},
        {"edge_dialect_exported_program_state_dict", "x", 0, 0, 0},
        {"edge_dialect_exported_program_constants", "x", 0, 0, 0},
        {"debug_handle_map", "{\"forward\": {\"3\": 7}}", 0, 0, 0},
    };
    size_t len;
    uint8_t *zip = make_zip(e, 5, &len);
    etp_etrecord *r = must_open(zip, len);
    assert_string_equal(r->layout, "2024 single program");
    const etp_exported_program *p = etp_etrecord_edge_program(r, NULL);
    assert_non_null(p);
    assert_string_equal(p->method, "forward");
    assert_int_equal(p->node_count, 2);
    assert_string_equal(p->nodes[0].name, "s0");
    assert_int_equal(p->nodes[0].name_source, ETP_NAME_FROM_OUTPUT);
    assert_int_equal(p->nodes[0].input_count, 1);
    assert_int_equal(p->nodes[0].output_count, 2);
    assert_int_equal(p->nodes[0].debug_handle, 7);
    assert_null(p->nodes[0].nn_module_stack);
    assert_string_equal(p->nodes[1].name, "node_1");
    assert_int_equal(p->nodes[1].name_source, ETP_NAME_SYNTHESIZED);
    assert_string_equal(p->nodes[1].op_type, "getitem");
    assert_int_equal(p->output_count, 2);
    assert_false(r->has_delegate_map);
    assert_int_equal(etp_etrecord_instr_handles(etp_etrecord_maps(r, NULL), 3)->handles[0], 7);
    etp_etrecord_free(r);
    free(zip);
}

/* ---- pieces ------------------------------------------------------------- */

static void classify_names(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        etp_etrecord_role kind;
        const char *method;
    } cases[] = {
        {"ETRECORD_V0", ETP_ETR_MARKER, NULL},
        {"edge_dialect_exported_program", ETP_ETR_EDGE_PROGRAM, "forward"},
        {"edge_dialect_exported_program/decode", ETP_ETR_EDGE_PROGRAM, "decode"},
        {"edge_dialect_exported_program/decode_state_dict", ETP_ETR_SIDE_BLOB, NULL},
        {"edge_dialect_exported_program/forward_example_inputs", ETP_ETR_SIDE_BLOB, NULL},
        {"edge_dialect_exported_program_constants", ETP_ETR_SIDE_BLOB, NULL},
        {"exported_program", ETP_ETR_EXPORTED_PROGRAM, "forward"},
        {"exported_program_state_dict", ETP_ETR_SIDE_BLOB, NULL},
        {"aten_dialect_output/forward", ETP_ETR_GRAPH_MAP_PROGRAM, "forward"},
        {"edge_after_transform/encode", ETP_ETR_GRAPH_MAP_PROGRAM, "encode"},
        {"mystery", ETP_ETR_GRAPH_MAP_PROGRAM, "forward"},
        {"my_module/forward_constants", ETP_ETR_SIDE_BLOB, NULL},
        {"debug_handle_map", ETP_ETR_DEBUG_HANDLE_MAP, NULL},
        {"delegate_map", ETP_ETR_DELEGATE_MAP, NULL},
        {"instruction_id_to_num_outs_map", ETP_ETR_NUM_OUTS_MAP, NULL},
        {"export_graph_id", ETP_ETR_EXPORT_GRAPH_ID, NULL},
        {"reference_outputs", ETP_ETR_REFERENCE_OUTPUTS, NULL},
        {"representative_inputs", ETP_ETR_REPRESENTATIVE_INPUTS, NULL},
        {"program_buffer", ETP_ETR_RESERVED_UNUSED, NULL},
        {"et_dialect_graph_module", ETP_ETR_RESERVED_UNUSED, NULL},
        {"et_dialect_graph_module/forward", ETP_ETR_GRAPH_MAP_PROGRAM, "forward"},
        {"somedir/", ETP_ETR_DIRECTORY, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *method = "unset";
        etp_etrecord_role k = etr_classify(cases[i].name, &method);
        if (k != cases[i].kind)
            fail_msg("%s: role %s", cases[i].name, etr_role_name(k));
        if (cases[i].method)
            assert_string_equal(method, cases[i].method);
        else
            assert_null(method);
    }
}

static void op_types_and_module_stacks(void **state)
{
    (void)state;
    etr_arena a = {0};
    static const char *cases[][2] = {
        {"executorch.exir.dialects.edge.ops.aten.convolution.default", "aten.convolution.default"},
        {"torch.ops.aten.mul.Tensor", "aten.mul.Tensor"},
        {"executorch.exir.dialects.backend.ops.qnn.conv.default", "qnn.conv.default"},
        {"torch.ops.higher_order.executorch_call_delegate", "executorch_call_delegate"},
        {"executorch.exir.delegate.executorch_call_delegate", "executorch_call_delegate"},
        {"torch.ops.higher_order.cond", "cond"},
        {"torch.ops.ops.foo.default", "ops.foo.default"},
        {"executorch.exir.dialects.edge.ops.my_ops.ops.default", "my_ops.ops.default"},
        {"memory.alloc", "alloc"},
        {"_operator.getitem", "getitem"},
        {"plain", "plain"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int del = -1;
        assert_string_equal(etr_op_type(&a, cases[i][0], &del), cases[i][1]);
        assert_int_equal(del, strstr(cases[i][0], "call_delegate") != NULL);
    }
    etp_module_frame *f;
    uint32_t n;
    assert_int_equal(etr_parse_module_stack(
                         &a, "L__self__,,m.Net;k2,p[1,2],x.Y;;only_key;k4,f(a,(b,c)),T", &f, &n),
                     0);
    assert_int_equal(n, 4);
    assert_string_equal(f[0].key, "L__self__");
    assert_string_equal(f[0].path, "");
    assert_string_equal(f[0].type, "m.Net");
    assert_string_equal(f[1].path, "p[1,2]");
    assert_string_equal(f[1].type, "x.Y");
    assert_string_equal(f[2].key, "only_key");
    assert_string_equal(f[2].type, "");
    assert_string_equal(f[3].path, "f(a,(b,c))");
    assert_string_equal(f[3].type, "T");
    assert_int_equal(etr_parse_module_stack(&a, "", &f, &n), 0);
    assert_int_equal(n, 0);
    int64_t v;
    assert_int_equal(etr_parse_int64("-9223372036854775808", &v), 0);
    assert_true(v == INT64_MIN);
    assert_int_equal(etr_parse_int64("9223372036854775808", &v), -1);
    assert_int_equal(etr_parse_int64(" 1", &v), -1);
    assert_int_equal(etr_parse_int64("", &v), -1);
    assert_int_equal(etr_parse_int64("-", &v), -1);
    etr_arena_free(&a);
}

static char *squeeze_all(const char *in, size_t chunk, size_t threshold, etr_squeeze *s)
{
    etr_squeeze_init(s, threshold, 1 << 20);
    size_t n = strlen(in);
    for (size_t i = 0; i < n; i += chunk)
        assert_int_equal(etr_squeeze_feed(s, in + i, n - i < chunk ? n - i : chunk), 0);
    assert_int_equal(etr_squeeze_finish(s), 0);
    return s->buf;
}

static void squeeze_boundaries(void **state)
{
    (void)state;
    /* escapes, a backslash before a closing quote, exactly-threshold strings */
    static const char in[] = "{\"a\":\"0123456789\",\"b\":\"x\\\"y\",\"c\":\"abcdefgh\","
                             "\"d\":[\"ab\\\\\",\"q\\\\\\\"rstuvwxyz\"],\"e\":\"\"}";
    static const char want[] = "{\"a\":\"<etprof: 10-byte string skipped>\",\"b\":\"x\\\"y\","
                               "\"c\":\"abcdefgh\",\"d\":[\"ab\\\\\","
                               "\"<etprof: 14-byte string skipped>\"],\"e\":\"\"}";
    for (size_t chunk = 1; chunk <= sizeof in; chunk++) {
        etr_squeeze s;
        const char *out = squeeze_all(in, chunk, 8, &s);
        if (strcmp(out, want) != 0)
            fail_msg("chunk %zu: %s", chunk, out);
        assert_int_equal(s.skipped_strings, 2);
        assert_int_equal(s.skipped_bytes, 24);
        /* positions after the first placeholder map back to raw offsets */
        const char *b_out = strstr(out, "\"b\"");
        const char *b_in = strstr(in, "\"b\"");
        assert_int_equal(etr_squeeze_raw_offset(&s, (uint64_t)(b_out - out)), (uint64_t)(b_in - in));
        const char *e_out = strstr(out, "\"e\"");
        const char *e_in = strstr(in, "\"e\"");
        assert_int_equal(etr_squeeze_raw_offset(&s, (uint64_t)(e_out - out)), (uint64_t)(e_in - in));
        etr_squeeze_free(&s);
    }
    /* room reserved up front from a declared size changes nothing */
    for (size_t chunk = 1; chunk <= sizeof in; chunk += 7) {
        etr_squeeze s;
        etr_squeeze_init(&s, 8, 1 << 20);
        etr_squeeze_expect(&s, 1 << 21);
        assert_true(s.cap > 1 << 19);
        for (size_t i = 0; i < sizeof in - 1; i += chunk) {
            size_t n = sizeof in - 1 - i < chunk ? sizeof in - 1 - i : chunk;
            assert_int_equal(etr_squeeze_feed(&s, in + i, n), 0);
        }
        assert_int_equal(etr_squeeze_finish(&s), 0);
        assert_string_equal(s.buf, want);
        etr_squeeze_free(&s);
    }
    /* the kept-text cap */
    etr_squeeze s;
    etr_squeeze_init(&s, 8, 10);
    assert_int_equal(etr_squeeze_feed(&s, "[1,2,3,4,5,6,7]", 15), -1);
    assert_int_equal(s.failed, 2);
    etr_squeeze_free(&s);
}

static void cli_dump(void **state)
{
    (void)state;
    if (!tu_have_fixtures())
        skip();
    char cmd[2048];
    int st;
    snprintf(cmd, sizeof cmd, "%s dump %s 2>&1", tu_etprof(),
             tu_fixture("real-runs/cm_et_arduino_kws_x10.etrecord"));
    char *out = tu_run(cmd, &st);
    assert_int_equal(st, 0);
    assert_contains(out, "layout \"2026 per-method\"");
    assert_contains(out, "instruction   15 -> handle 16  (no node)");
    assert_contains(out, "instruction   12 -> handle 13  (2 nodes)");
    free(out);
    snprintf(cmd, sizeof cmd, "%s dump %s 2>&1", tu_etprof(),
             tu_fixture("executorch/sample_etrecord.bin"));
    out = tu_run(cmd, &st);
    assert_int_equal(st, 0);
    assert_contains(out, "aten.mul.Tensor");
    free(out);
    /* a zip without the marker: one line, exit 1 */
    char *dir = tu_tmpdir();
    zent e[] = {{"debug_handle_map", "{}", 0, 0, 0}};
    size_t len;
    uint8_t *zip = make_zip(e, 1, &len);
    char path[1024];
    snprintf(path, sizeof path, "%s/nomarker.zip", dir);
    FILE *f = fopen(path, "wb");
    fwrite(zip, 1, len, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s dump %s 2>&1", tu_etprof(), path);
    out = tu_run(cmd, &st);
    assert_int_equal(st, 1);
    assert_contains(out, "nomarker.zip: not an ETRecord: the zip archive (1 entries) has no "
                         "ETRECORD_V0 marker entry\n");
    size_t lines = 0;
    for (const char *c = out; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 1);
    free(out);
    free(zip);
    tu_rmrf(dir);
    free(dir);
}

/* Another thread's jansson use while an ETRecord is parsed with jansson:
 * the reader's arena serves only its own thread, so the other thread's
 * values come from and go back to malloc (ASan would see any mix-up). */
typedef struct json_churn {
    volatile int stop;
    unsigned long rounds;
} json_churn;

static void *churn_json(void *arg)
{
    json_churn *c = arg;
    while (!c->stop || c->rounds < 1000) {
        json_t *o = json_pack("{s:i, s:[s, f]}", "n", (int)c->rounds, "a", "text", 1.5);
        assert_non_null(o);
        json_decref(o);
        c->rounds++;
    }
    return NULL;
}

static void jansson_other_thread(void **state)
{
    (void)state;
    if (!tu_have_fixtures())
        skip();
    setenv("ETPROF_NO_FAST_JSON", "1", 1); /* every entry goes through jansson */
    json_churn c = {0, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, churn_json, &c), 0);
    for (int i = 0; i < 3; i++) {
        etp_etrecord *r = NULL;
        etp_error err;
        assert_int_equal(etp_etrecord_open(tu_fixture("real-runs/cm_et_arduino_kws_x10.etrecord"),
                                           &r, &err),
                         ETP_OK);
        assert_true(r->program_count > 0);
        etp_etrecord_free(r);
    }
    c.stop = 1;
    pthread_join(th, NULL);
    unsetenv("ETPROF_NO_FAST_JSON");
    /* After the record, this thread's jansson is the ordinary one. */
    json_t *o = json_string("after");
    assert_non_null(o);
    json_decref(o);
}

int main(void)
{
    /* Synthetic cases always run; the real-file cases skip (with a note)
     * only when ../shared/fixtures is absent. */
    if (!tu_have_fixtures())
        printf("SKIP (partly): ../shared/fixtures is absent; real-file cases are skipped\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_2023),
        cmocka_unit_test(kws_2026),
        cmocka_unit_test(deflate_archive),
        cmocka_unit_test(zip64_archives),
        cmocka_unit_test(huge_strings_skipped),
        cmocka_unit_test(missing_marker_and_not_zip),
        cmocka_unit_test(truncated_and_flipped),
        cmocka_unit_test(bad_json),
        cmocka_unit_test(bad_instruction_ids),
        cmocka_unit_test(duplicates_and_caps),
        cmocka_unit_test(old_style_program),
        cmocka_unit_test(classify_names),
        cmocka_unit_test(op_types_and_module_stacks),
        cmocka_unit_test(squeeze_boundaries),
        cmocka_unit_test(cli_dump),
        cmocka_unit_test(jansson_other_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
