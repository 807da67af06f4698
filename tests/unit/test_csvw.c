/* test_csvw.c - the CSV writer quotes exactly the fields RFC 4180 needs
 * quoted (comma, double quote, CR, LF; quotes doubled), joins lists into one
 * field quoted as a whole, and formats numbers as the JSON files do; and
 * a file writer puts out the same bytes as a memory writer, across its
 * buffer's flushes (and reports a failed write); and the column table has one entry per id, in id order, with the presence
 * rules operators.csv relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/columns.h"
#include "util/csvw.h"
#include "testutil.h"

static void test_quoting(void **state)
{
    (void)state;
    etp_csvw w;
    etp_csvw_init(&w);
    etp_csvw_str(&w, "plain");
    etp_csvw_str(&w, NULL);
    etp_csvw_str(&w, "a,b");
    etp_csvw_str(&w, "say \"hi\"");
    etp_csvw_str(&w, "two\nlines");
    etp_csvw_empty(&w);
    etp_csvw_end_row(&w);
    const char *items[] = {"x", "y,z", "q\""};
    etp_csvw_strs(&w, items, 3);
    etp_csvw_strs(&w, items, 1);
    etp_csvw_strs(&w, items, 0);
    etp_csvw_end_row(&w);
    size_t len;
    char *t = etp_csvw_take(&w, &len);
    assert_non_null(t);
    assert_string_equal(t, "plain,,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\r\n"
                           "\"x y,z q\"\"\",x,\r\n");
    assert_int_equal(len, strlen(t));
    free(t);
}

/* Rows of every field kind, enough of them to pass the file writer's
 * 64 KiB flush point many times, including fields longer than it. */
static void table(etp_csvw *w)
{
    static char big[70000];
    memset(big, 'b', sizeof big - 1);
    big[100] = ',';
    const char *items[] = {"x", "y"};
    const int64_t ints[] = {-1, 2, 3};
    for (int i = 0; i < 6000; i++) {
        etp_csvw_uint(w, (uint64_t)i);
        etp_csvw_int(w, -i);
        etp_csvw_double(w, i / 7.0);
        etp_csvw_str(w, i % 3 ? "plain" : "quo\"ted");
        etp_csvw_empty(w);
        etp_csvw_strs(w, items, 2);
        etp_csvw_ints(w, ints, 3);
        if (i % 1000 == 7)
            etp_csvw_str(w, big);
        etp_csvw_end_row(w);
    }
}

static void test_file_writer(void **state)
{
    (void)state;
    etp_csvw m;
    etp_csvw_init(&m);
    table(&m);
    size_t len;
    char *want = etp_csvw_take(&m, &len);
    assert_non_null(want);
    assert_true(len > 10 * 65536);
    FILE *fp = tmpfile();
    assert_non_null(fp);
    etp_csvw f;
    etp_csvw_init_file(&f, fp);
    table(&f);
    assert_int_equal(etp_csvw_finish(&f), 0);
    assert_true(tu_stream_equals(fp, want, len));
    fclose(fp);
    free(want);
    /* A stream that refuses writes: the failure is reported, not lost. */
    FILE *ro = fopen("/dev/null", "r");
    assert_non_null(ro);
    etp_csvw_init_file(&f, ro);
    table(&f);
    assert_int_equal(etp_csvw_finish(&f), -1);
    fclose(ro);
}

static void test_numbers(void **state)
{
    (void)state;
    etp_csvw w;
    etp_csvw_init(&w);
    const int64_t h[] = {-1, 0, 42};
    etp_csvw_uint(&w, UINT64_MAX);
    etp_csvw_int(&w, INT64_MIN);
    etp_csvw_double(&w, 1.898821);
    etp_csvw_double(&w, 2.0);
    etp_csvw_ints(&w, h, 3);
    etp_csvw_raw(&w, "a,b", 3);
    etp_csvw_end_row(&w);
    char *t = etp_csvw_take(&w, NULL);
    assert_non_null(t);
    assert_string_equal(t, "18446744073709551615,-9223372036854775808,1.898821,2.0,-1 0 42,a,b\r\n");
    free(t);
    /* An empty writer gives an empty text, not NULL. */
    etp_csvw_init(&w);
    t = etp_csvw_take(&w, NULL);
    assert_non_null(t);
    assert_string_equal(t, "");
    free(t);
}

static void test_column_table(void **state)
{
    (void)state;
    size_t n;
    const etp_column *cols = etp_columns(&n);
    assert_int_equal(n, ETP_COL_COUNT);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(cols[i].id, (etp_column_id)i);
        assert_non_null(cols[i].key);
        assert_non_null(cols[i].header);
        assert_non_null(cols[i].present);
        assert_non_null(cols[i].get);
        assert_ptr_equal(etp_column_get((etp_column_id)i), &cols[i]);
    }
    assert_null(etp_column_get(ETP_COL_COUNT));
    char h[32];
    etp_column_header(etp_column_get(ETP_COL_KERNEL_AVG), ETP_UNIT_MS, h, sizeof h);
    assert_string_equal(h, "kernel_avg_ms");
    etp_column_header(etp_column_get(ETP_COL_ID), ETP_UNIT_MS, h, sizeof h);
    assert_string_equal(h, "entity_id");

    /* An operator has no chain; an untimed instruction no statistics. */
    etp_entity op, ins;
    memset(&op, 0, sizeof op);
    memset(&ins, 0, sizeof ins);
    op.kind = ETP_ENTITY_OPERATOR;
    ins.kind = ETP_ENTITY_INSTRUCTION;
    assert_false(etp_column_get(ETP_COL_CHAIN)->present(&op));
    assert_true(etp_column_get(ETP_COL_CHAIN)->present(&ins));
    assert_false(etp_column_get(ETP_COL_AVG)->present(&ins));
    assert_true(etp_column_get(ETP_COL_EXECUTIONS)->present(&ins));
    assert_false(etp_column_group_present(ETP_COLG_TIMING, &ins));
    ins.time.executions = 3;
    ins.time.stats.avg = 1.5;
    assert_true(etp_column_get(ETP_COL_AVG)->present(&ins));
    assert_true(etp_column_get(ETP_COL_AVG)->get(NULL, &ins).d == 1.5);
    assert_true(etp_column_group_present(ETP_COLG_TIMING, &ins));
    assert_false(etp_column_group_present(ETP_COLG_KERNEL, &ins));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quoting),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_file_writer),
        cmocka_unit_test(test_column_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
