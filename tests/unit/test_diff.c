/* test_diff.c - the diff's core on sides built by hand, with every expected
 * number derived here: delta, ratio, share, operator-type sums (means only
 * when additive; medians from per-execution sums), refusals and their
 * reasons, unit conversion, the gate's decisions and what the gate and the
 * options record, the warnings' registry entries, the median selection
 * against a sort, constant-sample intervals, and the CSV reader. */
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
#include "formats/bundle/csv_read.h"
#include "testutil.h"

/* A complete, valid run of 4 executions ticking in ns. */
static etp_diff_identity identity(const char *sha, const char *method, const char *unit)
{
    etp_diff_identity id = tu_diff_identity(4);
    id.program_sha256 = sha;
    id.method = method;
    assert_int_equal(etp_unit_parse(unit, &id.time_unit), 0);
    return id;
}

static etp_diff_side *side_of(const etp_diff_identity *id)
{
    etp_diff_side *s;
    etp_error err;
    assert_int_equal(etp_diff_side_new(id, &s, &err), ETP_OK);
    return s;
}

static etp_diff_side *side(const char *sha, const char *method, const char *unit)
{
    etp_diff_identity id = identity(sha, method, unit);
    return side_of(&id);
}

static void add(etp_diff_side *s, etp_diff_kind kind, const char *id, const char *op,
                const char *backend, double avg, double p50, const double *smp, uint32_t n,
                int shared)
{
    etp_diff_entry e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.id = id;
    e.op_type = op;
    e.backend = backend;
    e.available = 1;
    e.additive = !shared;
    e.shared = shared;
    e.n = 4;
    e.avg = avg;
    e.p50 = p50;
    e.min = p50 / 2;
    e.max = p50 * 2;
    e.basis = kind == ETP_DIFF_MODEL ? "per execution" : NULL;
    e.samples = smp;
    e.sample_count = n;
    etp_error err;
    assert_int_equal(etp_diff_side_add(s, &e, &err), ETP_OK);
}

static void test_same_program_rows(void **state)
{
    (void)state;
    etp_diff_side *b = side("aa", "forward", "ms"), *n = side("aa", "forward", "ms");
    add(b, ETP_DIFF_MODEL, "method_execute", NULL, NULL, 10.0, 9.0, NULL, 0, 0);
    add(n, ETP_DIFF_MODEL, "method_execute", NULL, NULL, 12.0, 11.0, NULL, 0, 0);
    add(b, ETP_DIFF_INSTRUCTION, "forward_0_0", "aten::add.out", NULL, 4.0, 4.0, NULL, 0, 0);
    add(n, ETP_DIFF_INSTRUCTION, "forward_0_0", "aten::add.out", NULL, 6.0, 5.0, NULL, 0, 0);
    add(b, ETP_DIFF_INSTRUCTION, "forward_0_1", "aten::mul.out", NULL, 2.0, 2.0, NULL, 0, 0);
    etp_diff *d;
    etp_error err;
    assert_int_equal(etp_diff_compute(b, n, NULL, &d, &err), ETP_OK);
    assert_int_equal(d->level, ETP_DIFF_LEVEL_INSTRUCTION);
    const etp_diff_row *ex = etp_diff_find(d, ETP_DIFF_MODEL, "method_execute");
    assert_non_null(ex);
    assert_true(ex->has_ratio);
    assert_true(ex->ratio == 12.0 / 10.0);
    assert_true(ex->delta == 2.0);
    assert_true(ex->speedup == 10.0 / 12.0);
    assert_false(ex->has_ci); /* no samples */
    const etp_diff_row *i0 = etp_diff_find(d, ETP_DIFF_INSTRUCTION, "forward_0_0");
    assert_non_null(i0);
    assert_true(i0->base.share == 4.0 / 10.0 && i0->new_.share == 6.0 / 12.0);
    const etp_diff_row *i1 = etp_diff_find(d, ETP_DIFF_INSTRUCTION, "forward_0_1");
    assert_non_null(i1);
    assert_false(i1->matched);
    assert_false(i1->has_delta);
    assert_string_equal(i1->note, "only in base");
    etp_diff_free(d);
    /* The median instead of the mean. */
    etp_diff_options o;
    etp_diff_options_init(&o);
    o.statistic = ETP_DIFF_STAT_P50;
    assert_int_equal(etp_diff_compute(b, n, &o, &d, &err), ETP_OK);
    assert_true(etp_diff_find(d, ETP_DIFF_MODEL, "method_execute")->ratio == 11.0 / 9.0);
    etp_diff_free(d);
    etp_diff_side_free(b);
    etp_diff_side_free(n);
}

static void test_op_type_groups(void **state)
{
    (void)state;
    /* Different programs: instructions grouped by type. base: two adds
     * (samples on every execution) and a shared conv; new: one add. */
    etp_diff_side *b = side("aa", "forward", "ms"), *n = side("bb", "forward", "ms");
    const double s1[4] = {1, 2, 3, 4}, s2[4] = {10, 20, 30, 40}, s3[4] = {5, 5, 5, 9};
    add(b, ETP_DIFF_INSTRUCTION, "forward_0_0", "aten::add.out", NULL, 2.5, 2.5, s1, 4, 0);
    add(b, ETP_DIFF_INSTRUCTION, "forward_0_1", "aten::add.out", NULL, 25.0, 25.0, s2, 4, 0);
    add(b, ETP_DIFF_INSTRUCTION, "forward_0_2", "aten::conv.out", NULL, 3.0, 3.0, NULL, 0, 1);
    add(n, ETP_DIFF_INSTRUCTION, "forward_0_0", "aten::add.out", NULL, 6.0, 5.0, s3, 4, 0);
    add(n, ETP_DIFF_INSTRUCTION, "forward_0_1", "XnnpackBackend", "XnnpackBackend", 1.0, 1.0, NULL, 0, 0);
    etp_diff *d;
    etp_error err;
    etp_diff_options o;
    etp_diff_options_init(&o);
    assert_int_equal(etp_diff_compute(b, n, &o, &d, &err), ETP_OK);
    assert_int_equal(d->level, ETP_DIFF_LEVEL_OP_TYPE);
    const etp_diff_row *add_row = etp_diff_find(d, ETP_DIFF_OP_TYPE, "aten::add.out");
    assert_non_null(add_row);
    assert_true(add_row->base.value == 27.5);
    assert_int_equal(add_row->base.members, 2);
    assert_true(add_row->new_.value == 6.0);
    /* Medians come from the per-execution sums {11, 22, 33, 44}: 27.5. */
    assert_true(add_row->base.has_p50 && add_row->base.p50 == 27.5);
    assert_true(add_row->base.min == 11 && add_row->base.max == 44);
    const etp_diff_row *conv = etp_diff_find(d, ETP_DIFF_OP_TYPE, "aten::conv.out");
    assert_non_null(conv);
    assert_true(conv->base.shared);
    assert_false(conv->base.available); /* a shared member's time is never summed */
    assert_non_null(etp_diff_find(d, ETP_DIFF_OP_TYPE, "XnnpackBackend"));
    assert_null(etp_diff_find(d, ETP_DIFF_INSTRUCTION, "forward_0_0"));
    etp_diff_free(d);
    /* Medians of groups whose members lack samples are unavailable. */
    o.statistic = ETP_DIFF_STAT_P50;
    assert_int_equal(etp_diff_compute(n, b, &o, &d, &err), ETP_OK);
    const etp_diff_row *x = etp_diff_find(d, ETP_DIFF_OP_TYPE, "XnnpackBackend");
    assert_non_null(x);
    assert_false(x->base.available);
    etp_diff_free(d);
    etp_diff_side_free(b);
    etp_diff_side_free(n);
}

static void test_refusals_and_units(void **state)
{
    (void)state;
    etp_diff *d = NULL;
    etp_error err;
    etp_diff_side *a = side("aa", "forward", "ms"), *m = side("aa", "other", "ms");
    assert_int_equal(etp_diff_compute(a, m, NULL, &d, &err), ETP_E_MISMATCH);
    assert_non_null(strstr(err.message, "different methods"));
    etp_diff_side *c = side("aa", "forward", "cycles");
    assert_int_equal(etp_diff_compute(a, c, NULL, &d, &err), ETP_E_MISMATCH);
    assert_non_null(strstr(err.message, "--cpu-hz"));
    /* us against ms: converted into the base unit. */
    etp_diff_side *u = side("aa", "forward", "us");
    add(a, ETP_DIFF_MODEL, "method_execute", NULL, NULL, 2.0, 2.0, NULL, 0, 0);
    add(u, ETP_DIFF_MODEL, "method_execute", NULL, NULL, 3000.0, 3000.0, NULL, 0, 0);
    assert_int_equal(etp_diff_compute(a, u, NULL, &d, &err), ETP_OK);
    const etp_diff_row *r = etp_diff_find(d, ETP_DIFF_MODEL, "method_execute");
    assert_true(r->new_.value == 3.0 && r->ratio == 1.5);
    assert_string_equal(d->warnings[0].code, "units.converted");
    etp_diff_free(d);
    /* A duplicate id is refused when the side is built. */
    etp_diff_entry e;
    memset(&e, 0, sizeof e);
    e.kind = ETP_DIFF_MODEL;
    e.id = "method_execute";
    assert_int_equal(etp_diff_side_add(a, &e, &err), ETP_E_USAGE);
    etp_diff_side_free(a);
    etp_diff_side_free(m);
    etp_diff_side_free(c);
    etp_diff_side_free(u);
}

/* The decision the CLI and Python take (etp_diff_gate_decide) and what it
 * and the options record, on test_intervals_and_gate's diff: method_execute
 * 1.5x with a constant interval, forward_0_1 2x without samples. */
static void check_gate_decision_and_record(const etp_diff *d)
{
    etp_error err;
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
    assert_int_equal(etp_diff_gate_decide(d, "forward_0_1", 0, 0, &g, &err), ETP_OK);
    assert_ptr_equal(g.row, etp_diff_find(d, ETP_DIFF_INSTRUCTION, "forward_0_1"));
    assert_false(g.failed);
    assert_string_equal(g.reason, "slower, but no interval (samples absent)");
    assert_int_equal(etp_diff_gate_decide(d, "forward_0_1", 0, 1, &g, &err), ETP_OK);
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
}

static void test_intervals_and_gate(void **state)
{
    (void)state;
    etp_diff_side *b = side("aa", "forward", "ms"), *n = side("aa", "forward", "ms");
    const double one[4] = {1, 1, 1, 1}, half[4] = {1.5, 1.5, 1.5, 1.5};
    add(b, ETP_DIFF_MODEL, "method_execute", NULL, NULL, 1.0, 1.0, one, 4, 0);
    add(n, ETP_DIFF_MODEL, "method_execute", NULL, NULL, 1.5, 1.5, half, 4, 0);
    add(b, ETP_DIFF_INSTRUCTION, "forward_0_0", "x", NULL, 1.0, 1.0, one, 4, 0);
    add(n, ETP_DIFF_INSTRUCTION, "forward_0_0", "x", NULL, 1.0, 1.0, one, 4, 0);
    add(b, ETP_DIFF_INSTRUCTION, "forward_0_1", "x", NULL, 1.0, 1.0, NULL, 0, 0);
    add(n, ETP_DIFF_INSTRUCTION, "forward_0_1", "x", NULL, 2.0, 2.0, NULL, 0, 0);
    etp_diff *d;
    etp_error err;
    assert_int_equal(etp_diff_compute(b, n, NULL, &d, &err), ETP_OK);
    const etp_diff_row *ex = etp_diff_find(d, ETP_DIFF_MODEL, "method_execute");
    /* Constant samples: every resample gives the same ratio. */
    assert_true(ex->has_ci && ex->ci_low == 1.5 && ex->ci_high == 1.5 && ex->significant);
    const etp_diff_row *i0 = etp_diff_find(d, ETP_DIFF_INSTRUCTION, "forward_0_0");
    assert_true(i0->has_ci && i0->ci_low == 1.0 && !i0->significant);
    const char *why;
    assert_int_equal(etp_diff_gate(ex, 10, 0, &why), 1);
    assert_string_equal(why, "slower and significant");
    assert_int_equal(etp_diff_gate(ex, 60, 0, &why), 0);
    assert_string_equal(why, "within the threshold");
    assert_int_equal(etp_diff_gate(i0, 0, 0, &why), 0);
    /* No interval: only with --no-significance. */
    etp_diff_row r = *ex;
    r.has_ci = 0;
    r.significant = 0;
    assert_int_equal(etp_diff_gate(&r, 10, 0, &why), 0);
    assert_int_equal(etp_diff_gate(&r, 10, 1, &why), 1);
    check_gate_decision_and_record(d);
    etp_diff_free(d);
    /* interval_rows 0 with resamples 0: no interval at all. */
    etp_diff_options o;
    etp_diff_options_init(&o);
    o.resamples = 0;
    assert_int_equal(etp_diff_compute(b, n, &o, &d, &err), ETP_OK);
    assert_false(etp_diff_find(d, ETP_DIFF_MODEL, "method_execute")->has_ci);
    etp_diff_free(d);
    etp_diff_side_free(b);
    etp_diff_side_free(n);
}

/* The diff's warnings carry their registry entry: code, severity, meaning. */
static void test_diff_warnings_from_registry(void **state)
{
    (void)state;
    etp_diff_side *b = side("aa", "forward", "ms");
    etp_diff_identity id = identity("aa", "other", "us");
    id.tick_unit = ETP_UNIT_CYCLES;
    id.cpu_hz = 1e8;
    id.validity = "degraded";
    etp_diff_side *n = side_of(&id);
    etp_error err;
    add(b, ETP_DIFF_MODEL, "method_execute", NULL, NULL, 1.0, 1.0, NULL, 0, 0);
    add(n, ETP_DIFF_MODEL, "method_execute", NULL, NULL, 1000.0, 1000.0, NULL, 0, 0);
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

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void test_median_selection(void **state)
{
    (void)state;
    uint64_t rng = 88172645463325252ull;
    double v[64], s[64];
    for (int round = 0; round < 20000; round++) {
        uint32_t n = 1 + (uint32_t)(tu_rand(&rng) % 40);
        int dups = round % 3 == 0;
        for (uint32_t i = 0; i < n; i++)
            v[i] = (double)(tu_rand(&rng) % (dups ? 4 : 1000));
        memcpy(s, v, n * sizeof *v);
        qsort(s, n, sizeof *s, cmp_d);
        double want = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
        double got = etp_diff_stat_of(v, n, ETP_DIFF_STAT_P50);
        assert_true(got == want);
    }
    double m[3] = {1, 2, 4};
    assert_true(etp_diff_stat_of(m, 3, ETP_DIFF_STAT_AVG) == 7.0 / 3.0);
}

static void test_csv_reader(void **state)
{
    (void)state;
    static const char text[] = "a,\"b,\"\"c\"\"\",\r\n,x\nlast";
    etp_csvr r;
    etp_csvr_init(&r, text, sizeof text - 1);
    assert_int_equal(etp_csvr_next(&r), 1);
    assert_int_equal(r.nfields, 3);
    assert_string_equal(r.fields[0], "a");
    assert_string_equal(r.fields[1], "b,\"c\"");
    assert_string_equal(r.fields[2], "");
    assert_int_equal(etp_csvr_next(&r), 1);
    assert_int_equal(r.nfields, 2);
    assert_string_equal(r.fields[1], "x");
    assert_int_equal(etp_csvr_next(&r), 1);
    assert_string_equal(r.fields[0], "last");
    assert_int_equal(etp_csvr_next(&r), 0);
    etp_csvr_free(&r);
    static const char *const bad[] = {"\"open", "a\"b", "\"x\"y", "a\rb"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        etp_csvr_init(&r, bad[i], strlen(bad[i]));
        assert_int_equal(etp_csvr_next(&r), -1);
        etp_csvr_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_program_rows),  cmocka_unit_test(test_op_type_groups),
        cmocka_unit_test(test_refusals_and_units), cmocka_unit_test(test_intervals_and_gate),
        cmocka_unit_test(test_diff_warnings_from_registry),
        cmocka_unit_test(test_median_selection),   cmocka_unit_test(test_csv_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
