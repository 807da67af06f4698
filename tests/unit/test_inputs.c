/* test_inputs.c - etp_inputs_open(): what it opens and owns, and that a
 * failure is reported in input order (ETDump, program, ETRecord, runner
 * log) whichever thread finished first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/inputs.h"
#include "testutil.h"

static char *fx(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "real-runs/%s", name);
    const char *p = tu_fixture(rel);
    assert_non_null(p);
    return strdup(p);
}

#define KWS "cm_et_arduino_kws_x10"

static void test_opens_and_owns(void **state)
{
    (void)state;
    char *d = fx(KWS ".etdp"), *p = fx(KWS ".pte"), *r = fx(KWS ".etrecord"), *l = fx(KWS ".log");
    etp_analysis_options opt;
    etp_analysis_options_init(&opt);
    for (int prepare = 0; prepare < 2; prepare++) {
        etp_inputs_spec spec = {d, p, r, l, prepare ? &opt : NULL, !prepare, NULL};
        etp_inputs *in;
        etp_error err;
        etp_error_clear(&err);
        assert_int_equal(etp_inputs_open(&spec, &in, &err), ETP_OK);
        assert_non_null(etp_inputs_etdump(in));
        assert_non_null(etp_inputs_program(in));
        assert_non_null(etp_inputs_etrecord(in));
        assert_non_null(etp_inputs_runner_log(in));
        assert_int_equal(etp_etdump_verified(etp_inputs_etdump(in)), 1);
        if (prepare) {
            /* Taken once; the second call has nothing. Not taken: freed
             * with the inputs (the leak check runs under the sanitizers). */
            etp_inspect *ins = etp_inputs_take_prepared(in);
            assert_non_null(ins);
            assert_null(etp_inputs_take_prepared(in));
            etp_inspect_free(ins);
        } else {
            assert_null(etp_inputs_take_prepared(in));
        }
        etp_inputs_free(in);
    }
    etp_inputs_spec only = {d, NULL, NULL, NULL, &opt, 0, NULL};
    etp_inputs *in;
    etp_error err;
    assert_int_equal(etp_inputs_open(&only, &in, &err), ETP_OK);
    assert_null(etp_inputs_program(in));
    assert_null(etp_inputs_etrecord(in));
    assert_null(etp_inputs_runner_log(in));
    etp_inputs_free(in); /* the prepared grouping was never taken */
    etp_inputs_free(NULL);
    free(d);
    free(p);
    free(r);
    free(l);
}

/* Open @p spec, expect a failure naming @p file. */
static void expect_fail(const etp_inputs_spec *spec, const char *file)
{
    etp_inputs *in = (etp_inputs *)1;
    etp_error err;
    etp_error_clear(&err);
    etp_status s = etp_inputs_open(spec, &in, &err);
    assert_int_not_equal(s, ETP_OK);
    assert_null(in);
    if (strcmp(err.file, file))
        fail_msg("error names '%s' (%s), expected '%s'", err.file, err.message, file);
}

static void test_error_order(void **state)
{
    (void)state;
    char *d = fx(KWS ".etdp"), *p = fx(KWS ".pte"), *r = fx(KWS ".etrecord"), *l = fx(KWS ".log");
    const char *nd = "/nonexistent/run.etdp", *np = "/nonexistent/model.pte",
               *nr = "/nonexistent/model.etrecord", *nl = "/nonexistent/run.log";
    etp_analysis_options opt;
    etp_analysis_options_init(&opt);
    for (int prepare = 0; prepare < 2; prepare++) {
        const etp_analysis_options *o = prepare ? &opt : NULL;
        etp_inputs_spec all_bad = {nd, np, nr, nl, o, 0, NULL};
        expect_fail(&all_bad, nd);
        etp_inputs_spec prog_bad = {d, np, nr, nl, o, 0, NULL};
        expect_fail(&prog_bad, np);
        etp_inputs_spec rec_bad = {d, p, nr, nl, o, 0, NULL};
        expect_fail(&rec_bad, nr);
        etp_inputs_spec log_bad = {d, p, r, nl, o, 0, NULL};
        expect_fail(&log_bad, nl);
        etp_inputs_spec log_only_bad = {d, NULL, r, nl, o, 1, NULL};
        expect_fail(&log_only_bad, nl);
    }
    etp_inputs *in = (etp_inputs *)1;
    etp_error err;
    etp_inputs_spec none = {NULL, p, NULL, NULL, NULL, 0, NULL};
    assert_int_equal(etp_inputs_open(&none, &in, &err), ETP_E_USAGE);
    assert_null(in);
    free(d);
    free(p);
    free(r);
    free(l);
}

int main(void)
{
    TU_REQUIRE_FIXTURES();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opens_and_owns),
        cmocka_unit_test(test_error_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
