/*
 * test_nx_rows.c - the operators table's VGF NX rows and the page's NX
 * section on a hand-built NX result whose segments were measured in
 * different executions (the model summary unavailable): expected values by
 * hand from the stripes put in, not from etprof's output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/nx/nx_rows.h"
#include "etprof/columns.h"
#include "etprof/nx_stats.h"
#include "outputs/bundle/publish_internal.h"
#include "outputs/report/report_internal.h"
#include "testutil.h"

/* Execution 0: segment 0 (stripes 0, 1) and segment 1 (stripe 0);
 * execution 1: segment 0 only, with stripe 1 at other cycles.
 * Stripe (op, total): seg 0 exec 0: (50, 60), (5, 7); exec 1: (50, 60), (9, 11);
 * seg 1 exec 0: (20, 30). Chains c1 (stripe 0) and c2 (stripe 1), both in
 * cascade k9; segment 1's stripe 0 in chain c1 / cascade k9 of segment 1. */
static etp_analysis *build(void)
{
    etp_nx_result *r;
    assert_int_equal(etp_nx_result_new(&r), ETP_OK);
    r->settings.device = ETP_NX_MALI_G2;
    r->settings.mode = 1;
    r->settings.layout = etp_nx_layout_get(ETP_NX_MALI_G2, 1);
    r->settings.leading_blocks = 1;
    r->have_settings = 1;
    const etp_nx_layout *lay = r->settings.layout;
    uint64_t *ctr = calloc(2 * lay->counter_count, sizeof *ctr);
    etp_nx_stripe st[2];
    etp_nx_decoded d;
    etp_error err;
    const struct { uint32_t exec; int64_t seg; uint32_t n; uint64_t op[2], total[2]; } adds[3] = {
        {0, 0, 2, {50, 5}, {60, 7}}, {0, 1, 1, {20, 0}, {30, 0}}, {1, 0, 2, {50, 9}, {60, 11}}};
    for (int k = 0; k < 3; k++) {
        memset(&d, 0, sizeof d);
        d.layout = lay;
        d.stripes = st;
        d.stripe_count = adds[k].n;
        for (uint32_t i = 0; i < adds[k].n; i++) {
            memset(&st[i], 0, sizeof st[i]);
            st[i].id = i;
            st[i].chain = i ? "c2" : "c1";
            st[i].cascade = "k9";
            st[i].op_cycles = adds[k].op[i];
            st[i].total_cycles = adds[k].total[i];
            st[i].counters = ctr + (size_t)i * lay->counter_count;
        }
        assert_int_equal(etp_nx_add_segment(r, adds[k].exec, 1, adds[k].seg, &d, NULL, &err), ETP_OK);
    }
    assert_int_equal(etp_nx_finish(r, &err), ETP_OK);
    free(ctr);
    assert_false(r->model_available);
    etp_analysis *a = calloc(1, sizeof *a);
    a->target_unit = ETP_UNIT_MS;
    a->nx = r;
    assert_int_equal(etp_nx_rows_build(a, &err), ETP_OK);
    return a;
}

static void release(etp_analysis *a)
{
    etp_nx_rows_free(a);
    etp_nx_result_free(a->nx);
    free(a);
}

/* The CSV text split into records of fields (no quoting in these rows). */
static int split_csv(char *text, char *rows[][64], int max_rows)
{
    int n = 0;
    for (char *line = strtok(text, "\r\n"); line && n < max_rows; line = strtok(NULL, "\r\n")) {
        int f = 0;
        char *p = line;
        for (;;) {
            char *c = strchr(p, ',');
            rows[n][f++] = p;
            if (!c || f == 64)
                break;
            *c = '\0';
            p = c + 1;
        }
        rows[n][f] = NULL;
        n++;
    }
    return n;
}

/* A number field (the CSV writer's shortest round-trip text). */
static double num(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    assert_true(*text && !*end);
    return v;
}

static int col(char *rows[][64], const char *name)
{
    for (int i = 0; rows[0][i]; i++)
        if (!strcmp(rows[0][i], name))
            return i;
    fail_msg("no column %s", name);
    return -1;
}

static int row_of(char *rows[][64], int n, const char *id)
{
    for (int r = 1; r < n; r++)
        if (!strcmp(rows[r][0], id))
            return r;
    fail_msg("no row %s", id);
    return -1;
}

static void csv_rows(void **state)
{
    (void)state;
    etp_analysis *a = build();
    /* segments 0 and 1, cascades k9 of each, chains c1/c2 of 0 and c1 of 1: no model, no stripe */
    assert_int_equal(etp_analysis_nx_row_count(a), 7);
    size_t len;
    char *csv = etp_operators_csv(a, &len);
    static char *rows[16][64];
    int n = split_csv(csv, rows, 16);
    assert_int_equal(n, 8);
    int kind = col(rows, "kind"), avg = col(rows, "avg_ms"), ex = col(rows, "executions");
    int nxe = col(rows, "nx_executions"), tot = col(rows, "nx_total_cycles_avg"), op = col(rows, "nx_op_cycles_avg");
    int mn = col(rows, "nx_total_cycles_min"), md = col(rows, "nx_total_cycles_median");
    int mx = col(rows, "nx_total_cycles_max"), full = col(rows, "nx_full_coverage"), par = col(rows, "nx_parent");
    int str = col(rows, "nx_stripes"), unit = col(rows, "nx_unit"), add = col(rows, "additive");
    /* segment 0: executions (60 + 7) and (60 + 11): mean 69, op mean (55 + 59) / 2 = 57 */
    int s0 = row_of(rows, n, "segment/0");
    assert_string_equal(rows[s0][kind], "nx_segment");
    assert_string_equal(rows[s0][unit], "cycles");
    assert_string_equal(rows[s0][nxe], "2");
    assert_true(num(rows[s0][tot]) == 69);
    assert_true(num(rows[s0][op]) == 57);
    assert_string_equal(rows[s0][mn], "67");
    assert_true(num(rows[s0][md]) == 69);
    assert_string_equal(rows[s0][mx], "71");
    assert_string_equal(rows[s0][full], "true");
    assert_string_equal(rows[s0][par], "");
    assert_string_equal(rows[s0][str], "2");
    /* segment 1: execution 0 only: not full coverage, its mean not addable to segment 0's */
    int s1 = row_of(rows, n, "segment/1");
    assert_string_equal(rows[s1][nxe], "1");
    assert_true(num(rows[s1][tot]) == 30);
    assert_string_equal(rows[s1][full], "false");
    /* chain c2 of segment 0: totals 7 and 11 */
    int c2 = row_of(rows, n, "chain/segment_0/c2");
    assert_string_equal(rows[c2][kind], "nx_chain");
    assert_true(num(rows[c2][tot]) == 9);
    assert_string_equal(rows[c2][par], "cascade/segment_0/k9");
    int k9 = row_of(rows, n, "cascade/segment_1/k9");
    assert_string_equal(rows[k9][kind], "nx_cascade");
    assert_string_equal(rows[k9][par], "segment/1");
    /* no time, no timed executions, no additive flag on any NX row */
    for (int r = 1; r < n; r++) {
        assert_string_equal(rows[r][avg], "");
        assert_string_equal(rows[r][ex], "");
        assert_string_equal(rows[r][add], "");
    }
    free(csv);
    release(a);
}

static void page_section(void **state)
{
    (void)state;
    etp_analysis *a = build();
    rp_report r;
    memset(&r, 0, sizeof r);
    r.a = a;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    rp_write_nx_section(fp, &r);
    assert_int_equal(rp_write_nx_data(fp, &r), 0);
    fclose(fp);
    assert_non_null(strstr(buf, "<h2>VGF NX cycles</h2>"));
    assert_non_null(strstr(buf, "id=\"nx-model-note\""));
    assert_non_null(strstr(buf, "measured in different executions"));
    assert_non_null(strstr(buf, "\"model_available\":false"));
    /* The model row: no figures; segment 1: one execution, mean 30. */
    assert_non_null(strstr(buf, "\"id\":\"model\",\"kind\":\"model\",\"name\":\"Model\",\"p\":-1,\"avail\":false}"));
    assert_non_null(strstr(buf, "\"id\":\"segment/1\""));
    const char *s1 = strstr(buf, "\"id\":\"segment/1\"");
    const char *n1 = strstr(s1, "\"n\":1,\"avg\":");
    assert_non_null(n1);
    assert_true(strtod(n1 + strlen("\"n\":1,\"avg\":"), NULL) == 30);
    /* Stripes are counted, not listed. */
    assert_null(strstr(buf, "\"kind\":\"stripe\""));
    free(buf);
    release(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(csv_rows), cmocka_unit_test(page_section)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
