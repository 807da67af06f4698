/* test_mexplorer.c - Model Explorer graph API, overlays (node data), Python
 * string forms, and `etprof graph` exit codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "etprof/mexplorer.h"
#include "etprof/program.h"
#include "outputs/mexplorer/me_layout.h"
#include "outputs/mexplorer/me_pystr.h"
#include "testutil.h"

#define VGF "pte-adapter/mobilenet_v2_vgf/input.pte"
#define ETHOSU "pte-adapter/mobilenet_v2_ethosu/input.pte"

static etp_program *open_program(const char *rel)
{
    etp_error err;
    etp_program *p = NULL;
    if (etp_program_open(tu_fixture(rel), &p, &err))
        fail_msg("%s: %s", rel, err.message);
    return p;
}

static etp_me_collection *build(const etp_program *p, const char *method)
{
    etp_error err;
    etp_me_collection *c = NULL;
    if (etp_me_build(p, method, NULL, &c, &err))
        fail_msg("build: %s", err.message);
    return c;
}

/* Write to memory through a tmpfile; caller frees. */
static char *graph_text(const etp_me_collection *c, int flags)
{
    FILE *fp = tmpfile();
    assert_non_null(fp);
    etp_error err;
    assert_int_equal(etp_me_write(c, fp, flags, &err), ETP_OK);
    long n = ftell(fp);
    rewind(fp);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static char *overlay_text(const etp_me_overlay *ov, etp_status *st)
{
    FILE *fp = tmpfile();
    assert_non_null(fp);
    etp_error err;
    *st = etp_me_write_overlay(ov, fp, 1, &err);
    long n = ftell(fp);
    rewind(fp);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static void graph_structure(void **state)
{
    (void)state;
    etp_program *p = open_program(VGF);
    etp_me_collection *c = build(p, NULL);
    assert_string_equal(c->label, "input.pte");
    assert_int_equal(c->graph_count, 1);
    const etp_me_graph *g = &c->graphs[0];
    assert_string_equal(g->id, "forward");
    assert_int_equal(g->node_count, 5);
    assert_string_equal(g->nodes[0].id, "GraphInputs");
    assert_string_equal(g->nodes[1].id, "forward_0_0");
    assert_string_equal(g->nodes[1].label, "quantized_decomposed::quantize_per_tensor");
    assert_string_equal(g->nodes[2].label, "VgfBackend");
    assert_true(g->nodes[2].has_subgraph);
    assert_int_equal(g->nodes[2].chain, 0);
    assert_int_equal(g->nodes[2].instruction, 1);
    assert_string_equal(g->nodes[4].id, "GraphOutputs");
    /* forward_0_1 consumes EValue 1 from forward_0_0 and produces 7. */
    assert_int_equal(g->nodes[2].edge_count, 1);
    assert_int_equal(g->nodes[2].edges[0].source, 1);
    assert_int_equal(g->nodes[2].edges[0].port, 1);
    assert_int_equal(g->nodes[2].output_count, 1);
    assert_int_equal(g->nodes[2].outputs[0], 7);
    /* The delegate call links to a placeholder graph of the same id. */
    assert_int_equal(c->delegate_graph_count, 1);
    assert_string_equal(c->delegate_graphs[0].id, "forward_0_1");
    assert_ptr_equal(etp_me_find_graph(c, "forward_0_1"), &c->delegate_graphs[0]);
    assert_int_equal(etp_me_find_node(g, "forward_0_2"), 3);
    assert_int_equal(etp_me_find_node(g, "forward_9_9"), -1);
    char id[32];
    assert_int_equal(etp_me_node_id(id, sizeof id, "forward", 0, 12), 12);
    assert_string_equal(id, "forward_0_12");
    etp_me_free(c);
    etp_program_free(p);
}

static void graph_method_filter(void **state)
{
    (void)state;
    etp_program *p = open_program(ETHOSU);
    etp_error err;
    etp_me_collection *c = NULL;
    assert_int_equal(etp_me_build(p, "decode", NULL, &c, &err), ETP_E_USAGE);
    assert_null(c);
    assert_non_null(strstr(err.message, "decode"));
    c = build(p, "forward");
    assert_int_equal(c->graph_count, 1);
    etp_me_free(c);
    assert_int_equal(etp_me_build(p, NULL, "my label", &c, &err), ETP_OK);
    assert_string_equal(c->label, "my label");
    etp_me_free(c);
    etp_program_free(p);
}

static void graph_deterministic(void **state)
{
    (void)state;
    etp_program *p = open_program(ETHOSU);
    etp_me_collection *c = build(p, NULL);
    char *a = graph_text(c, ETP_ME_PRETTY), *b = graph_text(c, ETP_ME_PRETTY);
    assert_string_equal(a, b);
    char *compact = graph_text(c, 0);
    json_error_t je;
    json_t *x = json_loads(a, 0, &je), *y = json_loads(compact, 0, &je);
    assert_non_null(x);
    assert_true(json_equal(x, y));
    json_decref(x);
    json_decref(y);
    free(a);
    free(b);
    free(compact);
    etp_me_free(c);
    etp_program_free(p);
}

/* Synthetic values on every instruction node of a fixture graph: every key
 * written is a node of the graph the file targets, colours are 6-digit hex,
 * and the bytes are the same on a second run. */
static void overlay_on_fixture(void **state)
{
    (void)state;
    etp_program *p = open_program(ETHOSU);
    etp_me_collection *c = build(p, NULL);
    const etp_me_graph *g = &c->graphs[0];
    etp_me_value vals[16];
    size_t n = 0;
    for (uint32_t k = 0; k < g->node_count && n < 16; k++)
        if (g->nodes[k].kind == ETP_ME_NODE_INSTRUCTION)
            vals[n++] = (etp_me_value){g->nodes[k].id, 1.5 * (k + 1)};
    assert_int_equal(n, 3);
    etp_me_overlay ov;
    etp_me_overlay_init(&ov);
    ov.graph_id = g->id;
    ov.metric = "Runtime avg";
    ov.unit = "cycles";
    ov.values = vals;
    ov.value_count = n;
    ov.hide_stats = ETP_ME_HIDE_SUM;
    etp_status st;
    char *text = overlay_text(&ov, &st), *again = overlay_text(&ov, &st);
    assert_int_equal(st, ETP_OK);
    assert_string_equal(text, again);

    char *graph = graph_text(c, 0);
    json_error_t je;
    json_t *gj = json_loads(graph, 0, &je), *oj = json_loads(text, 0, &je);
    assert_non_null(gj);
    assert_non_null(oj);
    assert_int_equal(json_object_size(oj), 1);
    const char *gid;
    json_t *data;
    json_object_foreach(oj, gid, data) {
        /* the graph this overlay targets, in the graph file */
        json_t *target = NULL, *gr;
        size_t i;
        json_array_foreach(json_object_get(gj, "graphs"), i, gr)
            if (!strcmp(json_string_value(json_object_get(gr, "id")), gid))
                target = gr;
        assert_non_null(target);
        assert_string_equal(json_string_value(json_object_get(data, "name")),
                            "Runtime avg (cycles)");
        const char *key;
        json_t *res;
        size_t count = 0;
        json_object_foreach(json_object_get(data, "results"), key, res) {
            int found = 0;
            json_t *node;
            json_array_foreach(json_object_get(target, "nodes"), i, node)
                found |= !strcmp(json_string_value(json_object_get(node, "id")), key);
            assert_true(found);
            const char *bg = json_string_value(json_object_get(res, "bgColor"));
            assert_non_null(bg);
            assert_int_equal(strlen(bg), 7);
            assert_int_equal(bg[0], '#');
            assert_true(json_is_number(json_object_get(res, "value")));
            count++;
        }
        assert_int_equal(count, n);
        json_t *grad = json_object_get(data, "gradient");
        assert_int_equal(json_array_size(grad), 3);
        assert_string_equal(
            json_string_value(json_object_get(json_array_get(grad, 0), "bgColor")), "#1a9850");
        json_t *hide = json_object_get(data, "hideAggregatedStats");
        assert_int_equal(json_array_size(hide), 1);
        assert_string_equal(json_string_value(json_array_get(hide, 0)), "sum");
    }
    /* lowest value green, highest red */
    json_t *res = json_object_get(json_object_get(oj, "forward"), "results");
    assert_string_equal(json_string_value(json_object_get(json_object_get(res, "forward_0_0"),
                                                          "bgColor")),
                        "#1a9850");
    assert_string_equal(json_string_value(json_object_get(json_object_get(res, "forward_0_2"),
                                                          "bgColor")),
                        "#d73027");
    json_decref(gj);
    json_decref(oj);
    free(graph);
    free(text);
    free(again);
    etp_me_free(c);
    etp_program_free(p);
}

static void overlay_colours(void **state)
{
    (void)state;
    char bg[8], text[8];
    etp_me_color(NULL, 0, 0, 10, 0, bg, text);
    assert_string_equal(bg, "#1a9850");
    assert_string_equal(text, "#ffffff");
    etp_me_color(NULL, 0, 0, 10, 5, bg, text);
    assert_string_equal(bg, "#ffd700");
    assert_string_equal(text, "#1f1f1f");
    etp_me_color(NULL, 0, 0, 10, 10, bg, text);
    assert_string_equal(bg, "#d73027");
    /* halfway between #000000 and #ffffff floors to 127 */
    etp_me_stop bw[] = {{0, "#000000"}, {1, "#ffffff"}};
    etp_me_color(bw, 2, 0, 1, 0.5, bg, text);
    assert_string_equal(bg, "#7f7f7f");
    /* out of range clamps; a flat range uses the lowest stop */
    etp_me_color(bw, 2, 0, 1, 7, bg, text);
    assert_string_equal(bg, "#ffffff");
    etp_me_color(bw, 2, 3, 3, 3, bg, text);
    assert_string_equal(bg, "#000000");

    /* All values equal: still coloured (Model Explorer alone would not),
     * on a scale from 0, so they show as the most costly (red). */
    etp_me_value v[] = {{"a", 2}, {"b", 2}};
    etp_me_overlay ov;
    etp_me_overlay_init(&ov);
    ov.graph_id = "g";
    ov.metric = "Count";
    ov.values = v;
    ov.value_count = 2;
    etp_status st;
    char *t = overlay_text(&ov, &st);
    assert_int_equal(st, ETP_OK);
    assert_non_null(strstr(t, "\"name\": \"Count\""));
    assert_non_null(strstr(t, "\"bgColor\": \"#d73027\""));
    free(t);

    /* Shared scale and rounding. */
    etp_me_value r[] = {{"x", 0.30000000000000004}};
    ov.values = r;
    ov.value_count = 1;
    ov.use_range = 1;
    ov.range_min = 0;
    ov.range_max = 0.6;
    ov.significant_digits = 4;
    t = overlay_text(&ov, &st);
    assert_int_equal(st, ETP_OK);
    assert_non_null(strstr(t, "\"value\": 0.3,"));
    assert_non_null(strstr(t, "\"bgColor\": \"#ffd700\""));
    free(t);

    /* Colours only where needed: with a shared range they stay, */
    ov.colors_when_needed = 1;
    t = overlay_text(&ov, &st);
    assert_non_null(strstr(t, "\"bgColor\": \"#ffd700\""));
    free(t);
    /* over the overlay's own spread values they go (Model Explorer derives
     * them; the gradient stays), */
    ov.use_range = 0;
    ov.significant_digits = 0;
    etp_me_value spread[] = {{"a", 1}, {"b", 2}, {"c", 3}};
    ov.values = spread;
    ov.value_count = 3;
    t = overlay_text(&ov, &st);
    assert_int_equal(st, ETP_OK);
    assert_null(strstr(t, "\"textColor\""));
    assert_non_null(strstr(t, "\"value\": 3.0\n"));
    assert_non_null(strstr(t, "\"gradient\""));
    assert_non_null(strstr(t, "\"bgColor\": \"#1a9850\""));
    free(t);
    /* and with all values equal (Model Explorer's 0/0) they stay. */
    ov.values = v;
    ov.value_count = 2;
    t = overlay_text(&ov, &st);
    assert_non_null(strstr(t, "\"bgColor\": \"#d73027\""));
    assert_non_null(strstr(t, "\"textColor\": \"#ffffff\""));
    free(t);
}

static void overlay_rejects(void **state)
{
    (void)state;
    etp_me_value dup[] = {{"a", 1}, {"b", 2}, {"a", 3}};
    etp_me_overlay ov;
    etp_me_overlay_init(&ov);
    ov.graph_id = "g";
    ov.metric = "m";
    ov.values = dup;
    ov.value_count = 3;
    etp_error err;
    FILE *fp = tmpfile();
    assert_int_equal(etp_me_write_overlay(&ov, fp, 0, &err), ETP_E_USAGE);
    assert_non_null(strstr(err.message, "two values"));
    etp_me_value nan[] = {{"a", 0.0 / 0.0}};
    ov.values = nan;
    ov.value_count = 1;
    assert_int_equal(etp_me_write_overlay(&ov, fp, 0, &err), ETP_E_USAGE);
    etp_me_stop bad[] = {{0.2, "#000000"}, {1, "#ffffff"}};
    etp_me_value ok[] = {{"a", 1}};
    ov.values = ok;
    ov.stops = bad;
    ov.stop_count = 2;
    assert_int_equal(etp_me_write_overlay(&ov, fp, 0, &err), ETP_E_USAGE);
    etp_me_stop named[] = {{0, "green"}, {1, "#ffffff"}};
    ov.stops = named;
    assert_int_equal(etp_me_write_overlay(&ov, fp, 0, &err), ETP_E_USAGE);
    ov.stops = NULL;
    ov.graph_id = NULL;
    assert_int_equal(etp_me_write_overlay(&ov, fp, 0, &err), ETP_E_USAGE);
    assert_int_equal(ftell(fp), 0); /* nothing written on a rejected overlay */
    fclose(fp);
}

static void overlay_filenames(void **state)
{
    (void)state;
    char b[64];
    etp_me_overlay_filename(b, sizeof b, "Runtime avg", "ms");
    assert_string_equal(b, "runtime-avg-ms.json");
    etp_me_overlay_filename(b, sizeof b, "Share of total (%)", NULL);
    assert_string_equal(b, "share-of-total.json");
    etp_me_overlay_filename(b, sizeof b, "", "");
    assert_string_equal(b, "overlay.json");
}

static void python_repr(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *s;
    } cases[] = {
        {0.0, "0.0"}, {-0.0, "-0.0"}, {1.0, "1.0"}, {0.1, "0.1"}, {1e-05, "1e-05"},
        {0.0001, "0.0001"}, {1e+16, "1e+16"}, {1e15, "1000000000000000.0"},
        {123456789.0, "123456789.0"}, {0.018455125391483307, "0.018455125391483307"},
        {5e-324, "5e-324"}, {1.7976931348623157e+308, "1.7976931348623157e+308"},
        {-2.5, "-2.5"}, {1e+22, "1e+22"}, {1.5e-07, "1.5e-07"}, {100.0, "100.0"},
        {0.30000000000000004, "0.30000000000000004"},
        {9007199254740992.0, "9007199254740992.0"}, {1.5e-323, "1.5e-323"},
    };
    char b[40];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        etp_py_repr_double(b, sizeof b, cases[i].v);
        assert_string_equal(b, cases[i].s);
    }
    etp_py_repr_double(b, sizeof b, 1.0 / 0.0);
    assert_string_equal(b, "inf");
}

static void python_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t n;
        const char *out;
    } cases[] = {
        {"plain", 5, "plain"},
        {"caf\xc3\xa9", 5, "caf\xc3\xa9"},
        {"a\xff" "b", 3, "a\xef\xbf\xbd" "b"},
        {"\xe2\x82", 2, "\xef\xbf\xbd"},                  /* truncated: one U+FFFD */
        {"\xf0\x9f\x98x", 4, "\xef\xbf\xbdx"},
        {"\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* surrogate */
        {"\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd"},      /* overlong */
        {"\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = etp_py_decode_utf8(cases[i].in, cases[i].n);
        assert_non_null(s);
        assert_string_equal(s, cases[i].out);
        free(s);
    }
}

/* The fixture's graph is a chain: GraphInputs -> 3 instructions -> GraphOutputs. */
static void graph_layout(void **state)
{
    (void)state;
    etp_program *p = open_program(ETHOSU);
    etp_me_collection *c = build(p, NULL);
    const etp_me_graph *g = &c->graphs[0];
    etp_layout l;
    etp_error err;
    uint32_t *target = NULL;
    assert_int_equal(etp_me_layout(g, 7, 20, 28, NULL, NULL, &l, &target, &err), ETP_OK);
    assert_int_equal(l.node_count, 5);
    assert_int_equal(l.edge_count, 4);
    assert_int_equal(l.layer_count, 5);
    for (uint32_t k = 0; k < 5; k++) {
        assert_int_equal(l.layer[k], k);
        assert_true(l.x[k] == l.x[0]);
    }
    assert_int_equal(target[0], 1);
    assert_int_equal(target[3], 4);
    /* "cortex_m::quantize_per_tensor" is 29 characters */
    assert_true(l.width >= 29 * 7 + 20);
    free(target);
    etp_layout_release(&l);
    etp_me_free(c);
    etp_program_free(p);
}

static void cli_exit_codes(void **state)
{
    (void)state;
    char cmd[2048];
    int status;
    char *out;
    char *dir = tu_tmpdir();
    assert_non_null(dir);

    snprintf(cmd, sizeof cmd, "'%s' graph 2>&1", tu_etprof());
    out = tu_run(cmd, &status);
    assert_int_equal(status, 2);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' graph --bogus x 2>&1", tu_etprof());
    out = tu_run(cmd, &status);
    assert_int_equal(status, 2);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' graph %s/missing.pte -o %s/g.json 2>&1", tu_etprof(), dir, dir);
    out = tu_run(cmd, &status);
    assert_int_equal(status, 1);
    assert_non_null(strstr(out, "etprof: "));
    free(out);

    /* A truncated program: one line, exit 1, no output file left behind. */
    size_t size;
    uint8_t *bytes = tu_read_file(tu_fixture(VGF), &size);
    assert_non_null(bytes);
    char path[1200];
    snprintf(path, sizeof path, "%s/cut.pte", dir);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, 1000, fp), 1000);
    fclose(fp);
    free(bytes);
    snprintf(cmd, sizeof cmd, "'%s' graph %s -o %s/g.json 2>&1", tu_etprof(), path, dir);
    out = tu_run(cmd, &status);
    assert_int_equal(status, 1);
    assert_non_null(strstr(out, "cut.pte"));
    assert_non_null(strchr(out, '\n'));
    assert_null(strchr(strchr(out, '\n') + 1, '\n'));
    free(out);
    snprintf(path, sizeof path, "%s/g.json", dir);
    assert_null(fopen(path, "rb"));

    snprintf(cmd, sizeof cmd, "'%s' graph %s --method nope -o %s/g.json 2>&1", tu_etprof(),
             tu_fixture(VGF), dir);
    out = tu_run(cmd, &status);
    assert_int_equal(status, 2); /* an unknown method is a usage error in every command */
    assert_non_null(strstr(out, "nope"));
    free(out);

    snprintf(cmd, sizeof cmd, "'%s' graph %s --method forward -o %s/g.json", tu_etprof(),
             tu_fixture(VGF), dir);
    out = tu_run(cmd, &status);
    assert_int_equal(status, 0);
    free(out);
    tu_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest pure[] = {
        cmocka_unit_test(overlay_colours),   cmocka_unit_test(overlay_rejects),
        cmocka_unit_test(overlay_filenames), cmocka_unit_test(python_repr),
        cmocka_unit_test(python_utf8),
    };
    const struct CMUnitTest on_fixtures[] = {
        cmocka_unit_test(graph_structure),     cmocka_unit_test(graph_method_filter),
        cmocka_unit_test(graph_deterministic), cmocka_unit_test(overlay_on_fixture),
        cmocka_unit_test(graph_layout),        cmocka_unit_test(cli_exit_codes),
    };
    int failed = cmocka_run_group_tests(pure, NULL, NULL);
    if (failed)
        return failed;
    TU_REQUIRE_FIXTURES();
    return cmocka_run_group_tests(on_fixtures, NULL, NULL);
}
