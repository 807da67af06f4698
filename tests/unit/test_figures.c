/* test_figures.c - typed analysis results on a real XNNPACK run with its
 * runner log: every figure's id gives its name (per-backend figures: the
 * prefix and their backend), its basis follows from the id, lookup by id
 * finds the figure lookup by name finds; the top entities are ranked by
 * average time; and the digest the bundle records for an input is the one
 * the analysis computed for the same program bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etprof/analysis.h"
#include "etprof/bundle.h"
#include "etprof/runner_log.h"
#include "testutil.h"

typedef struct run {
    etp_etdump *d;
    etp_program *p;
    etp_runner_log *log;
    etp_analysis *a;
} run;

static void open_run(run *r)
{
    memset(r, 0, sizeof *r);
    etp_error err;
    char etdp[4096], pte[4096], log[4096];
    snprintf(etdp, sizeof etdp, "%s", tu_fixture("real-runs/xnn_np_add_x10.etdp"));
    snprintf(pte, sizeof pte, "%s", tu_fixture("real-runs/xnn_np_add_x10.pte"));
    snprintf(log, sizeof log, "%s", tu_fixture("real-runs/xnn_np_add_x10.log"));
    assert_int_equal(etp_etdump_open(etdp, &r->d, &err), ETP_OK);
    assert_int_equal(etp_program_open(pte, &r->p, &err), ETP_OK);
    assert_int_equal(etp_runner_log_open(log, &r->log, &err), ETP_OK);
    etp_analysis_options o;
    etp_analysis_options_init(&o);
    o.runner_log = r->log;
    o.hash_program = 1;
    assert_int_equal(etp_analyze(r->d, r->p, NULL, &o, &r->a, &err), ETP_OK);
}

static void close_run(run *r)
{
    etp_analysis_free(r->a);
    etp_runner_log_free(r->log);
    etp_program_free(r->p);
    etp_etdump_free(r->d);
}

static void test_figure_ids(void **state)
{
    (void)state;
    run r;
    open_run(&r);
    const etp_analysis *a = r.a;
    int delegates = 0, runner = 0;
    const size_t plen = strlen(ETP_FIG_DELEGATE_TIME_PREFIX);
    for (uint32_t i = 0; i < a->figure_count; i++) {
        const etp_figure *f = &a->figures[i];
        assert_true((unsigned)f->id < ETP_FIG_COUNT);
        const char *base = etp_figure_id_name(f->id);
        assert_non_null(base);
        if (f->id == ETP_FIG_DELEGATE_TIME) {
            delegates++;
            assert_non_null(f->backend);
            assert_memory_equal(f->name, ETP_FIG_DELEGATE_TIME_PREFIX, plen);
            assert_string_equal(f->name + plen, f->backend);
            assert_string_equal(base, ETP_FIG_DELEGATE_TIME_PREFIX);
        } else {
            assert_null(f->backend);
            assert_string_equal(f->name, base);
            assert_ptr_equal(etp_analysis_figure_by_id(a, f->id), f);
            assert_ptr_equal(etp_analysis_figure(a, f->name), f);
        }
        etp_figure_basis want = ETP_FIGURE_PER_EXECUTION;
        if (f->id == ETP_FIG_PROGRAM_LOAD_METHOD || f->id == ETP_FIG_METHOD_INIT)
            want = ETP_FIGURE_PER_OCCURRENCE;
        if (f->id == ETP_FIG_RUNNER_ITERATION || f->id == ETP_FIG_RUNNER_LOAD ||
            f->id == ETP_FIG_RUNNER_PLANNED_MEMORY) {
            want = ETP_FIGURE_RUNNER_REPORTED;
            runner++;
        }
        assert_int_equal(f->basis, want);
    }
    assert_true(delegates >= 1);
    assert_int_equal(runner, 3);
    const etp_figure *d = etp_analysis_figure_by_id(a, ETP_FIG_DELEGATE_TIME);
    assert_non_null(d);
    assert_string_equal(d->backend, "XnnpackBackend");
    assert_null(etp_figure_id_name(ETP_FIG_COUNT));
    close_run(&r);
}

static void test_top_ranking(void **state)
{
    (void)state;
    run r;
    open_run(&r);
    uint32_t n = 0;
    const etp_entity **top = etp_analysis_top(r.a, &n);
    assert_non_null(top);
    assert_true(n > 0);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(top[i]->time.executions > 0);
        assert_int_equal(top[i]->kind, top[0]->kind);
        if (i)
            assert_true(top[i - 1]->time.stats.avg >= top[i]->time.stats.avg);
    }
    free(top);
    close_run(&r);
}

static void test_input_digest(void **state)
{
    (void)state;
    run r;
    open_run(&r);
    char *dir = tu_tmpdir();
    assert_non_null(dir);
    char out[4200];
    snprintf(out, sizeof out, "%s/b", dir);
    etp_bundle *b = NULL;
    etp_error err;
    assert_int_equal(etp_bundle_begin(out, &b, &err), ETP_OK);
    assert_null(etp_bundle_input_sha256(b, "pte", NULL));
    assert_int_equal(etp_bundle_add_input(b, "pte", r.p->path, &err), ETP_OK);
    uint64_t size = 0;
    const char *sha = etp_bundle_input_sha256(b, "pte", &size);
    assert_non_null(sha);
    assert_int_equal(strlen(sha), 64);
    assert_string_equal(sha, r.a->program_sha256);
    assert_int_equal(size, r.p->file_size);
    etp_bundle_free(b);
    tu_rmrf(dir);
    free(dir);
    close_run(&r);
}

int main(void)
{
    TU_REQUIRE_FIXTURES();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure_ids),
        cmocka_unit_test(test_top_ranking),
        cmocka_unit_test(test_input_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
