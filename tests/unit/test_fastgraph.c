/* test_fastgraph.c - the one-pass exported-program decoder against the
 * jansson one. The rule under test: whenever etr_program_decode_fast says
 * OK, json_loadb + etr_program_decode succeed on the same (squeezed,
 * pruned) text and produce an identical program; when it declines it
 * leaves the program alone. Checked on hand-written documents (current and
 * 2023 styles, escapes, key orders, duplicates, bad numbers, bad UTF-8),
 * every truncation and many byte flips of a small document, the real
 * ETRecords in ../shared/fixtures, and generated big ones; plus that the
 * fast path really is taken on normal documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/etrecord.h"
#include "etprof/gen.h"
#include "formats/etrecord/etrecord_internal.h"
#include "testutil.h"

/* ---- running both decoders ---------------------------------------------- */

static void assert_untouched(const etp_exported_program *p)
{
    assert_null(p->schema_version);
    assert_null(p->nodes);
    assert_null(p->inputs);
    assert_null(p->outputs);
    assert_null(p->handles_sorted);
    assert_null(p->nodes_by_handle);
    assert_int_equal(p->node_count + p->input_count + p->output_count + p->handled_count, 0);
}

static void show(const char *text, size_t len)
{
    fprintf(stderr, "document (%zu bytes): ", len);
    for (size_t i = 0; i < len && i < 400; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c >= 0x20 && c < 0x7F)
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02X", c);
    }
    fputc('\n', stderr);
}

/* etr_fast_check, failing the test if the rule is broken. Returns what the
 * fast path said. */
static etr_fast_status check_fast(const char *text, size_t len, etr_fast_raw *raw,
                                  const etr_squeeze *pruned)
{
    char buf[512];
    etr_fast_status fs;
    const char *why = etr_fast_check(text, len, raw, pruned, &fs, buf, sizeof buf);
    if (why) {
        show(text, len);
        fail_msg("%s", why);
    }
    return fs;
}

static etr_fast_status check_squeezed(const etr_squeeze *sq, const etr_squeeze *pruned)
{
    return check_fast(sq->buf, sq->len, NULL, pruned);
}

/* The text as stored (NUL-terminated copy), under the huge-string rule. */
static etr_fast_status check_stored(const char *text, size_t len, const etr_squeeze *pruned)
{
    char *copy = malloc(len + 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    copy[len] = '\0';
    etr_fast_raw raw = {ETP_ETRECORD_HUGE_STRING, 0, 0};
    etr_fast_status fs = check_fast(copy, len, &raw, pruned);
    free(copy);
    return fs;
}

static void squeeze_text(etr_squeeze *sq, const char *raw, size_t len, int prune)
{
    etr_squeeze_init(sq, ETP_ETRECORD_HUGE_STRING, (size_t)ETP_ETRECORD_MAX_ENTRY_TEXT);
    assert_int_equal(etr_squeeze_feed(sq, raw, len), 0);
    assert_int_equal(etr_squeeze_finish(sq), 0);
    if (prune)
        etr_squeeze_prune(sq);
}

/* Check @p len raw bytes both ways read_programs decodes them: as stored,
 * and squeezed (jansson always gets the text squeezed and pruned). Returns
 * what the fast path said about the squeezed text. */
static etr_fast_status check_text(const char *raw, size_t len)
{
    etr_squeeze sq, pruned;
    squeeze_text(&sq, raw, len, 0);
    squeeze_text(&pruned, raw, len, 1);
    etr_fast_status fs = check_squeezed(&sq, &pruned);
    etr_fast_status stored = check_stored(raw, len, &pruned);
    /* Squeezing only shortens strings the stored path declines or skips. */
    if (stored == ETR_FAST_OK && fs != ETR_FAST_OK) {
        show(raw, len);
        fail_msg("the fast path took the stored text but declined it squeezed");
    }
    etr_squeeze_free(&sq);
    etr_squeeze_free(&pruned);
    return fs;
}

static void expect_ok(const char *doc)
{
    if (check_text(doc, strlen(doc)) != ETR_FAST_OK) {
        show(doc, strlen(doc));
        fail_msg("the fast path declined a normal document");
    }
}

static void expect_decline(const char *doc, size_t len)
{
    if (check_text(doc, len) != ETR_FAST_DECLINE) {
        show(doc, len);
        fail_msg("the fast path accepted a document it must decline");
    }
}

/* ---- documents ---------------------------------------------------------- */

/* Current serde style, with every Argument shape decode reads. */
static const char doc_current[] =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}, {\"as_tensor\": {\"name\": \"w\"}}, {\"as_none\": true}],"
    "\"outputs\": [{\"as_tensors\": [{\"name\": \"o0\"}, {\"name\": \"o1\"}]}],"
    "\"nodes\": ["
    "{\"name\": \"conv\", \"target\": \"executorch.exir.dialects.edge.ops.aten.convolution.default\","
    " \"inputs\": [{\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}},"
    "  {\"name\": \"weight\", \"arg\": {\"as_tensor\": {\"name\": \"w\"}}},"
    "  {\"name\": \"bias\", \"arg\": {\"as_none\": true}},"
    "  {\"name\": \"stride\", \"arg\": {\"as_ints\": [1, -1, 0]}},"
    "  {\"name\": \"alpha\", \"arg\": {\"as_float\": -1.5e-3}}],"
    " \"outputs\": [{\"as_tensor\": {\"name\": \"conv\"}}],"
    " \"metadata\": {\"stack_trace\": \"  File \\\"m.py\\\", line 3, in forward\\n    x = self.conv(x)\\n\","
    "  \"nn_module_stack\": \"L__self__,,m.Net;L__self___conv,conv,torch.nn.Conv2d\","
    "  \"source_fn_stack\": \"conv,torch.nn.Conv2d\", \"torch_fn\": \"conv2d;builtin\","
    "  \"debug_handle\": \"1\", \"from_node\": \"[{\\\"name\\\": \\\"conv\\\"}]\"}},"
    "{\"name\": \"cat\", \"target\": \"torch.ops.aten.cat.default\", \"inputs\": [{\"name\": \"tensors\","
    "  \"arg\": {\"as_optional_tensors\": [{\"as_tensor\": {\"name\": \"conv\"}}, {\"as_none\": {}},"
    "  {\"as_tensor\": \"x\"}]}}], \"outputs\": [{\"as_tensors\": [{\"name\": \"cat_0\"}, {\"name\": \"cat_1\"}]}],"
    " \"metadata\": {\"debug_handle\": 2}},"
    "{\"name\": \"executorch_call_delegate\", \"target\": \"torch.ops.higher_order.executorch_call_delegate\","
    " \"inputs\": [{\"name\": \"lowered_module_0\", \"arg\": {\"as_string\": \"{\\\"backend_id\\\": \\\"XnnpackBackend\\\"}\"}},"
    "  {\"name\": \"delegate_arg_0\", \"arg\": {\"as_tensor\": {\"name\": \"cat_0\"}}}],"
    " \"outputs\": [{\"as_tensor\": {\"name\": \"out\"}}], \"metadata\": {\"debug_handle\": \"3\"}},"
    "{\"name\": \"wrap\", \"target\": \"torch.ops.higher_order.wrap_with_set_grad_enabled\","
    " \"inputs\": [{\"name\": \"kw\", \"arg\": {\"as_string_to_argument\": {\"a\": {\"as_tensor\": {\"name\": \"x\"}},"
    "  \"b\": {\"as_nested_tensors\": [[{\"name\": \"n0\"}], [{\"name\": \"n1\"}, {\"name\": \"n2\"}]]}}}}],"
    " \"outputs\": [], \"metadata\": {\"debug_handle\": null}},"
    "{\"target\": \"memory.alloc\", \"inputs\": [], \"outputs\": [{\"as_tensor\": {\"name\": \"alloc_out\"}}], \"metadata\": {}},"
    "{\"target\": \"_operator.getitem\", \"metadata\": {\"debug_handle\": \"-7\", \"nn_module_stack\": \"\"}},"
    "{\"name\": \"opt\", \"target\": \"x.ops.my.op.default\", \"inputs\": [{\"arg\": {\"as_optional_tensor\":"
    "  {\"as_tensor\": {\"name\": \"o\"}}}}, {\"arg\": {\"as_optional_tensor\": {\"as_none\": null}}}, \"skip\","
    "  {\"arg\": null}], \"outputs\": [{\"as_int\": 3}], \"metadata\": null}"
    "], \"tensor_values\": {\"x\": {\"meta\": [1, 2]}}, \"sym_int_values\": {}, \"is_single_tensor_return\": false},"
    " \"signature\": {\"input_specs\": []}, \"module_call_graph\": [{\"fqn\": \"\"}]},"
    " \"opset_version\": {\"aten\": 10}, \"range_constraints\": {},"
    " \"schema_version\": {\"major\": 5, \"minor\": 4}, \"dialect\": \"EDGE\", \"verifiers\": [\"EDGE\"]}";

/* 2023 style: every union member written, nulls, no node names. */
static const char doc_2023[] =
    "{\"graph_module\": {\"graph\": {"
    "\"inputs\": [{\"as_none\": null, \"as_tensor\": {\"name\": \"a\"}, \"as_tensors\": null}],"
    "\"outputs\": [{\"as_none\": null, \"as_tensor\": null, \"as_tensors\": [{\"name\": \"s0\"}, {\"name\": \"s1\"}]}],"
    "\"nodes\": [{\"target\": \"torch.ops.aten.split.Tensor\","
    " \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_none\": null, \"as_tensor\": {\"name\": \"a\"}, \"as_tensors\": null,"
    "   \"as_int\": null, \"as_optional_tensors\": null, \"as_custom_obj\": null}},"
    "  {\"name\": \"split_size\", \"arg\": {\"as_none\": null, \"as_tensor\": null, \"as_int\": 2}}],"
    " \"outputs\": [{\"as_none\": null, \"as_tensor\": null, \"as_tensors\": [{\"name\": \"s0\"}, {\"name\": \"s1\"}]}],"
    " \"metadata\": {\"debug_handle\": \"7\", \"nn_module_stack\": null, \"stack_trace\": null}},"
    " {\"target\": \"_operator.getitem\", \"inputs\": [], \"outputs\": [], \"metadata\": {}}]},"
    " \"signature\": null, \"call_spec\": {\"in_spec\": null, \"out_spec\": null}},"
    " \"schema_version\": 1}";

/* Members in unusual orders: the Argument members backwards (decode still
 * lists as_tensor, as_tensors, ... in that order), outputs before inputs,
 * nodes before the graph's inputs, schema_version first; every simple
 * escape; UTF-8 in a stack trace. */
static const char doc_order[] =
    "{\"schema_version\": 3, \"graph_module\": {\"signature\": null, \"graph\": {\"nodes\": ["
    " {\"metadata\": {\"debug_handle\": 12, \"stack_trace\": \"a\\\\b\\/c\\b\\f\\r\\t\\\"d\\n caf\xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E\"},"
    "  \"outputs\": [{\"as_tensors\": [{\"name\": \"t1\"}], \"as_tensor\": {\"name\": \"t0\"}}],"
    "  \"inputs\": [{\"arg\": {\"as_string_to_argument\": {\"z\": {\"as_tensor\": {\"name\": \"s\"}},"
    "   \"y\": {\"as_tensors\": [\"s2\"], \"as_tensor\": \"s1\"}},"
    "   \"as_nested_tensors\": [[{\"name\": \"n\"}]], \"as_optional_tensors\": [{\"as_tensor\": {\"name\": \"ot\"}}],"
    "   \"as_optional_tensor\": {\"as_tensor\": {\"name\": \"o\"}}, \"as_tensors\": [\"ts\"],"
    "   \"as_tensor\": {\"name\": \"t\\\"q\"}}}],"
    "  \"target\": \"torch.ops.aten.foo.default\"}"
    " ], \"outputs\": [{\"as_tensor\": {\"name\": \"t0\"}}], \"inputs\": []}}}";

static void normal_documents(void **state)
{
    (void)state;
    expect_ok(doc_current);
    expect_ok(doc_2023);
    expect_ok(doc_order);
    /* the jansson path's view of doc_order, to pin the semantics down */
    etr_squeeze sq;
    etr_squeeze_init(&sq, ETP_ETRECORD_HUGE_STRING, 1u << 20);
    assert_int_equal(etr_squeeze_feed(&sq, doc_order, strlen(doc_order)), 0);
    assert_int_equal(etr_squeeze_finish(&sq), 0);
    etp_exported_program p;
    memset(&p, 0, sizeof p);
    p.entry = "e";
    etr_arena a = {0};
    assert_int_equal(etr_program_decode_fast(sq.buf, sq.len, &p, &a, NULL), ETR_FAST_OK);
    assert_string_equal(p.schema_version, "3");
    assert_int_equal(p.node_count, 1);
    const etp_graph_node *n = &p.nodes[0];
    static const char *want[] = {"t\"q", "ts", "o", "ot", "n", "s", "s1", "s2"};
    assert_int_equal(n->input_count, 8);
    for (uint32_t i = 0; i < 8; i++)
        assert_string_equal(n->inputs[i], want[i]);
    assert_int_equal(n->output_count, 2);
    assert_string_equal(n->outputs[0], "t0");
    assert_string_equal(n->name, "t0");
    assert_int_equal(n->name_source, ETP_NAME_FROM_OUTPUT);
    assert_string_equal(n->stack_trace,
                        "a\\b/c\b\f\r\t\"d\n caf\xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E");
    assert_int_equal(n->debug_handle, 12);
    etr_arena_free(&a);
    etr_squeeze_free(&sq);

    /* whitespace jansson accepts, an empty graph */
    expect_ok("\r\n\t {\"graph_module\"\t:\r{ \"graph\" : {\"nodes\":[ ] } } }\n\t ");
    /* repeated keys that decode never reads are harmless */
    expect_ok("{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"x\": 1, \"x\": [2]}],"
              " \"custom\": {\"a\": 1, \"a\": 2}}}, \"z\": 0, \"z\": 1}");
    /* numbers of every shape in values nobody reads */
    expect_ok("{\"n\": [0, -0, 1.5, -0.0e-0, 1E+5, 2e-99, 123456789012345678, -123456789012345678,"
              " 0.000001, 1e99, 99.5E10], \"graph_module\": {\"graph\": {\"nodes\": []}}}");
}

/* A value at a place decode never reads, then a whole document around it. */
static void expect_decline_value(const char *value, size_t value_len)
{
    static const char head[] = "{\"graph_module\": {\"graph\": {\"nodes\": []}}, \"v\": ";
    char buf[4096];
    assert_true(sizeof head - 1 + value_len + 1 < sizeof buf);
    memcpy(buf, head, sizeof head - 1);
    memcpy(buf + sizeof head - 1, value, value_len);
    buf[sizeof head - 1 + value_len] = '}';
    expect_decline(buf, sizeof head - 1 + value_len + 1);
}

static void skipped_values(void **state)
{
    (void)state;
    static const char *bad[] = {
        /* numbers outside strict JSON, or near jansson's limits */
        "01", "-01", "+1", ".5", "5.", "1e", "1e+", "-", "1.e5", "1e400", "1e100", "-1E-100",
        "1234567890123456789", "12345678901234567890", "0x10", "NaN", "Infinity", "-Infinity",
        /* literals */
        "tru", "nul", "True", "nulll", "falsey",
        /* strings */
        "\"\\u0041\"", "\"\\q\"", "\"\\\"", "\"a\x01\"", "\"tab\there\"", "\"a\nb\"", "\"\x7F\x80\"",
        "\"\xC0\x80\"", "\"\xC1\xBF\"", "\"\xE0\x80\x80\"", "\"\xED\xA0\x80\"", "\"\xF4\x90\x80\x80\"",
        "\"\xF5\x80\x80\x80\"", "\"\xE2\x82\"", "\"\xE2\x82\x41\"", "\"\xF0\x9D\x84\"", "\"\xFF\"",
        "\"unterminated",
        /* structure */
        "[1,]", "[,1]", "[1 2]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "{\"a\"}", "[", "{", "]", "}",
        "[1}", "{\"a\":1]", "'a'", "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_decline_value(bad[i], strlen(bad[i]));
    /* a NUL byte, a value at depth 600 (jansson allows 2048; we decline) */
    expect_decline_value("\"a\0b\"", 5);
    expect_decline_value("[1\0]", 4);
    char deep[1300];
    memset(deep, '[', 600);
    memset(deep + 600, ']', 600);
    expect_decline_value(deep, 1200);
    /* the control: 500 levels are fine */
    static const char head[] = "{\"graph_module\": {\"graph\": {\"nodes\": []}}, \"v\": ";
    char ok[1200];
    size_t n = sizeof head - 1;
    memcpy(ok, head, n);
    memset(ok + n, '[', 500);
    memset(ok + n + 500, ']', 500);
    ok[n + 1000] = '}';
    ok[n + 1001] = '\0';
    expect_ok(ok);
}

static void declined_documents(void **state)
{
    (void)state;
    static const char *bad[] = {
        /* not one object */
        "", " ", "[]", "null", "{} {}", "{\"graph_module\": {\"graph\": {\"nodes\": []}}} x",
        "{\"graph_module\": {\"graph\": {\"nodes\": []}}},", "\xEF\xBB\xBF{\"graph_module\": {\"graph\": {\"nodes\": []}}}",
        /* what decode reports */
        "{}", "{\"graph_module\": null}", "{\"graph_module\": {}}", "{\"graph_module\": {\"graph\": []}}",
        "{\"graph_module\": {\"graph\": {}}}", "{\"graph_module\": {\"graph\": {\"nodes\": {}}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [\"n\"]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"name\": \"n\"}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": 5}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"metadata\": {\"debug_handle\": \"1x\"}}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"metadata\": {\"debug_handle\": 1.0}}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"metadata\": {\"debug_handle\": true}}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"metadata\": {\"debug_handle\": [1]}}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"metadata\": {\"debug_handle\": \" 1\"}}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"metadata\": {\"debug_handle\": \"9223372036854775808\"}}]}}}",
        /* escapes decode would accept but the fast path leaves to jansson */
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"metadata\": {\"debug_handle\": \"\\u0031\"}}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"\\u0074\"}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"targe\\u0074\": \"t\"}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"targ\\/et\": \"t\", \"target\": \"u\"}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"metadata\": {\"debug_handle\": 1e2}}]}}}",
        /* repeated keys where decode reads them (jansson keeps the last) */
        "{\"graph_module\": {\"graph\": {\"nodes\": []}}, \"graph_module\": {\"graph\": {\"nodes\": []}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": []}, \"graph\": {\"nodes\": []}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [], \"nodes\": []}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [], \"inputs\": [], \"inputs\": []}}}",
        "{\"schema_version\": 1, \"graph_module\": {\"graph\": {\"nodes\": []}}, \"schema_version\": 2}",
        "{\"schema_version\": {\"major\": 1, \"major\": 2}, \"graph_module\": {\"graph\": {\"nodes\": []}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"target\": \"u\"}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"name\": \"a\", \"name\": \"b\"}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"metadata\": {\"stack_trace\": \"a\", \"stack_trace\": \"b\"}}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"outputs\": [{\"as_tensor\": {\"name\": \"a\", \"name\": \"b\"}}]}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"outputs\": [{\"as_tensor\": {\"name\": \"a\"}, \"as_tensor\": null}]}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"inputs\": [{\"arg\": null, \"arg\": {\"as_tensor\": \"a\"}}]}]}}}",
        "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"outputs\": [{\"as_string_to_argument\": {\"k\": {}, \"k\": {\"as_tensor\": \"a\"}}}]}]}}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_decline(bad[i], strlen(bad[i]));
    /* a NUL byte inside the text */
    static const char nul[] = "{\"graph_module\": {\"graph\": {\"nodes\": []}}}\0 ";
    expect_decline(nul, sizeof nul - 1);
}

/* schema_version and debug_handle forms that both paths accept. */
static void value_forms(void **state)
{
    (void)state;
    static const char *versions[] = {
        "1", "-3", "\"2.0\"", "{\"major\": 5}", "{\"minor\": 4}", "{\"major\": 5.0, \"minor\": 1}",
        "{\"major\": 5, \"minor\": \"4\"}", "{\"major\": 5, \"minor\": 4.5}", "[5]", "null", "true",
        "1.5", "{}", "\"a\\tb\"", "{\"major\": 123456789012345678, \"minor\": -1, \"x\": 2}",
    };
    char buf[512];
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        snprintf(buf, sizeof buf,
                 "{\"schema_version\": %s, \"graph_module\": {\"graph\": {\"nodes\": []}}}",
                 versions[i]);
        expect_ok(buf);
    }
    static const char *handles[] = {
        "\"0\"", "\"-9223372036854775808\"", "\"9223372036854775807\"", "123456789012345678",
        "-0", "\"007\"", "null", "-5",
    };
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++) {
        snprintf(buf, sizeof buf,
                 "{\"graph_module\": {\"graph\": {\"nodes\": [{\"target\": \"t\", \"metadata\": "
                 "{\"debug_handle\": %s}}, {\"target\": \"u\", \"metadata\": {\"debug_handle\": %s}}]}}}",
                 handles[i], handles[i]);
        expect_ok(buf);
    }
    /* stack traces, names and module stacks with odd but legal content */
    expect_ok("{\"graph_module\": {\"graph\": {\"nodes\": [{\"name\": \"\", \"target\": \"\","
              " \"metadata\": {\"nn_module_stack\": \";;a;b,c;d,e(f,g),h,i;\", \"stack_trace\": \"\","
              " \"source_fn_stack\": 5}}, {\"name\": null, \"target\": \"a.b\", \"outputs\":"
              " [{\"as_tensor\": {\"name\": 1}}, {\"as_tensor\": {\"name\": \"second\"}}]}]}}}");
}

/* ---- mutations of a small document -------------------------------------- */

static void truncations(void **state)
{
    (void)state;
    size_t len = strlen(doc_current);
    for (size_t k = 0; k < len; k++)
        if (check_text(doc_current, k) != ETR_FAST_DECLINE)
            fail_msg("a truncation to %zu bytes was accepted", k);
    assert_int_equal(check_text(doc_current, len), ETR_FAST_OK);
}

static void byte_flips(void **state)
{
    (void)state;
    static const char with[] = {'"', '\\', '{', ']', ',', ':', '0', 'a', ' ', '\0', '\x80', '\x1F'};
    size_t len = strlen(doc_2023);
    char *buf = malloc(len + 1);
    size_t ok = 0, declined = 0;
    for (size_t i = 0; i < len; i++)
        for (size_t k = 0; k < sizeof with; k++) {
            if (doc_2023[i] == with[k])
                continue;
            memcpy(buf, doc_2023, len + 1);
            buf[i] = with[k];
            if (check_text(buf, len) == ETR_FAST_OK)
                ok++;
            else
                declined++;
        }
    /* a deterministic sprinkle of multi-byte damage */
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 3000; round++) {
        memcpy(buf, doc_2023, len + 1);
        size_t n = len;
        for (int m = 0; m < 3; m++) {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            size_t at = (size_t)(rng % n);
            unsigned char b = (unsigned char)(rng >> 32);
            if ((rng >> 40) & 1) {
                buf[at] = (char)b;
            } else { /* delete a byte */
                memmove(buf + at, buf + at + 1, n - at);
                n--;
            }
        }
        if (check_text(buf, n) == ETR_FAST_OK)
            ok++;
        else
            declined++;
    }
    free(buf);
    /* flips inside names and values keep the document valid: both branches ran */
    assert_true(ok > 100);
    assert_true(declined > 100);
}

/* ---- real and generated ETRecords --------------------------------------- */

/* Run both decoders on every program entry of the ETRecord at @p path,
 * streamed and squeezed exactly as etp_etrecord_open does; returns how
 * many entries the fast path took. */
static uint32_t check_record_entries(const char *path, uint32_t *programs)
{
    etp_error err;
    etr_zip *z = NULL;
    uint64_t size = 0, budget = ETP_ETRECORD_MAX_TOTAL_SIZE;
    if (etr_zip_open_path(path, &size, &z, &err))
        fail_msg("%s", err.message);
    uint32_t taken = 0;
    *programs = 0;
    for (uint32_t i = 0; i < etr_zip_count(z); i++) {
        etp_zip_entry_info e;
        if (etr_zip_stat(z, i, &e, path, &err))
            fail_msg("%s", err.message);
        const char *method;
        etp_etrecord_role k = etr_classify(e.name, &method);
        if (k != ETP_ETR_EDGE_PROGRAM && k != ETP_ETR_EXPORTED_PROGRAM &&
            k != ETP_ETR_GRAPH_MAP_PROGRAM)
            continue;
        etr_squeeze sq[2]; /* as read, and pruned for jansson */
        for (int c = 0; c < 2; c++) {
            etr_squeeze_init(&sq[c], ETP_ETRECORD_HUGE_STRING, (size_t)ETP_ETRECORD_MAX_ENTRY_TEXT);
            if (etr_zip_read(z, i, e.name, &sq[c], ETP_ETRECORD_MAX_ENTRY_SIZE, &budget, path, &err))
                fail_msg("%s", err.message);
            assert_int_equal(etr_squeeze_finish(&sq[c]), 0);
        }
        etr_squeeze_prune(&sq[1]);
        (*programs)++;
        if (check_squeezed(&sq[0], &sq[1]) == ETR_FAST_OK)
            taken++;
        else
            printf("note: %s: fast path declined entry %s\n", path, e.name);
        /* as read_programs reads it: whole, as stored */
        char *text = NULL;
        size_t len = 0;
        if (etr_zip_read_whole(z, i, e.name, ETP_ETRECORD_MAX_ENTRY_SIZE, &budget, path, &text,
                               &len, &err))
            fail_msg("%s", err.message);
        assert_int_equal(len, e.size);
        if (check_stored(text, len, &sq[1]) != ETR_FAST_OK)
            printf("note: %s: fast path declined entry %s as stored\n", path, e.name);
        free(text);
        etr_squeeze_free(&sq[0]);
        etr_squeeze_free(&sq[1]);
    }
    etr_zip_close(z);
    return taken;
}

/* The whole reader both ways (ETPROF_NO_FAST_JSON): same programs. */
static void check_record_open(const char *path)
{
    etp_error err;
    etp_etrecord *slow = NULL, *fast = NULL;
    setenv("ETPROF_NO_FAST_JSON", "1", 1);
    etp_status st = etp_etrecord_open(path, &slow, &err);
    unsetenv("ETPROF_NO_FAST_JSON");
    if (st)
        fail_msg("%s", err.message);
    if (etp_etrecord_open(path, &fast, &err))
        fail_msg("%s", err.message);
    assert_int_equal(fast->program_count, slow->program_count);
    for (uint32_t i = 0; i < fast->program_count; i++) {
        const etp_exported_program *x = &fast->programs[i], *y = &slow->programs[i];
        assert_string_equal(x->entry, y->entry);
        assert_string_equal(x->method, y->method);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->skipped_strings, y->skipped_strings);
        assert_int_equal(x->skipped_bytes, y->skipped_bytes);
        char buf[256];
        const char *d = etr_program_diff(x, y, buf, sizeof buf);
        if (d)
            fail_msg("%s, %s: %s", path, x->entry, d);
    }
    etp_etrecord_free(fast);
    etp_etrecord_free(slow);
}

static void fixture_records(void **state)
{
    (void)state;
    if (!tu_have_fixtures())
        skip();
    static const char *files[] = {"real-runs/cm_et_arduino_kws_x10.etrecord",
                                  "executorch/sample_etrecord.bin"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        const char *path = tu_fixture(files[i]);
        uint32_t programs;
        uint32_t taken = check_record_entries(path, &programs);
        assert_int_equal(programs, 2);
        /* both are plain ASCII JSON without \u escapes: nothing to decline */
        assert_int_equal(taken, programs);
        check_record_open(path);
    }
}

static void generated_records(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    assert_non_null(dir);
    char etdp[1024], pte[1024], etr[1024], demo[1024];
    snprintf(etdp, sizeof etdp, "%s/g.etdp", dir);
    snprintf(pte, sizeof pte, "%s/g.pte", dir);
    snprintf(etr, sizeof etr, "%s/g.etrecord", dir);
    etp_gen_etdump_opts o;
    etp_gen_etdump_defaults(&o);
    o.etdump_path = etdp;
    o.pte_path = pte;
    o.etrecord_path = etr;
    o.executions = 1;
    o.instructions = 3000;
    o.delegate_every = 10;
    o.backend = ETP_GEN_VULKAN;
    etp_error err;
    if (etp_gen_etdump(&o, NULL, &err))
        fail_msg("gen: %s", err.message);
    uint32_t programs;
    assert_int_equal(check_record_entries(etr, &programs), 1);
    assert_int_equal(programs, 1);
    check_record_open(etr);

    if (etp_gen_demo(dir, 1, 1, NULL, &err))
        fail_msg("gen demo: %s", err.message);
    snprintf(demo, sizeof demo, "%s/model.etrecord", dir);
    uint32_t taken = check_record_entries(demo, &programs);
    assert_true(programs >= 1);
    assert_int_equal(taken, programs);
    check_record_open(demo);
    tu_rmrf(dir);
    free(dir);
}

/* Build "<head><n x 'a'><tail>" into a malloc'd string. */
static char *with_long_string(const char *head, size_t n, const char *tail, size_t *len)
{
    size_t h = strlen(head), t = strlen(tail);
    char *d = malloc(h + n + t + 1);
    assert_non_null(d);
    memcpy(d, head, h);
    memset(d + h, 'a', n);
    memcpy(d + h + n, tail, t + 1);
    *len = h + n + t;
    return d;
}

/* Strings over the huge-string threshold in text read as stored: skipped
 * values are counted as squeezing counts them; anywhere the decoder reads
 * or compares a string, it declines (squeezing would put a placeholder
 * there), and the squeezed text is then still decoded. */
static void huge_strings(void **state)
{
    (void)state;
    const size_t big = ETP_ETRECORD_HUGE_STRING + 1;
    static const char nodes[] = "\"nodes\": [{\"name\": \"n\", \"target\": \"aten.add.Tensor\", "
                                "\"inputs\": [], \"outputs\": [], \"metadata\": {\"debug_handle\": 1}}]";
    struct {
        const char *head, *tail;
        size_t n;
        int stored_ok;
        uint64_t skipped;
    } cases[] = {
        /* a skipped member's value, twice (one in a pruned member) */
        {"{\"graph_module\": {\"graph\": {\"tensor_values\": {\"t\": \"", "\"}, %s}}, \"x\": \"z\"}", big, 1, 1},
        /* an Argument's as_string (a lowered module's text) */
        {"{\"graph_module\": {\"graph\": {\"nodes\": [{\"name\": \"d\", \"target\": \"aten.add.Tensor\", "
         "\"inputs\": [{\"name\": \"m\", \"arg\": {\"as_string\": \"", "\"}}], \"outputs\": []}]}}}", big, 1, 1},
        /* exactly at the threshold: not huge, read as any string */
        {"{\"graph_module\": {\"graph\": {\"nodes\": [{\"name\": \"", "\", \"target\": \"aten.add.Tensor\", "
         "\"inputs\": [], \"outputs\": []}]}}}", big - 1, 1, 0},
        /* a node name that is read */
        {"{\"graph_module\": {\"graph\": {\"nodes\": [{\"name\": \"", "\", \"target\": \"aten.add.Tensor\", "
         "\"inputs\": [], \"outputs\": []}]}}}", big, 0, 0},
        /* a stack trace that is kept */
        {"{\"graph_module\": {\"graph\": {\"nodes\": [{\"name\": \"n\", \"target\": \"aten.add.Tensor\", "
         "\"inputs\": [], \"outputs\": [], \"metadata\": {\"stack_trace\": \"", "\"}}]}}}", big, 0, 0},
        /* a key */
        {"{\"graph_module\": {\"graph\": {\"nodes\": [], \"", "\": 1}}}", big, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char tail[512];
        snprintf(tail, sizeof tail, cases[i].tail, nodes);
        size_t len;
        char *doc = with_long_string(cases[i].head, cases[i].n, tail, &len);
        etr_squeeze sq, pruned;
        squeeze_text(&sq, doc, len, 0);
        squeeze_text(&pruned, doc, len, 1);
        assert_int_equal(pruned.skipped_strings, cases[i].n > ETP_ETRECORD_HUGE_STRING);
        etr_fast_raw raw = {ETP_ETRECORD_HUGE_STRING, 0, 0};
        etr_fast_status stored = check_fast(doc, len, &raw, &pruned);
        if (stored != (cases[i].stored_ok ? ETR_FAST_OK : ETR_FAST_DECLINE)) {
            show(doc, len);
            fail_msg("case %zu: stored text %s", i, stored == ETR_FAST_OK ? "taken" : "declined");
        }
        if (stored == ETR_FAST_OK)
            assert_int_equal(raw.skipped_strings, cases[i].skipped);
        /* the squeezed text: the fallback the reader then takes */
        if (check_squeezed(&sq, &pruned) != ETR_FAST_OK && cases[i].stored_ok) {
            show(doc, len);
            fail_msg("case %zu: squeezed text declined", i);
        }
        etr_squeeze_free(&sq);
        etr_squeeze_free(&pruned);
        free(doc);
    }
}

/* A text without its terminating NUL is declined, not read past. */
static void needs_terminator(void **state)
{
    (void)state;
    static const char doc[] = "{\"graph_module\": {\"graph\": {\"nodes\": []}}}x";
    etp_exported_program p;
    memset(&p, 0, sizeof p);
    etr_arena a = {0};
    etr_fast_raw raw = {ETP_ETRECORD_HUGE_STRING, 0, 0};
    for (int stored = 0; stored < 2; stored++) {
        etr_fast_raw *r = stored ? &raw : NULL;
        assert_int_equal(etr_program_decode_fast(doc, sizeof doc - 2, &p, &a, r), ETR_FAST_DECLINE);
        assert_untouched(&p);
        assert_int_equal(etr_program_decode_fast(doc, sizeof doc - 1, &p, &a, r), ETR_FAST_DECLINE);
    }
    etr_arena_free(&a);
}

int main(void)
{
    if (!tu_have_fixtures())
        printf("SKIP (partly): ../shared/fixtures is absent; real-file cases are skipped\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(normal_documents),
        cmocka_unit_test(skipped_values),
        cmocka_unit_test(declined_documents),
        cmocka_unit_test(value_forms),
        cmocka_unit_test(truncations),
        cmocka_unit_test(byte_flips),
        cmocka_unit_test(fixture_records),
        cmocka_unit_test(generated_records),
        cmocka_unit_test(huge_strings),
        cmocka_unit_test(needs_terminator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
