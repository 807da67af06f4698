/* bundled_check.c - a bundled program's expected outputs against the outputs
 * the run logged (etprof/tensors.h, etp_bundled_check).
 *
 * The rule is ExecuTorch's own bundled-program verification: floating
 * tensors are close when |got - expected| <= atol + rtol * |expected| for
 * every element (rtol 1e-5, atol 1e-8 unless given), NaN against NaN
 * matching; every other element type must be equal. Which test case ran:
 * the ETDump's bundled_input_index when set (ETDumpGen leaves it unset, see
 * the spec's §1.8), else the one the user names, else the runner's
 * --testset_idx from its log, else example_runner's default 0 when the log
 * is example_runner's; otherwise nothing is compared, and the reason says
 * how to name it. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/numerics/numerics_internal.h"
#include "etprof/analysis.h"
#include "etprof/etdump.h"
#include "etprof/program.h"
#include "analysis/numerics/tensor_decode.h"

static const etp_test_suite *suite_of(const etp_program *p, const char *method, uint32_t *index)
{
    for (uint32_t i = 0; i < p->suite_count; i++)
        if (p->suites[i].method_name && method && !strcmp(p->suites[i].method_name, method)) {
            *index = i;
            return &p->suites[i];
        }
    return NULL;
}

/* The test case, and how it is known. */
static int32_t testset_of(const etp_analysis *a, const etp_tensors_options *o, const char **basis)
{
    for (uint32_t e = 0; e < a->execution_count; e++) {
        etp_run run;
        etp_etdump_run(a->etdump, a->executions[e], &run);
        if (run.bundled_input_index >= 0) {
            *basis = "ETDump bundled_input_index";
            return run.bundled_input_index;
        }
    }
    if (o->testset >= 0) {
        *basis = o->testset_basis ? o->testset_basis : "--testset";
        return o->testset;
    }
    if (o->log_testset >= 0) {
        *basis = o->log_testset_basis ? o->log_testset_basis : "runner log --testset_idx";
        return o->log_testset;
    }
    *basis = NULL;
    return -1;
}

/* The expected value as a view (scalars in @p bytes). */
static etp_status expected_view(const etp_program *p, const etp_bundled_value *v, uint8_t bytes[8],
                                etp_bundled_output *bo, const char *what, etp_error *err)
{
    switch (v->kind) {
    case ETP_EV_TENSOR: {
        etp_status s = etp_tensor_view_init(&bo->expected, v->scalar_type, v->rank, NULL, v->sizes, v->data, p->path,
                                            (int64_t)v->offset, what, err);
        if (s)
            return s;
        if (!v->data || v->data_len != bo->expected.nbytes)
            return etp_error_set(err, ETP_E_FORMAT, p->path, (int64_t)v->offset,
                                 "%s: %" PRIu32 " bytes of data for a tensor of %" PRIu64 " bytes", what, v->data_len,
                                 bo->expected.nbytes);
        return ETP_OK;
    }
    case ETP_EV_INT: case ETP_EV_BOOL:
        memcpy(bytes, &v->i, 8);
        bo->scalar_expected = 1;
        return etp_tensor_view_init(&bo->expected, ETP_ST_LONG, 0, NULL, NULL, bytes, p->path, (int64_t)v->offset,
                                    what, err);
    case ETP_EV_DOUBLE:
        memcpy(bytes, &v->d, 8);
        bo->scalar_expected = 1;
        return etp_tensor_view_init(&bo->expected, ETP_ST_DOUBLE, 0, NULL, NULL, bytes, p->path, (int64_t)v->offset,
                                    what, err);
    default:
        return etp_error_set(err, ETP_E_FORMAT, p->path, (int64_t)v->offset, "%s: an expected output of no known kind",
                             what);
    }
}

etp_status etp_bundled_check_run(const etp_analysis *a, etp_tensor_set *s, const etp_tensors_options *o,
                                 etp_error *err)
{
    etp_bundled_check *c = &s->bundled;
    memset(c, 0, sizeof *c);
    c->testset = -1;
    c->tol = o->tol_given ? o->tol : ETP_TOLERANCE_DEFAULT;
    c->tol_given = o->tol_given;
    const etp_program *p = a->program;
    uint32_t si = 0;
    const etp_test_suite *suite = p && p->bundled ? suite_of(p, a->method, &si) : NULL;
    if (!p || !p->bundled) {
        c->reason = "the program is not a bundled program (.bpte)";
        return ETP_OK;
    }
    c->bundled_program = 1;
    if (!suite) {
        c->reason = "the bundled program has no test suite for the method that ran";
        return ETP_OK;
    }
    if (!s->program_outputs) {
        c->reason = "the run logged no program outputs (run with --dump_outputs)";
        return ETP_OK;
    }
    if (!o->buffer) {
        c->reason = "no debug buffer: the logged outputs' values are not known";
        return ETP_OK;
    }
    c->testset = testset_of(a, o, &c->testset_basis);
    if (c->testset < 0) {
        c->reason = "the test case that ran is not known (the ETDump leaves it unset): give --testset N";
        return ETP_OK;
    }
    if ((uint32_t)c->testset >= suite->case_count) {
        if (o->testset >= 0 && c->testset == o->testset)
            return etp_error_set(err, ETP_E_USAGE, p->path, ETP_NO_OFFSET,
                                 "--testset %" PRId32 ": the bundled program's suite \"%s\" has %" PRIu32
                                 " test cases (0..%" PRIu32 ")",
                                 c->testset, suite->method_name, suite->case_count, suite->case_count - 1);
        c->reason = "the test case named is not in the bundled program";
        return ETP_OK;
    }
    uint32_t outs = suite->output_counts[c->testset];
    if (!outs) {
        c->reason = "the test case has no expected outputs";
        return ETP_OK;
    }
    /* Each execution's logged outputs, found in one pass over the values. */
    const etp_logged_tensor **got_of = calloc((size_t)a->execution_count * outs, sizeof *got_of);
    if (a->execution_count && !got_of)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    uint32_t execs = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        const etp_logged_tensor *t = &s->items[i];
        if (t->origin != ETP_TENSOR_PROGRAM_OUTPUT || t->execution < 0 || t->item || t->position >= outs)
            continue;
        const etp_logged_tensor **slot = &got_of[(size_t)t->execution * outs + t->position];
        if (*slot)
            continue;
        int first_of_execution = 1;
        for (uint32_t k = 0; k < outs && first_of_execution; k++)
            first_of_execution = !got_of[(size_t)t->execution * outs + k];
        execs += first_of_execution;
        *slot = t;
    }
    if (!execs) {
        free(got_of);
        c->reason = "no execution the analysis covers logged its outputs";
        return ETP_OK;
    }
    if (!(c->outputs = calloc((size_t)execs * outs, sizeof *c->outputs))) {
        free(got_of);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory");
    }
    double worst_excess = -INFINITY;
    for (uint32_t e = 0; e < a->execution_count; e++) {
        int logged = 0;
        for (uint32_t k = 0; k < outs; k++)
            logged |= got_of[(size_t)e * outs + k] != NULL;
        for (uint32_t k = 0; logged && k < outs; k++) {
            const etp_logged_tensor *got = got_of[(size_t)e * outs + k];
            etp_bundled_output *bo = &c->outputs[c->output_count++];
            bo->execution = (int32_t)e;
            bo->output = k;
            bo->got = got;
            char what[128];
            snprintf(what, sizeof what, "test case %" PRId32 " expected output %" PRIu32, c->testset, k);
            etp_bundled_value v;
            etp_status st = etp_program_bundled_value(p, si, (uint32_t)c->testset, 1, k, &v)
                                 ? etp_error_set(err, ETP_E_FORMAT, p->path, ETP_NO_OFFSET, "%s: missing", what)
                                 : expected_view(p, &v, bo->scalar_bytes, bo, what, err);
            if (st) {
                free(got_of);
                return st;
            }
            if (!got || !got->has_bytes) {
                bo->match = 0;
                bo->gap.mismatches = bo->expected.numel;
            } else {
                char gw[192];
                snprintf(gw, sizeof gw, "execution %" PRId32 " output %" PRIu32 " against %s", e, k, what);
                etp_error cerr;
                etp_error_clear(&cerr);
                /* A run whose output has another shape or type than the
                 * expected one fails the test; it is not a malformed input. */
                if (etp_tensor_compare(&bo->expected, NULL, &got->view, NULL, c->tol, p->path, gw, &bo->gap,
                                       &cerr)) {
                    size_t n = strnlen(cerr.message, sizeof bo->problem - 1);
                    memcpy(bo->problem, cerr.message, n);
                    bo->problem[n] = '\0';
                    bo->gap.mismatches = bo->expected.numel;
                }
                bo->match = !bo->problem[0] && bo->gap.mismatches == 0;
            }
            if (!bo->match) {
                c->mismatched++;
                double ex = bo->got && bo->got->has_bytes && !bo->problem[0]
                                ? fabs(bo->gap.worst_got - bo->gap.worst_reference) -
                                      (c->tol.atol + c->tol.rtol * fabs(bo->gap.worst_reference))
                                : INFINITY;
                if (isnan(ex))
                    ex = INFINITY;
                if (!c->worst || ex > worst_excess) {
                    worst_excess = ex;
                    c->worst = bo;
                }
            }
        }
    }
    free(got_of);
    c->done = 1;
    return ETP_OK;
}
