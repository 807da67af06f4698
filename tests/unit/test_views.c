/* test_views.c - the views of an analysis: the ETRecord source graph, its
 * links to instructions, the mapping files, the HTML report (determinism,
 * self-containment) and the companion-program gate. Inputs: the demo triple
 * generated into a temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "etprof/analysis.h"
#include "etprof/etdump.h"
#include "etprof/etrecord.h"
#include "etprof/gen.h"
#include "etprof/mexplorer.h"
#include "etprof/program.h"
#include "etprof/me_links.h"
#include "etprof/report.h"
#include "outputs/bundle/publish.h"
#include "outputs/mexplorer/me_links_internal.h"
#include "testutil.h"

typedef struct demo {
    char *dir;
    char pte[512], etr[512], etd[512];
    etp_etdump *d;
    etp_program *p;
    etp_etrecord *r;
    etp_analysis *a;
} demo;

static void demo_open(demo *t, int with_program)
{
    memset(t, 0, sizeof *t);
    t->dir = tu_tmpdir();
    assert_non_null(t->dir);
    etp_error err;
    etp_gen_result res;
    /* the variant with shared and unresolved timings: what the links show */
    if (etp_gen_demo_ex(t->dir, 5, 1, ETP_GEN_DEMO_FLAWS, &res, &err))
        fail_msg("gen demo: %s", err.message);
    snprintf(t->pte, sizeof t->pte, "%s/model.pte", t->dir);
    snprintf(t->etr, sizeof t->etr, "%s/model.etrecord", t->dir);
    snprintf(t->etd, sizeof t->etd, "%s/run.etdp", t->dir);
    if (etp_etdump_open(t->etd, &t->d, &err) || (with_program && etp_program_open(t->pte, &t->p, &err)) ||
        etp_etrecord_open(t->etr, &t->r, &err))
        fail_msg("open: %s", err.message);
    etp_analysis_options o;
    etp_analysis_options_init(&o);
    o.method = "forward";
    o.hash_program = 1;
    if (etp_analyze(t->d, t->p, t->r, &o, &t->a, &err))
        fail_msg("analyze: %s", err.message);
}

static void demo_close(demo *t)
{
    etp_analysis_free(t->a);
    etp_etrecord_free(t->r);
    etp_program_free(t->p);
    etp_etdump_free(t->d);
    tu_rmrf(t->dir);
    free(t->dir);
}

static const etp_src_node *node(const etp_source_graph *g, const char *id)
{
    int64_t k = etp_source_graph_find(g, id);
    if (k < 0)
        fail_msg("no node %s", id);
    return &g->nodes[k];
}

static int has_edge_from(const etp_source_graph *g, const etp_src_node *n, const char *src)
{
    for (uint32_t i = 0; i < n->edge_count; i++)
        if (!strcmp(g->nodes[n->edges[i].source].id, src))
            return 1;
    return 0;
}

static void test_namespace(void **state)
{
    (void)state;
    struct {
        const char *in, *out;
    } cases[] = {{"layer1.0.conv1", "layer1/0/conv1"}, {"", ""}, {"conv1", "conv1"},
                 {"a/b.c", "a\\/b/c"}, {"x;y", "x_y"}, {".a..b.", "a/b"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = etp_module_namespace(cases[i].in);
        assert_non_null(s);
        assert_string_equal(s, cases[i].out);
        free(s);
    }
}

static void test_source_graph(void **state)
{
    (void)state;
    demo t;
    demo_open(&t, 1);
    etp_error err;
    etp_source_graph *g = NULL;
    assert_int_equal(etp_source_graph_build(t.a, NULL, &g, &err), ETP_OK);
    assert_string_equal(g->id, "forward.source");
    const etp_exported_program *ep = etp_etrecord_edge_program(t.r, "forward");
    assert_int_equal(g->node_count, ep->input_count + ep->node_count + 1);
    assert_int_equal(g->operator_count, ep->node_count);

    const etp_src_node *conv = node(g, "aten_convolution_default");
    assert_int_equal(conv->kind, ETP_SRC_NODE_OPERATOR);
    assert_string_equal(conv->label, "aten.convolution");
    assert_string_equal(conv->ns, "conv1");
    assert_non_null(conv->entity);
    assert_string_equal(conv->entity->id, "aten_convolution_default");
    assert_true(has_edge_from(g, conv, "x"));
    assert_true(has_edge_from(g, conv, "p_conv1_weight"));
    assert_int_equal(conv->link, ETP_LINK_LINKED);
    assert_int_equal(conv->group, -1);

    const etp_src_node *relu = node(g, "aten_relu_default");
    assert_true(has_edge_from(g, relu, "aten_convolution_default"));
    /* A multi-output producer: its second port. */
    const etp_src_node *conv2 = node(g, "aten_convolution_default_1");
    assert_true(has_edge_from(g, conv2, "aten_max_pool2d_with_indices_default"));

    /* The Vulkan region: three operators, one group. */
    assert_int_equal(g->group_count, 1);
    assert_string_equal(g->groups[0].backend, "VulkanBackend");
    assert_int_equal(g->groups[0].instruction, 3);
    assert_int_equal(g->groups[0].node_count, 3);
    assert_int_equal(node(g, "aten_relu_default_1")->group, 0);
    assert_int_equal(conv2->group, 0);

    /* Unlinked operators are reported, not guessed. */
    assert_int_equal(node(g, "aten_view_copy_default")->link, ETP_LINK_NO_INSTRUCTION);
    assert_int_equal(node(g, "aten__softmax_default")->link, ETP_LINK_NO_INSTRUCTION);
    assert_int_equal(g->unlinked_operators, 2);
    assert_int_equal(node(g, "x")->link, ETP_LINK_NOT_APPLICABLE);

    const etp_src_node *out = node(g, "GraphOutputs");
    assert_int_equal(out->kind, ETP_SRC_NODE_OUTPUTS);
    assert_true(has_edge_from(g, out, "aten__softmax_default"));

    /* Instruction 7 carries handle 12, which matches no operator. */
    int found = 0;
    for (uint32_t i = 0; i < g->link_count; i++)
        if (g->links[i].instruction == 7) {
            found = 1;
            assert_int_equal(g->links[i].node_count, 0);
            assert_int_equal(g->links[i].unresolved_count, 1);
            assert_int_equal(g->links[i].unresolved[0], 12);
        }
    assert_true(found);
    /* Links are sorted by instruction; delegate events follow their call. */
    for (uint32_t i = 1; i < g->link_count; i++)
        assert_true(g->links[i - 1].instruction <= g->links[i].instruction);

    /* Ids are unique and findable. */
    for (uint32_t i = 0; i < g->node_count; i++)
        assert_int_equal(etp_source_graph_find(g, g->nodes[i].id), (int64_t)i);
    assert_int_equal(etp_source_graph_find(g, "no such node"), -1);
    etp_source_graph_free(g);
    demo_close(&t);
}

static char *file_text(FILE *fp, size_t *len)
{
    char *buf = tu_stream_text(fp, len);
    assert_non_null(buf);
    return buf;
}

static void test_links_and_mapping(void **state)
{
    (void)state;
    demo t;
    demo_open(&t, 1);
    etp_error err;
    etp_source_graph *g = NULL;
    etp_me_collection *c = NULL;
    assert_int_equal(etp_source_graph_build(t.a, NULL, &g, &err), ETP_OK);
    assert_int_equal(etp_me_build(t.p, NULL, NULL, &c, &err), ETP_OK);
    const etp_me_graph *ig = etp_me_find_graph(c, "forward");
    assert_non_null(ig);
    int64_t li;
    assert_int_equal(etp_me_instruction_link(ig, (uint32_t)etp_me_find_node(ig, "forward_0_0"), g, &li),
                     ETP_LINK_LINKED);
    assert_int_equal(etp_me_instruction_link(ig, (uint32_t)etp_me_find_node(ig, "forward_0_7"), g, &li),
                     ETP_LINK_UNRESOLVED);
    assert_int_equal(etp_me_instruction_link(ig, (uint32_t)etp_me_find_node(ig, "GraphInputs"), g, &li),
                     ETP_LINK_NOT_APPLICABLE);

    FILE *fp = tmpfile();
    assert_int_equal(etp_me_write_mapping(t.a, ig, g, fp, &err), ETP_OK);
    char *text = file_text(fp, NULL);
    fclose(fp);
    json_error_t je;
    json_t *m = json_loads(text, 0, &je);
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(m, "schema")), "etprof.me-mapping");
    assert_string_equal(json_string_value(json_object_get(m, "program_sha256")), t.a->program_sha256);
    size_t i;
    json_t *l;
    int kinds[4] = {0};
    json_array_foreach(json_object_get(m, "links"), i, l) {
        assert_true(etp_me_find_node(ig, json_string_value(json_object_get(l, "instruction"))) >= 0);
        size_t k;
        json_t *s;
        json_array_foreach(json_object_get(l, "sources"), k, s)
            assert_true(etp_source_graph_find(g, json_string_value(s)) >= 0);
        const char *kind = json_string_value(json_object_get(l, "kind"));
        kinds[0] += !strcmp(kind, "kernel");
        kinds[1] += !strcmp(kind, "delegate");
        kinds[2] += !strcmp(kind, "delegate_event");
    }
    assert_true(kinds[0] > 0);
    assert_int_equal(kinds[1], 1);
    assert_int_equal(kinds[2], 2);
    json_t *ui = json_object_get(m, "unlinked_instructions");
    assert_int_equal(json_array_size(ui), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(ui, 0), "id")), "forward_0_7");
    assert_int_equal(json_array_size(json_object_get(m, "unlinked_operators")), 2);
    json_decref(m);
    free(text);

    fp = tmpfile();
    assert_int_equal(etp_me_write_sync_navigation(ig, g, fp, &err), ETP_OK);
    text = file_text(fp, NULL);
    fclose(fp);
    m = json_loads(text, 0, &je);
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(m, "type")), "sync_navigation");
    json_array_foreach(json_object_get(m, "mappingEntries"), i, l) {
        assert_true(etp_me_find_node(ig, json_string_value(json_array_get(json_object_get(l, "leftNodeIds"), 0))) >= 0);
        size_t k;
        json_t *s;
        json_array_foreach(json_object_get(l, "rightNodeIds"), k, s)
            assert_true(etp_source_graph_find(g, json_string_value(s)) >= 0);
    }
    assert_true(json_array_size(json_object_get(m, "mappingEntries")) >= 7);
    json_decref(m);
    free(text);
    etp_me_free(c);
    etp_source_graph_free(g);
    demo_close(&t);
}

static char *page(const etp_report_inputs *in, size_t *len)
{
    FILE *fp = tmpfile();
    etp_error err;
    if (etp_report_write_html(in, fp, &err))
        fail_msg("report: %s", err.message);
    char *s = file_text(fp, len);
    fclose(fp);
    return s;
}

static void test_report_page(void **state)
{
    (void)state;
    demo t;
    demo_open(&t, 1);
    etp_error err;
    etp_source_graph *g = NULL;
    etp_me_collection *c = NULL;
    assert_int_equal(etp_source_graph_build(t.a, NULL, &g, &err), ETP_OK);
    assert_int_equal(etp_me_build(t.p, NULL, NULL, &c, &err), ETP_OK);
    etp_report_inputs in = {t.a, etp_me_find_graph(c, "forward"), g, "run.etdp", "model.pte",
                            "model.etrecord"};
    size_t n1, n2;
    char *p1 = page(&in, &n1), *p2 = page(&in, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(p1, p2, n1); /* deterministic bytes */
    /* Self-contained: no external script, stylesheet, image or font. */
    assert_null(strstr(p1, "<script src"));
    assert_null(strstr(p1, "<link"));
    assert_null(strstr(p1, "<img"));
    assert_null(strstr(p1, "@import"));
    for (const char *q = p1; (q = strstr(q, "http")); q++)
        assert_true(!strncmp(q, "http://www.w3.org/2000/svg", 26) ||
                    !strncmp(q, "http-equiv", 10));
    assert_non_null(strstr(p1, "data-etprof-ready=\"0\""));
    assert_non_null(strstr(p1, "id=\"svg0\""));
    assert_non_null(strstr(p1, "id=\"svg1\""));
    /* The Vulkan region is outlined, the unlinked nodes flagged for the
     * script (which dashes them). */
    assert_non_null(strstr(p1, "class=\"grp\""));
    assert_non_null(strstr(p1, "VulkanBackend \xc2\xb7 forward_0_3"));
    assert_non_null(strstr(strstr(p1, "id=\"etp-data\">"), "\"unl\":true"));
    /* Validity and issues before the drawings. */
    char *val = strstr(p1, "class=\"validity v-degraded\"");
    assert_non_null(val);
    assert_true(val < strstr(p1, "<svg"));
    assert_non_null(strstr(p1, "attribution.shared_timing"));
    /* The data blocks cannot end their script elements early. */
    for (int b = 0; b < 2; b++) {
        char *data = strstr(p1, b ? "id=\"etp-ents\">" : "id=\"etp-data\">");
        assert_non_null(data);
        char *end = strstr(data, "</script>");
        for (char *q = data + 14; q < end; q++)
            assert_true(*q != '<');
    }
    free(p1);
    free(p2);

    /* Only one of the graphs: the page still works. */
    etp_report_inputs only_src = {t.a, NULL, g, "run.etdp", NULL, "model.etrecord"};
    p1 = page(&only_src, &n1);
    assert_non_null(strstr(p1, "id=\"svg0\""));
    assert_null(strstr(p1, "id=\"svg1\""));
    free(p1);
    etp_report_inputs only_ins = {t.a, etp_me_find_graph(c, "forward"), NULL, "run.etdp", "model.pte", NULL};
    p1 = page(&only_ins, &n1);
    /* without an ETRecord nothing is called unlinked */
    assert_null(strstr(strstr(p1, "id=\"etp-data\">"), "\"unl\":true"));
    assert_null(strstr(p1, "id=\"svg1\""));
    free(p1);
    etp_me_free(c);
    etp_source_graph_free(g);
    demo_close(&t);
}

static int exists(const char *dir, const char *rel)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    struct stat st;
    return stat(p, &st) == 0;
}

static etp_status publish(demo *t, const char *out, etp_error *err)
{
    etp_publish_options po;
    memset(&po, 0, sizeof po);
    po.dir = out;
    po.operators_csv = 1;
    po.model_explorer = 1;
    po.command_line = "test";
    po.etdump_path = t->etd;
    po.pte_path = t->pte;
    po.etrecord_path = t->etr;
    po.run_id = "00000000-0000-4000-8000-000000000000";
    po.timestamp = "2026-01-01T00:00:00Z";
    return etp_publish(t->a, &po, NULL, err);
}

static void test_gate(void **state)
{
    (void)state;
    demo t;
    demo_open(&t, 1);
    etp_error err;
    char out[600], out2[600], tmp[600];
    snprintf(out, sizeof out, "%s/ok", t.dir);
    snprintf(out2, sizeof out2, "%s/changed", t.dir);
    assert_int_equal(publish(&t, out, &err), ETP_OK);
    assert_true(exists(out, "result_manifest.json"));
    assert_true(exists(out, "model_explorer/index.html"));
    assert_true(exists(out, "model_explorer/mapping.json"));

    /* Replace the .pte after the analysis (a new file renamed over it, as an
     * editor or a re-export would). */
    size_t n;
    uint8_t *bytes = tu_read_file(t.pte, &n);
    assert_non_null(bytes);
    bytes[n - 1] ^= 0x5a;
    snprintf(tmp, sizeof tmp, "%s.new", t.pte);
    FILE *f = fopen(tmp, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
    free(bytes);
    assert_int_equal(rename(tmp, t.pte), 0);
    etp_status s = publish(&t, out2, &err);
    assert_int_equal(s, ETP_E_MISMATCH);
    assert_non_null(strstr(err.message, "run the analysis again"));
    assert_false(exists(out2, "result_manifest.json"));
    assert_false(exists(out2, "model_explorer/index.html"));

    /* A vanished .pte is an error too. */
    assert_int_equal(unlink(t.pte), 0);
    snprintf(out2, sizeof out2, "%s/gone", t.dir);
    s = publish(&t, out2, &err);
    assert_int_not_equal(s, ETP_OK);
    assert_false(exists(out2, "result_manifest.json"));
    demo_close(&t);
}

static void test_no_program(void **state)
{
    (void)state;
    demo t;
    demo_open(&t, 0);
    etp_error err;
    char out[600];
    snprintf(out, sizeof out, "%s/etr-only", t.dir);
    etp_publish_options po;
    memset(&po, 0, sizeof po);
    po.dir = out;
    po.operators_csv = 1;
    po.model_explorer = 1;
    po.command_line = "test";
    po.etdump_path = t.etd;
    po.etrecord_path = t.etr;
    assert_int_equal(etp_publish(t.a, &po, NULL, &err), ETP_OK);
    assert_true(exists(out, "model_explorer/graph.json"));
    assert_true(exists(out, "model_explorer/index.html"));
    assert_true(exists(out, "model_explorer/runtime-avg-ms.json"));
    assert_false(exists(out, "model_explorer/mapping.json")); /* no instruction graph */
    demo_close(&t);
}

static void test_overlay_api(void **state)
{
    (void)state;
    etp_error err;
    etp_me_value v1[] = {{"a", 1.0}, {"b", 2.0}}, v2[] = {{"x", 3.0}};
    etp_me_overlay ov[2];
    etp_me_overlay_init(&ov[0]);
    etp_me_overlay_init(&ov[1]);
    ov[0].graph_id = "g1";
    ov[0].metric = ov[1].metric = "Runtime avg";
    ov[0].values = v1;
    ov[0].value_count = 2;
    ov[1].graph_id = "g2";
    ov[1].values = v2;
    ov[1].value_count = 1;
    FILE *fp = tmpfile();
    assert_int_equal(etp_me_write_overlays(ov, 2, fp, 0, &err), ETP_OK);
    char *text = file_text(fp, NULL);
    fclose(fp);
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    assert_non_null(j);
    assert_non_null(json_object_get(json_object_get(json_object_get(j, "g1"), "results"), "b"));
    assert_non_null(json_object_get(json_object_get(json_object_get(j, "g2"), "results"), "x"));
    json_decref(j);
    free(text);
    ov[1].graph_id = "g1";
    fp = tmpfile();
    assert_int_equal(etp_me_write_overlays(ov, 2, fp, 0, &err), ETP_E_USAGE);
    fclose(fp);

    etp_me_label l[] = {{"a", "linked", "#91bfdb"}, {"b", "unlinked", NULL}};
    etp_me_label_overlay lo = {"g1", "Link status", l, 2};
    fp = tmpfile();
    assert_int_equal(etp_me_write_label_overlays(&lo, 1, fp, 0, &err), ETP_OK);
    text = file_text(fp, NULL);
    fclose(fp);
    j = json_loads(text, 0, &je);
    json_t *ra = json_object_get(json_object_get(json_object_get(j, "g1"), "results"), "a");
    assert_string_equal(json_string_value(json_object_get(ra, "value")), "linked");
    assert_string_equal(json_string_value(json_object_get(ra, "textColor")), "#1f1f1f");
    json_t *rb = json_object_get(json_object_get(json_object_get(j, "g1"), "results"), "b");
    assert_null(json_object_get(rb, "bgColor"));
    json_decref(j);
    free(text);
    l[1].node_id = "a";
    fp = tmpfile();
    assert_int_equal(etp_me_write_label_overlays(&lo, 1, fp, 0, &err), ETP_E_USAGE);
    fclose(fp);
    l[1].node_id = "b";
    /* colours are "#rrggbb" exactly (either case), nothing shorter or longer */
    static const char *const bad[] = {"#abc", "#abcdef0", "#abcdeg", "abcdef0", "#@bcdef", "#"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        l[1].bg_color = bad[i];
        fp = tmpfile();
        assert_int_equal(etp_me_write_label_overlays(&lo, 1, fp, 0, &err), ETP_E_USAGE);
        fclose(fp);
    }
    l[1].bg_color = "#ABCDEF";
    fp = tmpfile();
    assert_int_equal(etp_me_write_label_overlays(&lo, 1, fp, 0, &err), ETP_OK);
    fclose(fp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_namespace),      cmocka_unit_test(test_source_graph),
        cmocka_unit_test(test_links_and_mapping), cmocka_unit_test(test_report_page),
        cmocka_unit_test(test_gate),           cmocka_unit_test(test_no_program),
        cmocka_unit_test(test_overlay_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
