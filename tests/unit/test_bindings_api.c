/* test_bindings_api.c - the entry points language bindings use:
 * etp_column_read() gives, for every column and entity, what the column's
 * own present()/get() give (read in chunks, ranges checked);
 * etp_analysis_json() is the document etp_analysis_write_json() prints
 * (compared as parsed JSON), less its entities on request; etp_inspect_json()
 * and etp_summary_json() are documents; nothing leaks (ASan build).
 * Inputs: the generated demo triple. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "etprof/dump.h"
#include "etprof/analysis.h"
#include "etprof/columns.h"
#include "etprof/etrecord.h"
#include "etprof/gen.h"
#include "etprof/json.h"
#include "etprof/publish.h"
#include "outputs/report/analysis_report.h"
#include "testutil.h"

typedef struct fixture {
    char *dir;
    etp_etdump *d;
    etp_program *p;
    etp_etrecord *r;
    etp_analysis *a;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = tu_tmpdir();
    etp_error err;
    if (etp_gen_demo(f->dir, 5, 3, NULL, &err))
        return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/run.etdp", f->dir);
    if (etp_etdump_open(path, &f->d, &err))
        return -1;
    snprintf(path, sizeof path, "%s/model.pte", f->dir);
    if (etp_program_open(path, &f->p, &err))
        return -1;
    snprintf(path, sizeof path, "%s/model.etrecord", f->dir);
    if (etp_etrecord_open(path, &f->r, &err))
        return -1;
    etp_analysis_options o;
    etp_analysis_options_init(&o);
    if (etp_analyze(f->d, f->p, f->r, &o, &f->a, &err))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    etp_analysis_free(f->a);
    etp_etrecord_free(f->r);
    etp_program_free(f->p);
    etp_etdump_free(f->d);
    tu_rmrf(f->dir);
    free(f->dir);
    free(f);
    return 0;
}

static void same_cell(const etp_column *c, etp_cell x, etp_cell y)
{
    switch (c->type) {
    case ETP_COLT_STR:
        if (x.s && y.s)
            assert_string_equal(x.s, y.s);
        else
            assert_ptr_equal(x.s, y.s);
        break;
    case ETP_COLT_INT: assert_int_equal(x.i, y.i); break;
    case ETP_COLT_UINT: assert_int_equal(x.u, y.u); break;
    case ETP_COLT_NUM: assert_memory_equal(&x.d, &y.d, sizeof x.d); break;
    case ETP_COLT_BOOL: assert_int_equal(x.b, y.b); break;
    case ETP_COLT_INTS:
        assert_int_equal(x.ints.n, y.ints.n);
        if (x.ints.n)
            assert_memory_equal(x.ints.v, y.ints.v, x.ints.n * sizeof *x.ints.v);
        break;
    case ETP_COLT_STRS:
        assert_int_equal(x.strs.n, y.strs.n);
        for (uint32_t i = 0; i < x.strs.n; i++)
            assert_string_equal(x.strs.v[i], y.strs.v[i]);
        break;
    }
}

static void column_read_matches_the_getters(void **state)
{
    fixture *f = *state;
    const etp_analysis *a = f->a;
    uint32_t n = etp_analysis_entity_count(a);
    assert_int_equal(n, a->entity_count);
    assert_true(n > 3);
    etp_cell *cells = calloc(n, sizeof *cells);
    uint8_t *bits = calloc(n, 1);
    size_t ncol;
    const etp_column *cols = etp_columns(&ncol);
    uint32_t half = n / 2;
    for (size_t k = 0; k < ncol; k++) {
        const etp_column *c = &cols[k];
        /* Two chunks: the second starts mid-table. */
        assert_int_equal(etp_column_read(a, c->id, 0, half, cells, bits), ETP_OK);
        assert_int_equal(etp_column_read(a, c->id, half, n - half, cells + half, bits + half),
                         ETP_OK);
        for (uint32_t i = 0; i < n; i++) {
            const etp_entity *e = &a->entities[i];
            int value = c->present(e), group = etp_column_group_present(c->group, e);
            assert_int_equal(!!(bits[i] & ETP_COLREAD_VALUE), !!value);
            assert_int_equal(!!(bits[i] & ETP_COLREAD_GROUP), !!group);
            if (value || (c->group != ETP_COLG_ENTITY && group))
                same_cell(c, cells[i], c->get(a, e));
        }
    }
    /* Ranges: past the end, overflowing, NULL arrays, unknown column. */
    assert_int_equal(etp_column_read(a, ETP_COL_ID, n, 0, NULL, NULL), ETP_OK);
    assert_int_equal(etp_column_read(a, ETP_COL_ID, n + 1, 0, cells, bits), ETP_E_USAGE);
    assert_int_equal(etp_column_read(a, ETP_COL_ID, 1, n, cells, bits), ETP_E_USAGE);
    assert_int_equal(etp_column_read(a, ETP_COL_ID, 1, UINT32_MAX, cells, bits), ETP_E_USAGE);
    assert_int_equal(etp_column_read(a, ETP_COL_ID, 0, 1, NULL, bits), ETP_E_USAGE);
    assert_int_equal(etp_column_read(a, ETP_COL_COUNT, 0, 1, cells, bits), ETP_E_USAGE);
    assert_int_equal(etp_analysis_entity_count(NULL), 0);
    /* No VGF statistics in this run: no NX rows, and entities have no NX group. */
    assert_int_equal(etp_analysis_nx_row_count(a), 0);
    assert_int_equal(etp_analysis_nx_row_count(NULL), 0);
    assert_int_equal(etp_column_read_nx(a, ETP_COL_ID, 0, 0, NULL, NULL), ETP_OK);
    assert_int_equal(etp_column_read_nx(a, ETP_COL_ID, 0, 1, cells, bits), ETP_E_USAGE);
    assert_int_equal(etp_column_read_nx(NULL, ETP_COL_ID, 0, 0, cells, bits), ETP_E_USAGE);
    for (uint32_t i = 0; i < n; i++)
        assert_false(etp_column_group_present(ETP_COLG_NX, &a->entities[i]));
    free(cells);
    free(bits);
}

/* The FILE writer's document, parsed. */
static json_t *written_json(const etp_analysis *a)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    assert_int_equal(etp_analysis_write_json(a, fp), 0);
    fclose(fp);
    json_error_t je;
    json_t *j = json_loadb(text, len, 0, &je);
    free(text);
    assert_non_null(j);
    return j;
}

static void analysis_json_is_the_cli_document(void **state)
{
    fixture *f = *state;
    json_t *ref = written_json(f->a);
    size_t len = 0;
    char *text = etp_analysis_json(f->a, 0, &len);
    assert_non_null(text);
    assert_int_equal(len, strlen(text));
    assert_null(strchr(text, '\n')); /* compact */
    json_error_t je;
    json_t *mine = json_loads(text, 0, &je);
    etp_text_free(text);
    assert_true(json_equal(mine, ref));
    json_decref(mine);

    text = etp_analysis_json(f->a, ETP_JSON_NO_ENTITIES, NULL);
    mine = json_loads(text, 0, &je);
    etp_text_free(text);
    assert_int_equal(json_array_size(json_object_get(mine, "entities")), 0);
    assert_true(json_array_size(json_object_get(ref, "entities")) > 0);
    json_object_set_new(ref, "entities", json_array());
    assert_true(json_equal(mine, ref));
    json_decref(mine);
    json_decref(ref);
    etp_text_free(NULL);
}

static void inspect_and_summary_documents(void **state)
{
    fixture *f = *state;
    json_error_t je;
    char *text = etp_inspect_json(f->a->inspect, f->d, f->p, 1, NULL);
    assert_non_null(text);
    json_t *j = json_loads(text, 0, &je);
    etp_text_free(text);
    assert_string_equal(json_string_value(json_object_get(j, "schema")), "etprof.inspect");
    assert_true(json_array_size(json_object_get(j, "blocks")) > 0);
    json_decref(j);

    text = etp_summary_json(f->a);
    j = json_loads(text, 0, &je);
    etp_text_free(text);
    assert_string_equal(json_string_value(json_object_get(j, "schema")), "etprof.summary");
    json_decref(j);

    size_t n;
    const etp_column_id *ids = etp_operators_csv_columns(&n);
    assert_true(n > 10 && n <= ETP_COL_COUNT);
    assert_int_equal(ids[0], ETP_COL_ID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(column_read_matches_the_getters),
        cmocka_unit_test(analysis_json_is_the_cli_document),
        cmocka_unit_test(inspect_and_summary_documents),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
