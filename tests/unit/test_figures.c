/* test_figures.c - typed analysis results on a real XNNPACK run with its
 * runner log: every figure's id gives its name (per-backend figures: the
 * prefix and their backend), its basis follows from the id, lookup by id
 * finds the figure lookup by name finds; the top entities are ranked by
 * average time; each execution's value of a figure is what its statistics
 * are over, and the backend and operator-type totals hold what they say;
 * and the digest the bundle records for an input is the one
 * the analysis computed for the same program bytes. */
#include <math.h>
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

/* Each execution's value of a per-execution figure is what its statistics
 * are over; in every execution the runtime totals account for
 * Method::execute exactly (in ticks); the totals per backend and per
 * operator type count and add the entities they say. */
static void test_series_and_totals(void **state)
{
    (void)state;
    run r;
    open_run(&r);
    const etp_analysis *a = r.a;
    uint32_t n = a->execution_count;
    for (uint32_t i = 0; i < a->figure_count; i++) {
        const etp_figure *f = &a->figures[i];
        if (f->basis != ETP_FIGURE_PER_EXECUTION) {
            assert_null(f->series.ticks);
            continue;
        }
        assert_non_null(f->series.ticks);
        double sum = 0;
        uint32_t k = 0;
        for (uint32_t x = 0; x < n; x++)
            if (f->series.absent_is_zero || f->series.present[x]) {
                sum += (double)f->series.ticks[x];
                k++;
            }
        if (!f->available)
            continue;
        assert_int_equal(k, f->stats.n);
        assert_true(fabs(sum / k / a->divisor - f->stats.avg) <= 1e-12 * fabs(f->stats.avg));
    }
    const etp_figure *ex = etp_analysis_figure_by_id(a, ETP_FIG_METHOD_EXECUTE);
    const etp_figure *ops = etp_analysis_figure_by_id(a, ETP_FIG_OPERATOR_CALLS_TOTAL);
    const etp_figure *other = etp_analysis_figure_by_id(a, ETP_FIG_OTHER_CALLS_TOTAL);
    const etp_figure *fw = etp_analysis_figure_by_id(a, ETP_FIG_FRAMEWORK_OVERHEAD);
    assert_true(ex && ops && other && fw && ex->available && fw->available);
    for (uint32_t x = 0; x < n; x++) {
        assert_int_equal(ex->series.ticks[x], (int64_t)a->method_execute_ticks[a->skipped_executions + x]);
        if (!ex->series.present[x])
            continue;
        int64_t parts = ops->series.ticks[x] + other->series.ticks[x] + fw->series.ticks[x];
        for (uint32_t i = 0; i < a->backend_total_count; i++)
            parts += a->backend_totals[i].figure->series.ticks[x];
        assert_int_equal(parts, ex->series.ticks[x]);
    }
    /* Backends: each with its delegate_time figure and its timed DELEGATE_CALL instructions. */
    assert_true(a->backend_total_count > 0);
    for (uint32_t i = 0; i < a->backend_total_count; i++) {
        const etp_backend_total *t = &a->backend_totals[i];
        assert_int_equal(t->figure->id, ETP_FIG_DELEGATE_TIME);
        assert_string_equal(t->figure->backend, t->backend);
        uint32_t calls = 0;
        for (uint32_t k = 0; k < a->entity_count; k++) {
            const etp_entity *e = &a->entities[k];
            calls += e->kind == ETP_ENTITY_INSTRUCTION && e->source == ETP_SRC_DELEGATE_CALL &&
                     e->time.executions && e->backend && !strcmp(e->backend, t->backend);
        }
        assert_int_equal(calls, t->instructions);
    }
    assert_ptr_equal(a->native_total.figure, ops);
    assert_null(a->native_total.backend);
    /* Operator types: every entity of the kind in exactly one group, sums of the additive ones. */
    uint32_t members = 0, of_kind = 0;
    for (uint32_t k = 0; k < a->entity_count; k++)
        of_kind += a->entities[k].kind == a->op_type_kind;
    for (uint32_t g = 0; g < a->op_type_total_count; g++) {
        const etp_op_type_total *t = &a->op_type_totals[g];
        if (g)
            assert_true(strcmp(a->op_type_totals[g - 1].op_type ? a->op_type_totals[g - 1].op_type : "",
                               t->op_type ? t->op_type : "") < 0);
        uint32_t m = 0, timed = 0, not_summed = 0;
        double sum = 0;
        for (uint32_t k = 0; k < a->entity_count; k++) {
            const etp_entity *e = &a->entities[k];
            if (e->kind != a->op_type_kind || strcmp(e->op_type ? e->op_type : "", t->op_type ? t->op_type : ""))
                continue;
            m++;
            timed += e->time.executions > 0;
            not_summed += e->time.executions > 0 && !e->additive;
            sum += e->time.executions > 0 && e->additive ? e->time.stats.avg : 0;
        }
        assert_int_equal(m, t->members);
        assert_int_equal(timed, t->timed);
        assert_int_equal(not_summed, t->not_summed);
        assert_true(fabs(sum - t->sum_avg) <= 1e-12 * fabs(sum));
        assert_true(t->has_share && t->share_pct == 100.0 * t->sum_avg / ex->stats.avg);
        members += m;
    }
    assert_int_equal(members, of_kind);
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
        cmocka_unit_test(test_series_and_totals),
        cmocka_unit_test(test_input_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
