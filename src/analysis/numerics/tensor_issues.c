/* tensor_issues.c - the analysis reads the run's logged values (when it has
 * the debug buffer's bytes) and says what they showed: the bundled
 * program's verification (tensors.bundled_*), values of types it cannot
 * decode (tensors.not_decoded). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "analysis/numerics/numerics_internal.h"
#include "etprof/analysis.h"
#include "etprof/issues.h"
#include "etprof/program.h"
#include "etprof/runner_log.h"

/* etp_issue_add's status as the analysis' (out of memory, or a code
 * missing from the registry: a bug the tests catch). */
static etp_status issue(etp_status s)
{
    return s;
}

static etp_status note_bundled(etp_analysis *a, const etp_bundled_check *c)
{
    if (!a->program || !a->program->bundled)
        return ETP_OK;
    if (!c->done)
        return issue(etp_issue_add(&a->issues, "tensors.bundled_not_compared", NULL,
                                   "the bundled program's expected outputs were not compared: %s", c->reason));
    uint32_t execs = 0;
    for (uint32_t i = 0; i < c->output_count; i++)
        execs += c->outputs[i].output == 0;
    if (!c->mismatched)
        return issue(etp_issue_add(&a->issues, "tensors.bundled_match", NULL,
                                   "the logged outputs of %" PRIu32 " execution(s) match test case %" PRId32
                                   " of the bundled program (test case from %s; rtol %g, atol %g)",
                                   execs, c->testset, c->testset_basis, c->tol.rtol, c->tol.atol));
    const etp_bundled_output *w = c->worst;
    char ctx[256];
    snprintf(ctx, sizeof ctx, "{\"testset\":%" PRId32 ",\"execution\":%" PRId32 ",\"output\":%" PRIu32 "}",
             c->testset, w->execution, w->output);
    if (w->problem[0])
        return issue(etp_issue_add(&a->issues, "tensors.bundled_mismatch", ctx,
                                   "%" PRIu32 " of %" PRIu32 " outputs do not match test case %" PRId32
                                   " (test case from %s): %s",
                                   c->mismatched, c->output_count, c->testset, c->testset_basis, w->problem));
    if (!w->got || !w->got->has_bytes)
        return issue(etp_issue_add(&a->issues, "tensors.bundled_mismatch", ctx,
                                   "%" PRIu32 " of %" PRIu32 " outputs do not match test case %" PRId32
                                   " (test case from %s): execution %" PRId32 " did not log output %" PRIu32
                                   " with its bytes",
                                   c->mismatched, c->output_count, c->testset, c->testset_basis, w->execution,
                                   w->output));
    return issue(etp_issue_add(&a->issues, "tensors.bundled_mismatch", ctx,
                               "%" PRIu32 " of %" PRIu32 " outputs do not match test case %" PRId32
                               " (test case from %s; %s): execution %" PRId32 " output %" PRIu32 ": %" PRIu64
                               " of %" PRIu64 " elements differ, worst at element %" PRIu64 ": expected %.9g, got %.9g",
                               c->mismatched, c->output_count, c->testset, c->testset_basis,
                               w->gap.exact_compare ? "exact, integer values" : "rtol/atol", w->execution,
                               w->output, w->gap.mismatches, w->expected.numel, w->gap.worst_index,
                               w->gap.worst_reference, w->gap.worst_got));
}

etp_status etp_read_tensors(etp_analysis *a, const etp_analysis_options *opt, etp_error *err)
{
    etp_tensors_options o;
    etp_tensors_options_init(&o);
    o.buffer = opt->debug_buffer_data;
    o.buffer_size = opt->debug_buffer_size;
    o.buffer_name = opt->debug_buffer_name;
    o.testset = opt->testset;
    o.testset_basis = opt->testset_basis;
    if (opt->tolerance_given) {
        o.tol_given = 1;
        o.tol.rtol = opt->rtol;
        o.tol.atol = opt->atol;
    }
    const etp_runner_log *log = opt->runner_log;
    if (log && log->testset_idx >= 0) {
        o.log_testset = log->testset_idx;
        o.log_testset_basis = "runner log --testset_idx";
    } else if (log && log->example_runner) {
        o.log_testset = 0;
        o.log_testset_basis = "example_runner's default --testset_idx 0 (its log names none)";
    }
    etp_status s = etp_tensors_build(a, &o, &a->tensors, err);
    if (s)
        return s;
    const etp_tensor_set *t = a->tensors;
    if (t->not_decoded && (s = issue(etp_issue_add(&a->issues, "tensors.not_decoded", NULL,
                                                   "%" PRIu32 " logged value(s) have an element type whose values "
                                                   "are not read (complex, packed sub-byte, or unknown): listed "
                                                   "without statistics",
                                                   t->not_decoded))))
        return s;
    return note_bundled(a, &t->bundled);
}
