/* test_policy.c - the decisions the CLI and the Python package take from the
 * library rather than each on its own: exit statuses and their meaning, the
 * units rule, the options a bundle records, and the issue registry's scopes
 * (the diff's gate, options and warnings: test_diff.c). Every expected text
 * is written out here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

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
                etp_status got = etp_units_check((etp_unit)s, (etp_unit)t, h ? 1e8 : 0, &err);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_statuses),         cmocka_unit_test(test_units_rule),
        cmocka_unit_test(test_analysis_options_json), cmocka_unit_test(test_registry_scopes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
