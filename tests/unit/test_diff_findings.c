/* test_diff_findings.c - the findings of two sides compared by code, on
 * sides built by hand: appeared, disappeared and kept codes in that order
 * (by code within each), a code repeated on one side counted once with its
 * occurrences, "fired" winning over "withheld", the entities either side
 * names with their sides, refused finding entries, and no comparison when
 * a side's findings are unknown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/diff.h"
#include "testutil.h"

static etp_diff_side *side(int has_findings)
{
    etp_diff_identity id = tu_diff_identity(4);
    id.has_findings = has_findings;
    etp_diff_side *s;
    etp_error err;
    assert_int_equal(etp_diff_side_new(&id, &s, &err), ETP_OK);
    etp_diff_entry e;
    memset(&e, 0, sizeof e);
    e.kind = ETP_DIFF_MODEL;
    e.id = "method_execute";
    e.available = 1;
    e.additive = 1;
    e.n = 4;
    e.avg = e.p50 = e.min = e.max = 10;
    assert_int_equal(etp_diff_side_add(s, &e, &err), ETP_OK);
    return s;
}

static void finding(etp_diff_side *s, const char *code, const char *status, const char *msg,
                    const char *const *ids, uint32_t n)
{
    etp_diff_side_finding f = {code, "warning", status, msg, n, ids};
    etp_error err;
    assert_int_equal(etp_diff_side_add_finding(s, &f, &err), ETP_OK);
}

static etp_diff *compare(const etp_diff_side *b, const etp_diff_side *n)
{
    etp_diff_options o;
    etp_diff_options_init(&o);
    o.resamples = 0;
    etp_diff *d = NULL;
    etp_error err;
    assert_int_equal(etp_diff_compute(b, n, &o, &d, &err), ETP_OK);
    return d;
}

static void test_appeared_disappeared_kept(void **state)
{
    (void)state;
    etp_diff_side *b = side(1), *n = side(1);
    const char *frag_b[] = {"forward_0_3", "forward_0_9"}, *frag_n[] = {"forward_0_9", "forward_0_12"};
    const char *hot_b[] = {"conv_1"}, *hot_b2[] = {"conv_2"}, *none_n[] = {"forward_0_1"};
    finding(b, "hotspot.op_type", "fired", "conv", hot_b, 1);
    finding(b, "hotspot.op_type", "fired", "add", hot_b2, 1);
    finding(b, "delegation.fragmented", "withheld", "base says", frag_b, 2);
    finding(n, "delegation.fragmented", "withheld", "new says", frag_n, 2);
    finding(n, "delegation.fragmented", "fired", "again", NULL, 0);
    finding(n, "delegation.none", "fired", "none", none_n, 1);
    finding(n, "a.first", "withheld", NULL, NULL, 0);
    etp_diff *d = compare(b, n);
    assert_true(d->findings_compared);
    assert_int_equal(d->finding_count, 4);
    const etp_diff_finding *f = d->findings;
    /* appeared by code, then disappeared, then kept */
    assert_string_equal(f[0].code, "a.first");
    assert_int_equal(f[0].change, ETP_DIFF_FINDING_APPEARED);
    assert_null(f[0].base_status);
    assert_string_equal(f[0].new_status, "withheld");
    assert_null(f[0].new_message);
    assert_string_equal(f[1].code, "delegation.none");
    assert_int_equal(f[1].change, ETP_DIFF_FINDING_APPEARED);
    assert_int_equal(f[1].entity_count, 1);
    assert_int_equal(f[1].entity_in[0], ETP_DIFF_IN_NEW);
    assert_string_equal(f[2].code, "hotspot.op_type");
    assert_int_equal(f[2].change, ETP_DIFF_FINDING_DISAPPEARED);
    assert_int_equal(f[2].base_count, 2);
    assert_int_equal(f[2].new_count, 0);
    assert_string_equal(f[2].base_message, "conv");
    assert_int_equal(f[2].entity_count, 2);
    assert_string_equal(f[2].entity_ids[1], "conv_2");
    assert_int_equal(f[2].entity_in[1], ETP_DIFF_IN_BASE);
    assert_string_equal(f[3].code, "delegation.fragmented");
    assert_int_equal(f[3].change, ETP_DIFF_FINDING_KEPT);
    assert_string_equal(f[3].base_status, "withheld");
    assert_string_equal(f[3].new_status, "fired"); /* one of the new side's fired */
    assert_string_equal(f[3].new_message, "new says");
    assert_int_equal(f[3].new_count, 2);
    assert_int_equal(f[3].entity_count, 3);
    assert_string_equal(f[3].entity_ids[0], "forward_0_3");
    assert_int_equal(f[3].entity_in[0], ETP_DIFF_IN_BASE);
    assert_string_equal(f[3].entity_ids[1], "forward_0_9");
    assert_int_equal(f[3].entity_in[1], ETP_DIFF_IN_BASE | ETP_DIFF_IN_NEW);
    assert_string_equal(f[3].entity_ids[2], "forward_0_12");
    assert_int_equal(f[3].entity_in[2], ETP_DIFF_IN_NEW);
    assert_string_equal(etp_diff_finding_change_name(f[3].change), "kept");
    etp_diff_free(d);
    etp_diff_side_free(b);
    etp_diff_side_free(n);
}

static void test_unknown_side_is_not_compared(void **state)
{
    (void)state;
    etp_diff_side *b = side(0), *n = side(1);
    finding(n, "delegation.none", "fired", "none", NULL, 0);
    etp_diff *d = compare(b, n);
    assert_false(d->findings_compared);
    assert_int_equal(d->finding_count, 0);
    etp_diff_free(d);
    d = compare(n, n); /* known on both: even no finding on either is a comparison */
    assert_true(d->findings_compared);
    assert_int_equal(d->finding_count, 1);
    assert_int_equal(d->findings[0].change, ETP_DIFF_FINDING_KEPT);
    etp_diff_free(d);
    etp_diff_side_free(b);
    etp_diff_side_free(n);
}

static void test_bad_finding_refused(void **state)
{
    (void)state;
    etp_diff_side *s = side(1);
    etp_error err;
    etp_diff_side_finding nocode = {NULL, NULL, "fired", NULL, 0, NULL};
    etp_diff_side_finding badstatus = {"x.y", NULL, "maybe", NULL, 0, NULL};
    assert_int_equal(etp_diff_side_add_finding(s, &nocode, &err), ETP_E_USAGE);
    assert_int_equal(etp_diff_side_add_finding(s, &badstatus, &err), ETP_E_USAGE);
    assert_non_null(strstr(err.message, "fired"));
    etp_diff_side_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_appeared_disappeared_kept),
        cmocka_unit_test(test_unknown_side_is_not_compared),
        cmocka_unit_test(test_bad_finding_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
