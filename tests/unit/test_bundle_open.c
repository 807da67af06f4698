/* test_bundle_open.c - etp_bundle_open() reads back every kind of bundle
 * `etprof analyze -o` publishes (csv, json, --detailed, with and without an
 * ETRecord or a runner log, no Model Explorer files, real runs and the demo)
 * with the values the analysis computed, and refuses tampered bundles. The
 * analysis to compare with comes from the same inputs through
 * etp_inputs_open(), as `analyze` loads them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "etprof/analysis.h"
#include "etprof/bundle.h"
#include "etprof/inputs.h"
#include "testutil.h"
#include "util/sha256.h"

static char *g_tmp;

static void check_ok(etp_status s, const etp_error *err)
{
    if (s)
        fail_msg("unexpected error: %s: %s", err->file, err->message);
}

/* A run to publish: its inputs (real-runs file names) and analyze options. */
typedef struct run_case {
    const char *tag;
    const char *etdump, *pte, *etrecord, *log; /* under real-runs/, or NULL */
    const char *extra;                         /* more analyze options */
} run_case;

static const run_case CASES[] = {
    {"add_csv_detailed_log", "et_add_x10.etdp", "et_add_x10.pte", NULL, "et_add_x10.log",
     "--detailed"},
    {"add_json", "et_add_x10.etdp", "et_add_x10.pte", NULL, NULL, "--format json"},
    {"add_x1_no_me", "et_add_x1.etdp", "et_add_x1.pte", NULL, NULL, "--model-explorer none"},
    {"kws_etrecord_detailed", "cm_et_arduino_kws_x10.etdp", "cm_et_arduino_kws_x10.pte",
     "cm_et_arduino_kws_x10.etrecord", "cm_et_arduino_kws_x10.log", "--detailed"},
    {"kws_etrecord_only_json", "cm_et_arduino_kws_x10.etdp", NULL,
     "cm_et_arduino_kws_x10.etrecord", NULL, "--format json --model-explorer none"},
    {"xnn_csv", "xnn_np_add_x10.etdp", "xnn_np_add_x10.pte", NULL, "xnn_np_add_x10.log", ""},
    {"bpte_json_detailed", "et_bundled_program_debug_intermediate.etdp",
     "et_bundled_program_debug_intermediate.bpte", NULL, NULL, "--format json --detailed"},
    {"dtypes_csv", "np_dtypes_x10.etdp", "np_dtypes_x10.pte", NULL, NULL, "--model-explorer none"},
};

static char *real(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "real-runs/%s", name);
    const char *p = tu_fixture(rel);
    assert_non_null(p);
    return strdup(p);
}

static void sh(const char *cmd)
{
    int status;
    char *out = tu_run(cmd, &status);
    if (status != 0)
        fail_msg("`%s` exited %d: %s", cmd, status, out ? out : "");
    free(out);
}

static char *bundle_dir(const char *tag)
{
    char *p = malloc(strlen(g_tmp) + strlen(tag) + 2);
    assert_non_null(p);
    sprintf(p, "%s/%s", g_tmp, tag);
    return p;
}

static char *sha_of(const char *path)
{
    size_t n;
    uint8_t *data = tu_read_file(path, &n);
    assert_non_null(data);
    char *hex = malloc(ETP_SHA256_HEX);
    assert_int_equal(etp_sha256_buf(data, n, hex), 0);
    free(data);
    return hex;
}

/* The manifest's and run_metadata's record of input @p role: present, with
 * the file's own digest. */
static void check_input(const etp_bundle_doc *doc, const char *role, const char *path)
{
    const etp_bundle_manifest *m = etp_bundle_doc_manifest(doc);
    const etp_bundle_run_metadata *md = etp_bundle_doc_run_metadata(doc);
    char *hex = sha_of(path);
    int seen = 0;
    for (uint32_t i = 0; i < m->input_count; i++)
        if (!strcmp(m->inputs[i].role, role)) {
            assert_true(m->inputs[i].has_digest);
            assert_string_equal(m->inputs[i].sha256, hex);
            seen++;
        }
    for (uint32_t i = 0; i < md->input_count; i++)
        if (!strcmp(md->inputs[i].role, role)) {
            assert_true(md->inputs[i].has_digest);
            assert_string_equal(md->inputs[i].sha256, hex);
            assert_string_equal(md->inputs[i].path, path);
            seen++;
        }
    if (seen != 2)
        fail_msg("input %s recorded %d times (manifest + run metadata: 2)", role, seen);
    free(hex);
}

static void check_metric_value(const etp_bundle_metric *mt, double want, const char *name)
{
    if (!mt)
        fail_msg("metric %s missing", name);
    assert_true(mt->available);
    if (!(mt->value == want || (isnan(mt->value) && isnan(want))))
        fail_msg("metric %s: read %.17g, analysis %.17g", name, mt->value, want);
}

/* summary.json's metrics are the analysis' figures, value for value. */
static void check_metrics(const etp_bundle_doc *doc, const etp_analysis *a)
{
    uint32_t n;
    const etp_bundle_metric *ms = etp_bundle_doc_metrics(doc, &n);
    assert_int_equal(n, 1 + 4 * a->figure_count);
    assert_string_equal(ms[0].name, "executions");
    check_metric_value(&ms[0], (double)a->execution_count, "executions");
    static const char *const stat[] = {"avg", "p50", "min", "max"};
    for (uint32_t i = 0; i < a->figure_count; i++) {
        const etp_figure *f = &a->figures[i];
        double v[4] = {f->stats.avg, f->stats.p50, f->stats.min, f->stats.max};
        for (int k = 0; k < 4; k++) {
            char name[256];
            snprintf(name, sizeof name, "%s.%s", f->name, stat[k]);
            const etp_bundle_metric *mt = etp_bundle_doc_metric(doc, name);
            assert_ptr_equal(mt, &ms[1 + 4 * i + (uint32_t)k]);
            if (!f->available) {
                assert_false(mt->available);
                assert_non_null(mt->reason);
                continue;
            }
            check_metric_value(mt, v[k], name);
            assert_int_equal(mt->samples, f->stats.n);
            assert_int_equal(mt->additive, k == 0 && f->additive);
            assert_non_null(mt->unit);
            assert_non_null(mt->aggregation);
        }
    }
}

/* One row per entity, in order, with its id and timing. */
static void check_operators(const etp_bundle_doc *doc, const etp_analysis *a, int json)
{
    const etp_bundle_table *t = etp_bundle_doc_operators(doc);
    assert_non_null(t->source);
    assert_string_equal(t->source, json ? "operators.json" : "operators.csv");
    assert_int_equal(t->row_count, a->entity_count);
    int id = etp_bundle_table_column(t, json ? "id" : "entity_id");
    int kind = etp_bundle_table_column(t, "kind");
    int execs = etp_bundle_table_column(t, json ? "timing.executions" : "executions");
    char avg_name[32];
    snprintf(avg_name, sizeof avg_name, json ? "timing.avg" : "avg_%s",
             etp_unit_name(a->target_unit));
    int avg = etp_bundle_table_column(t, avg_name);
    assert_true(id >= 0 && kind >= 0 && execs >= 0 && avg >= 0);
    for (uint32_t r = 0; r < t->row_count; r++) {
        const etp_entity *e = &a->entities[r];
        const etp_bundle_cell *c = etp_bundle_table_cell(t, r, (uint32_t)id);
        assert_int_equal(c->type, ETP_CELL_STRING);
        assert_string_equal(c->text, e->id);
        assert_string_equal(etp_bundle_table_cell(t, r, (uint32_t)kind)->text,
                            etp_entity_kind_name(e->kind));
        const etp_bundle_cell *x = etp_bundle_table_cell(t, r, (uint32_t)execs);
        const etp_bundle_cell *v = etp_bundle_table_cell(t, r, (uint32_t)avg);
        if (!e->time.executions) {
            assert_int_equal(v->type, ETP_CELL_NULL);
            continue;
        }
        assert_int_equal(x->type, ETP_CELL_NUMBER);
        assert_true(x->number == (double)e->time.executions);
        assert_int_equal(v->type, ETP_CELL_NUMBER);
        if (v->number != e->time.stats.avg)
            fail_msg("%s avg: read %.17g, analysis %.17g", e->id, v->number, e->time.stats.avg);
    }
}

static void check_case(const run_case *rc)
{
    char *etdump = real(rc->etdump);
    char *pte = rc->pte ? real(rc->pte) : NULL;
    char *etrecord = rc->etrecord ? real(rc->etrecord) : NULL;
    char *log = rc->log ? real(rc->log) : NULL;
    char *dir = bundle_dir(rc->tag);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' analyze %s%s%s --etdump '%s' %s%s%s %s%s%s -o '%s' %s --quiet",
             tu_etprof(), etrecord ? "'" : "", etrecord ? etrecord : "", etrecord ? "'" : "",
             etdump, pte ? "--pte '" : "", pte ? pte : "", pte ? "'" : "", log ? "--log '" : "",
             log ? log : "", log ? "'" : "", dir, rc->extra);
    sh(cmd);

    etp_error err;
    etp_error_clear(&err);
    etp_analysis_options opt;
    etp_analysis_options_init(&opt);
    etp_inputs_spec spec = {etdump, pte, etrecord, log, &opt, 0, NULL};
    etp_inputs *in;
    check_ok(etp_inputs_open(&spec, &in, &err), &err);
    opt.runner_log = etp_inputs_runner_log(in);
    etp_analysis *a;
    check_ok(etp_analyze_prepared(etp_inputs_etdump(in), etp_inputs_take_prepared(in),
                                  etp_inputs_program(in), etp_inputs_etrecord(in), &opt, &a, &err),
             &err);
    assert_null(etp_inputs_take_prepared(in));

    for (int verify = 1; verify >= 0; verify--) {
        etp_bundle_doc *doc;
        check_ok(etp_bundle_open(dir, verify, &doc, &err), &err);
        const etp_bundle_manifest *m = etp_bundle_doc_manifest(doc);
        assert_string_equal(m->status, "complete");
        assert_string_equal(m->validity, etp_validity_name(a->validity));
        assert_string_equal(m->tool_name, "etprof");
        assert_int_equal(m->issue_count, a->issues.count);
        for (uint32_t i = 0; i < m->issue_count; i++)
            assert_string_equal(m->issues[i].code, a->issues.items[i].code->code);
        for (uint32_t i = 1; i < m->artifact_count; i++)
            assert_true(strcmp(m->artifacts[i - 1].path, m->artifacts[i].path) < 0);
        int detailed = strstr(rc->extra, "--detailed") != NULL;
        int me = strstr(rc->extra, "none") == NULL;
        assert_int_equal(etp_bundle_doc_artifact(doc, "detailed/delegates.json") != NULL ||
                             etp_bundle_doc_artifact(doc, "detailed/samples.json") != NULL ||
                             etp_bundle_doc_artifact(doc, "detailed/executions.csv") != NULL,
                         detailed);
        int any_me = 0;
        for (uint32_t i = 0; i < m->artifact_count; i++)
            any_me |= !strncmp(m->artifacts[i].path, "model_explorer/", 15);
        assert_int_equal(any_me, me);
        assert_non_null(m->options_json);
        char hex[ETP_SHA256_HEX];
        assert_int_equal(etp_sha256_buf(m->options_json, strlen(m->options_json), hex), 0);
        assert_string_equal(hex, m->options_sha256);
        const etp_bundle_run_metadata *md = etp_bundle_doc_run_metadata(doc);
        assert_string_equal(md->run_id, m->run_id);
        assert_string_equal(md->tool_name, "etprof");
        assert_non_null(strstr(md->command_line, "etprof analyze"));
        check_metrics(doc, a);
        check_operators(doc, a, strstr(rc->extra, "json") != NULL);
        check_input(doc, "etdump", etdump);
        if (pte)
            check_input(doc, "pte", pte);
        if (etrecord)
            check_input(doc, "etrecord", etrecord);
        if (log)
            check_input(doc, "log", log);
        assert_int_equal(m->input_count, 1 + !!pte + !!etrecord + !!log);
        etp_bundle_close(doc);
    }
    etp_analysis_free(a);
    etp_inputs_free(in);
    free(etdump);
    free(pte);
    free(etrecord);
    free(log);
    free(dir);
}

static void test_published_runs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
        check_case(&CASES[i]);
}

/* The generated demo triple, published with --detailed. */
static void test_demo(void **state)
{
    (void)state;
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "'%s' gen demo -o '%s/demo' >/dev/null && '%s' analyze '%s/demo/model.etrecord' "
             "--etdump '%s/demo/run.etdp' --pte '%s/demo/model.pte' -o '%s/demo/result' "
             "--detailed --quiet",
             tu_etprof(), g_tmp, tu_etprof(), g_tmp, g_tmp, g_tmp, g_tmp);
    sh(cmd);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/demo/result", g_tmp);
    etp_error err;
    etp_error_clear(&err);
    etp_bundle_doc *doc;
    check_ok(etp_bundle_open(dir, 1, &doc, &err), &err);
    uint32_t n;
    assert_non_null(etp_bundle_doc_metrics(doc, &n));
    assert_true(n > 1);
    assert_true(etp_bundle_doc_operators(doc)->row_count > 0);
    assert_int_equal(etp_bundle_doc_run_metadata(doc)->input_count, 3);
    etp_bundle_close(doc);
}

/* A bundle of made-up artifacts written through the writer API: read back
 * as far as it goes (no metrics, a CSV of other columns). */
static void test_minimal_bundle(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/minimal", g_tmp);
    etp_error err;
    etp_error_clear(&err);
    etp_bundle *b;
    check_ok(etp_bundle_begin(dir, &b, &err), &err);
    const char *summary = "{\"schema\":\"etprof.summary\",\"schema_version\":1}\n";
    const char *ops = "id,name,n,avg,ok\r\n"
                      "a,\"x, \"\"quoted\"\"\",10,1.5,true\r\nb,,2,,false\r\n";
    check_ok(etp_bundle_write(b, "summary.json", summary, strlen(summary), NULL, "core",
                              "etprof.summary", 1, &err),
             &err);
    check_ok(etp_bundle_write(b, "operators.csv", ops, strlen(ops), NULL, "core", NULL, 0, &err),
             &err);
    check_ok(etp_bundle_commit(b, &err), &err);
    etp_bundle_free(b);
    etp_bundle_doc *doc;
    check_ok(etp_bundle_open(dir, 1, &doc, &err), &err);
    uint32_t n;
    assert_null(etp_bundle_doc_metrics(doc, &n));
    assert_int_equal(n, 0);
    const etp_bundle_table *t = etp_bundle_doc_operators(doc);
    assert_int_equal(t->column_count, 5);
    assert_int_equal(t->row_count, 2);
    assert_string_equal(etp_bundle_table_cell(t, 0, 1)->text, "x, \"quoted\"");
    assert_int_equal(etp_bundle_table_cell(t, 0, 2)->type, ETP_CELL_NUMBER);
    assert_true(etp_bundle_table_cell(t, 0, 3)->number == 1.5);
    assert_int_equal(etp_bundle_table_cell(t, 0, 4)->type, ETP_CELL_BOOL);
    assert_true(etp_bundle_table_cell(t, 0, 4)->boolean);
    assert_int_equal(etp_bundle_table_cell(t, 1, 1)->type, ETP_CELL_NULL);
    assert_false(etp_bundle_table_cell(t, 1, 4)->boolean);
    assert_int_equal(etp_bundle_doc_run_metadata(doc)->input_count, 0);
    assert_null(etp_bundle_doc_run_metadata(doc)->tool_name);
    assert_string_equal(etp_bundle_doc_manifest(doc)->validity, "valid");
    etp_bundle_close(doc);
}

/* ---- refusals --------------------------------------------------------- */

/* A fresh small bundle (csv, --detailed) at @p tag. */
static char *fresh(const char *tag)
{
    char *etdump = real("et_add_x1.etdp"), *pte = real("et_add_x1.pte");
    char *dir = bundle_dir(tag);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' analyze --etdump '%s' --pte '%s' -o '%s' --detailed --quiet",
             tu_etprof(), etdump, pte, dir);
    sh(cmd);
    free(etdump);
    free(pte);
    return dir;
}

/* Opening @p dir fails (verified; also unverified when @p unverified_too)
 * with ETP_E_FORMAT and a message holding @p what; `etprof verify` exits 1. */
static void expect_refused(const char *dir, const char *what, int unverified_too)
{
    etp_error err;
    etp_error_clear(&err);
    etp_bundle_doc *doc = (etp_bundle_doc *)1;
    for (int verify = 1; verify >= !unverified_too; verify--) {
        etp_status s = etp_bundle_open(dir, verify, &doc, &err);
        if (s != ETP_E_FORMAT)
            fail_msg("%s: open(verify=%d) gave %s, not a format error", dir, verify,
                     etp_status_name(s));
        assert_null(doc);
        char buf[1200];
        etp_error_format(&err, buf, sizeof buf);
        if (!strstr(buf, what))
            fail_msg("%s: error '%s' does not say '%s'", dir, buf, what);
    }
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' verify '%s' 2>&1", tu_etprof(), dir);
    int status;
    char *out = tu_run(cmd, &status);
    if (status != 1)
        fail_msg("verify %s exited %d: %s", dir, status, out ? out : "");
    free(out);
}

static void replace_in_file(const char *path, const char *from, const char *to)
{
    size_t n;
    char *data = (char *)tu_read_file(path, &n);
    assert_non_null(data);
    char *text = realloc(data, n + 1);
    assert_non_null(text);
    text[n] = '\0';
    char *at = strstr(text, from);
    assert_non_null(at);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(text, 1, (size_t)(at - text), f);
    fputs(to, f);
    fputs(at + strlen(from), f);
    fclose(f);
    free(text);
}

static void test_tampered(void **state)
{
    (void)state;
    char cmd[4096];
    char *d;

    d = fresh("t_byte"); /* one byte of the table changed */
    snprintf(cmd, sizeof cmd, "printf 'Z' | dd of='%s/operators.csv' bs=1 seek=3 conv=notrunc "
                              "2>/dev/null", d);
    sh(cmd);
    expect_refused(d, "operators.csv: sha256 mismatch", 0);
    free(d);

    d = fresh("t_deleted");
    snprintf(cmd, sizeof cmd, "rm '%s/summary.json'", d);
    sh(cmd);
    expect_refused(d, "summary.json: missing", 0);
    free(d);

    d = fresh("t_symlink_file"); /* an artifact replaced by a symlink to its copy */
    snprintf(cmd, sizeof cmd, "cd '%s' && mv run_metadata.json ../t_symlink_file.meta && "
                              "ln -s ../t_symlink_file.meta run_metadata.json", d);
    sh(cmd);
    expect_refused(d, "run_metadata.json: is a symlink", 0);
    free(d);

    d = fresh("t_symlink_dir"); /* a directory moved out and linked back */
    snprintf(cmd, sizeof cmd, "cd '%s' && mv detailed ../t_symlink_dir.detailed && "
                              "ln -s ../t_symlink_dir.detailed detailed", d);
    sh(cmd);
    expect_refused(d, "is a symlink (not followed)", 0);
    free(d);

    d = fresh("t_truncated");
    snprintf(cmd, sizeof cmd, "truncate -s 100 '%s/result_manifest.json'", d);
    sh(cmd);
    expect_refused(d, "result_manifest.json: not valid JSON", 0);
    {
        etp_error err;
        etp_bundle_doc *doc;
        assert_int_equal(etp_bundle_open(d, 0, &doc, &err), ETP_E_FORMAT);
        assert_null(doc);
        assert_non_null(strstr(err.message, "not valid JSON"));
    }
    free(d);

    d = fresh("t_digest"); /* the manifest's digest of summary.json changed */
    char man[1024], sum[1024];
    snprintf(man, sizeof man, "%s/result_manifest.json", d);
    snprintf(sum, sizeof sum, "%s/summary.json", d);
    char *hex = sha_of(sum);
    char zeros[ETP_SHA256_HEX];
    memset(zeros, '0', ETP_SHA256_HEX - 1);
    zeros[ETP_SHA256_HEX - 1] = '\0';
    replace_in_file(man, hex, zeros);
    free(hex);
    expect_refused(d, "summary.json: sha256 mismatch", 0);
    free(d);

    d = fresh("t_escaping"); /* an artifact declared outside the bundle */
    snprintf(man, sizeof man, "%s/result_manifest.json", d);
    snprintf(cmd, sizeof cmd, "cp '%s/summary.json' '%s/../t_escaping.summary.json'", d, d);
    sh(cmd);
    replace_in_file(man, "\"path\": \"summary.json\"", "\"path\": \"../t_escaping.summary.json\"");
    expect_refused(d, "'../t_escaping.summary.json'", 0);
    free(d);

    d = fresh("t_unpublished"); /* no manifest: not published, even unverified */
    snprintf(cmd, sizeof cmd, "rm '%s/result_manifest.json'", d);
    sh(cmd);
    expect_refused(d, "the bundle is not published", 1);
    free(d);

    /* An undeclared file (a symlink pointing out) is what `etprof verify`
     * only warns about: the bundle still opens. */
    d = fresh("t_extra");
    snprintf(cmd, sizeof cmd, "ln -s /etc/passwd '%s/extra'", d);
    sh(cmd);
    etp_error err;
    etp_bundle_doc *doc;
    check_ok(etp_bundle_open(d, 1, &doc, &err), &err);
    etp_bundle_close(doc);
    free(d);
}

/* A bundle that verifies but whose summary.json is not what it claims:
 * reading it back fails, and so does `etprof verify`. */
static void test_unreadable_content(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/badsummary", g_tmp);
    etp_error err;
    etp_error_clear(&err);
    etp_bundle *b;
    check_ok(etp_bundle_begin(dir, &b, &err), &err);
    const char *summary = "{\"schema\":\"etprof.summary\",\"schema_version\":1,\"metrics\":5}";
    check_ok(etp_bundle_write(b, "summary.json", summary, strlen(summary), NULL, "core",
                              "etprof.summary", 1, &err),
             &err);
    check_ok(etp_bundle_commit(b, &err), &err);
    etp_bundle_free(b);
    etp_verify_report *rep;
    check_ok(etp_bundle_verify(dir, &rep, &err), &err);
    assert_int_equal(rep->problem_count, 0);
    etp_verify_report_free(rep);
    expect_refused(dir, "summary.json: \"metrics\" is not an array", 1);
}

int main(void)
{
    TU_REQUIRE_FIXTURES();
    g_tmp = tu_tmpdir();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_runs),
        cmocka_unit_test(test_demo),
        cmocka_unit_test(test_minimal_bundle),
        cmocka_unit_test(test_tampered),
        cmocka_unit_test(test_unreadable_content),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    tu_rmrf(g_tmp);
    free(g_tmp);
    return rc;
}
