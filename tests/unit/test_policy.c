/* test_policy.c - the decisions the CLI and the Python package take from the
 * library rather than each on its own: exit statuses and their meaning, the
 * units rule, the options a bundle and a diff record, the CI gate's decision
 * and its record, and the issue registry's scopes (the diff's warnings come
 * from it too). Every expected text is written out here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/diff/diff_internal.h"
#include "etprof/diff.h"
#include "etprof/diff_io.h"
#include "etprof/exit_status.h"
#include "etprof/issues.h"
#include "etprof/publish.h"
#include "etprof/units.h"

static void test_exit_statuses(void **state)
{
    (void)state;
    assert_int_equal(ETP_EXIT_OK, 0);
    assert_int_equal(ETP_EXIT_INPUT, 1);
    assert_int_equal(ETP_EXIT_USAGE, 2);
    assert_int_equal(ETP_EXIT_GATE, 3);
    assert_string_equal(etp_exit_status_meaning(ETP_EXIT_OK), "success");
    assert_string_equal(etp_exit_status_meaning(ETP_EXIT_INPUT), "bad or inconsistent input");
    assert_string_equal(etp_exit_status_meaning(ETP_EXIT_USAGE), "usage error");
    assert_string_equal(etp_exit_status_meaning(ETP_EXIT_GATE), "a CI gate failed");
    assert_null(etp_exit_status_meaning(4));
    assert_null(etp_exit_status_meaning(-1));
    assert_int_equal(etp_exit_status_of(ETP_OK), ETP_EXIT_OK);
    assert_int_equal(etp_exit_status_of(ETP_E_USAGE), ETP_EXIT_USAGE);
    for (etp_status s = ETP_E_IO; s <= ETP_E_INTERNAL; s++)
        if (s != ETP_E_USAGE)
            assert_int_equal(etp_exit_status_of(s), ETP_EXIT_INPUT);
}

static void test_units_rule(void **state)
{
    (void)state;
    static const char both[] = "cycles must be both --source-unit and --unit (or give --cpu-hz to "
                               "convert cycles to time)";
    static const char hz_only[] = "--cpu-hz only applies to --source-unit cycles";
    etp_error err;
    /* Every pair of units, with and without a clock rate. */
    for (int s = ETP_UNIT_NS; s <= ETP_UNIT_CYCLES; s++)
        for (int t = ETP_UNIT_NS; t <= ETP_UNIT_CYCLES; t++)
            for (int h = 0; h < 2; h++) {
                int sc = s == ETP_UNIT_CYCLES, tc = t == ETP_UNIT_CYCLES;
                const char *want = sc != tc && !(sc && h) ? both : h && !sc ? hz_only : NULL;
                etp_error_clear(&err);
                etp_status got = etp_units_check((etp_time_unit)s, (etp_time_unit)t, h ? 1e8 : 0, &err);
                assert_int_equal(got, want ? ETP_E_USAGE : ETP_OK);
                if (want)
                    assert_string_equal(err.message, want);
            }
    /* A clock rate that is not positive is no clock rate. */
    assert_int_equal(etp_units_check(ETP_UNIT_CYCLES, ETP_UNIT_MS, -5, &err), ETP_E_USAGE);
    assert_int_equal(etp_units_check(ETP_UNIT_NS, ETP_UNIT_MS, NAN, &err), ETP_OK);
}

static void test_analysis_options_json(void **state)
{
    (void)state;
    etp_analysis_options o;
    etp_analysis_options_init(&o);
    etp_publish_options po;
    memset(&po, 0, sizeof po);
    po.operators_csv = 1;
    po.model_explorer = 1;
    char *j = etp_analysis_options_json(&o, &po, 0);
    assert_string_equal(j, "{\"method\":null,\"source_unit\":\"ns\",\"source_unit_given\":false,"
                           "\"unit\":\"ms\",\"format\":\"csv\",\"detailed\":false,"
                           "\"model_explorer\":\"files\",\"skip_executions\":0,\"rank_by\":\"avg\"}");
    free(j);
    o.method = "forward";
    o.source_unit = ETP_UNIT_CYCLES;
    o.source_unit_given = 1;
    o.target_unit = ETP_UNIT_US;
    o.cpu_hz = 1.5e8;
    o.skip_executions = 3;
    o.rank_by = ETP_RANK_MAX;
    po.operators_csv = 0;
    po.detailed = 1;
    j = etp_analysis_options_json(&o, &po, 1);
    assert_string_equal(j, "{\"method\":\"forward\",\"source_unit\":\"cycles\",\"source_unit_given\":true,"
                           "\"unit\":\"us\",\"cpu_hz\":1.5e+08,\"format\":\"json\",\"detailed\":true,"
                           "\"model_explorer\":\"open\",\"skip_executions\":3,\"rank_by\":\"max\"}");
    free(j);
    po.model_explorer = 0;
    j = etp_analysis_options_json(&o, &po, 1);
    assert_non_null(strstr(j, "\"model_explorer\":\"none\""));
    free(j);
}

static etp_diff_side *side(void)
{
    etp_diff_identity id;
    memset(&id, 0, sizeof id);
    id.label = "side";
    id.origin = "bundle";
    id.program_sha256 = "aa";
    id.method = "forward";
    id.time_unit = "ms";
    id.tick_unit = "ns";
    id.status = "complete";
    id.validity = "valid";
    id.executions = 4;
    etp_diff_side *s;
    etp_error err;
    assert_int_equal(etp_diff_side_new(&id, &s, &err), ETP_OK);
    return s;
}

static void add(etp_diff_side *s, etp_diff_kind kind, const char *id, double v, const double *smp)
{
    etp_diff_entry e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.id = id;
    e.op_type = kind == ETP_DIFF_MODEL ? NULL : "aten::add.out";
    e.available = 1;
    e.additive = 1;
    e.n = 4;
    e.avg = e.p50 = e.min = e.max = v;
    e.basis = kind == ETP_DIFF_MODEL ? "per execution" : NULL;
    e.samples = smp;
    e.sample_count = smp ? 4 : 0;
    etp_error err;
    assert_int_equal(etp_diff_side_add(s, &e, &err), ETP_OK);
}

static void test_gate_decision_and_record(void **state)
{
    (void)state;
    const double one[4] = {1, 1, 1, 1}, slow[4] = {1.5, 1.5, 1.5, 1.5};
    etp_diff_side *b = side(), *n = side();
    add(b, ETP_DIFF_MODEL, "method_execute", 1.0, one);
    add(n, ETP_DIFF_MODEL, "method_execute", 1.5, slow);
    add(b, ETP_DIFF_INSTRUCTION, "forward_0_0", 1.0, NULL);
    add(n, ETP_DIFF_INSTRUCTION, "forward_0_0", 2.0, NULL);
    etp_diff *d;
    etp_error err;
    assert_int_equal(etp_diff_compute(b, n, NULL, &d, &err), ETP_OK);

    /* A model figure, 50% slower with a constant interval: fails at 10%. */
    etp_diff_gate_outcome g;
    assert_int_equal(etp_diff_gate_decide(d, "method_execute", 10, 0, &g, &err), ETP_OK);
    assert_ptr_equal(g.row, etp_diff_find(d, ETP_DIFF_MODEL, "method_execute"));
    assert_true(g.failed);
    assert_string_equal(g.reason, "slower and significant");
    assert_int_equal(g.exit_status, ETP_EXIT_GATE);
    /* Numbers as the JSON writer prints every double: the shortest digits
     * that read back, laid out as %g would (10 -> 1e+01). */
    char *j = etp_diff_gate_json(&g);
    assert_string_equal(j, "{\n  \"metric\": \"method_execute\",\n  \"kind\": \"model\",\n"
                           "  \"threshold_pct\": 1e+01,\n  \"no_significance\": false,\n"
                           "  \"ratio\": 1.5,\n  \"has_interval\": true,\n  \"failed\": true,\n"
                           "  \"reason\": \"slower and significant\",\n  \"exit_status\": 3\n}\n");
    free(j);
    assert_int_equal(etp_diff_gate_decide(d, "method_execute", 60, 0, &g, &err), ETP_OK);
    assert_false(g.failed);
    assert_int_equal(g.exit_status, ETP_EXIT_OK);

    /* An entity row by key, without samples: gated on its ratio only when asked. */
    assert_int_equal(etp_diff_gate_decide(d, "forward_0_0", 0, 0, &g, &err), ETP_OK);
    assert_ptr_equal(g.row, etp_diff_find(d, ETP_DIFF_INSTRUCTION, "forward_0_0"));
    assert_false(g.failed);
    assert_string_equal(g.reason, "slower, but no interval (samples absent)");
    assert_int_equal(etp_diff_gate_decide(d, "forward_0_0", 0, 1, &g, &err), ETP_OK);
    assert_true(g.failed);
    j = etp_diff_gate_json(&g);
    assert_non_null(strstr(j, "\"kind\": \"instruction\""));
    assert_non_null(strstr(j, "\"has_interval\": false"));
    free(j);

    /* A row the comparison lacks, and a threshold that is not one. */
    assert_int_equal(etp_diff_gate_decide(d, "no_such_row", 0, 0, &g, &err), ETP_E_USAGE);
    assert_string_equal(err.message, "--metric no_such_row: no such row in this comparison (model "
                                     "figures: method_execute, native_kernels_total, "
                                     "delegate_time:BACKEND, ...)");
    assert_null(g.row);
    assert_int_equal(etp_diff_gate_decide(d, "method_execute", -1, 0, &g, &err), ETP_E_USAGE);
    assert_int_equal(etp_diff_gate_decide(d, "method_execute", NAN, 0, &g, &err), ETP_E_USAGE);

    /* The options recorded: without a gate and the default analysis options,
     * then with both. */
    etp_diff_options o;
    etp_diff_options_init(&o);
    j = etp_diff_options_json(&o, ETP_DIFF_RANK_ABS, 15, NULL, NULL);
    assert_string_equal(j, "{\"statistic\":\"avg\",\"confidence\":0.95,\"resamples\":2000,"
                           "\"seed\":7310591731775596902,\"any_method\":false,\"interval_rows\":200,"
                           "\"rank_by\":\"abs\",\"top\":15,\"unit\":\"ms\",\"method\":null}");
    free(j);
    etp_analysis_options ao;
    etp_analysis_options_init(&ao);
    ao.target_unit = ETP_UNIT_US;
    ao.method = "forward";
    o.statistic = ETP_DIFF_STAT_P50;
    assert_int_equal(etp_diff_gate_decide(d, "method_execute", 2.5, 1, &g, &err), ETP_OK);
    j = etp_diff_options_json(&o, ETP_DIFF_RANK_NEW, 0, &g, &ao);
    assert_string_equal(j, "{\"statistic\":\"p50\",\"confidence\":0.95,\"resamples\":2000,"
                           "\"seed\":7310591731775596902,\"any_method\":false,\"interval_rows\":200,"
                           "\"rank_by\":\"new\",\"top\":0,\"fail_if_slower_pct\":2.5,"
                           "\"metric\":\"method_execute\",\"no_significance\":true,\"unit\":\"us\","
                           "\"method\":\"forward\"}");
    free(j);
    etp_diff_rank r;
    for (int k = ETP_DIFF_RANK_ABS; k <= ETP_DIFF_RANK_NEW; k++) {
        assert_int_equal(etp_diff_rank_parse(etp_diff_rank_name((etp_diff_rank)k), &r), 0);
        assert_int_equal(r, k);
    }
    etp_diff_free(d);
    etp_diff_side_free(b);
    etp_diff_side_free(n);
}

static void test_registry_scopes(void **state)
{
    (void)state;
    size_t n;
    const etp_issue_code *c = etp_issue_registry(&n);
    size_t diff_codes = 0;
    for (size_t i = 0; i < n; i++) {
        if (i)
            assert_true(strcmp(c[i - 1].code, c[i].code) < 0); /* sorted, unique */
        assert_true(c[i].scopes != 0);
        assert_true((c[i].scopes & ~(unsigned)(ETP_ISSUE_SCOPE_ANALYSIS | ETP_ISSUE_SCOPE_DIFF)) == 0);
        assert_ptr_equal(etp_issue_lookup(c[i].code), &c[i]);
        diff_codes += (c[i].scopes & ETP_ISSUE_SCOPE_DIFF) != 0;
    }
    assert_int_equal(diff_codes, 7);
    /* A diff-only code is no analysis issue; a shared one is both. */
    assert_null(etp_issue_lookup_scope("units.converted", ETP_ISSUE_SCOPE_ANALYSIS));
    assert_non_null(etp_issue_lookup_scope("units.converted", ETP_ISSUE_SCOPE_DIFF));
    assert_non_null(etp_issue_lookup_scope("units.assumed", ETP_ISSUE_SCOPE_ANALYSIS));
    assert_non_null(etp_issue_lookup_scope("units.assumed", ETP_ISSUE_SCOPE_DIFF));
    assert_null(etp_issue_lookup_scope("attribution.shared_timing", ETP_ISSUE_SCOPE_DIFF));
    assert_null(etp_issue_lookup(NULL));
    etp_issue_list l = {0};
    assert_int_equal(etp_issue_add(&l, "units.converted", NULL, "x"), ETP_E_USAGE);
    assert_int_equal(etp_issue_add(&l, "no.such_code", NULL, "x"), ETP_E_USAGE);
    assert_int_equal(l.count, 0);
    assert_int_equal(etp_issue_add(&l, "units.assumed", NULL, "x"), ETP_OK);
    assert_int_equal(etp_issue_validity(&l), ETP_DEGRADED);
    etp_issue_list_free(&l);
}

/* The diff's warnings carry their registry entry: code, severity, meaning. */
static void test_diff_warnings_from_registry(void **state)
{
    (void)state;
    etp_diff_side *b = side(), *n;
    etp_diff_identity id;
    memset(&id, 0, sizeof id);
    id.label = "new";
    id.origin = "bundle";
    id.program_sha256 = "aa";
    id.method = "other";
    id.time_unit = "us";
    id.tick_unit = "cycles";
    id.cpu_hz = 1e8;
    id.status = "complete";
    id.validity = "degraded";
    id.executions = 4;
    etp_error err;
    assert_int_equal(etp_diff_side_new(&id, &n, &err), ETP_OK);
    add(b, ETP_DIFF_MODEL, "method_execute", 1.0, NULL);
    add(n, ETP_DIFF_MODEL, "method_execute", 1000.0, NULL);
    etp_diff_options o;
    etp_diff_options_init(&o);
    o.compare_methods = 1;
    etp_diff *d;
    assert_int_equal(etp_diff_compute(b, n, &o, &d, &err), ETP_OK);
    static const char *const want[] = {"identity.method_differs", "units.converted", "units.ticks_differ",
                                       "result.degraded"};
    assert_int_equal(d->warning_count, 4);
    for (uint32_t i = 0; i < d->warning_count; i++) {
        const etp_diff_warning *w = &d->warnings[i];
        assert_string_equal(w->code, want[i]);
        assert_ptr_equal(w->issue, etp_issue_lookup(want[i]));
        assert_ptr_equal(w->code, w->issue->code);
        assert_true(w->issue->scopes & ETP_ISSUE_SCOPE_DIFF);
    }
    etp_diff_free(d);
    etp_diff_side_free(b);
    etp_diff_side_free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_statuses),          cmocka_unit_test(test_units_rule),
        cmocka_unit_test(test_analysis_options_json),  cmocka_unit_test(test_gate_decision_and_record),
        cmocka_unit_test(test_registry_scopes),        cmocka_unit_test(test_diff_warnings_from_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
