/* diff_gate.c - the CI gate: whether the new run is slower than allowed
 * (etp_diff_gate, etp_diff_gate_decide in etprof/diff.h). The CLI's
 * --fail-if-slower and the Python package's Diff.gate() both take this one
 * decision, so they fail on the same comparisons for the same reason. */
#include <string.h>

#include "etprof/diff.h"
#include "etprof/exit_status.h"

int etp_diff_gate(const etp_diff_row *r, double pct, int without_significance, const char **why)
{
    const char *w;
    int fail = 0;
    if (!r || !r->has_ratio)
        w = "no ratio";
    else if (!(r->ratio > 1.0 + pct / 100.0))
        w = "within the threshold";
    else if (r->has_ci) {
        fail = r->significant && r->ci_low > 1.0;
        w = fail ? "slower and significant" : "slower, not significant";
    } else {
        fail = without_significance;
        w = fail ? "slower (no interval; --no-significance)" : "slower, but no interval (samples absent)";
    }
    if (why)
        *why = w;
    return fail;
}

/* The row --metric names: a model figure by name, else the first row with
 * that key (entity keys are unique within a kind). */
static const etp_diff_row *gated_row(const etp_diff *d, const char *metric)
{
    const etp_diff_row *r = etp_diff_find(d, ETP_DIFF_MODEL, metric);
    for (uint32_t i = 0; !r && i < d->row_count; i++)
        if (d->rows[i].key && !strcmp(d->rows[i].key, metric))
            r = &d->rows[i];
    return r;
}

etp_status etp_diff_gate_decide(const etp_diff *d, const char *metric, double threshold_pct,
                                int no_significance, etp_diff_gate_outcome *out, etp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(threshold_pct >= 0))
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "the gate needs a percentage >= 0, got %g", threshold_pct);
    const etp_diff_row *r = metric ? gated_row(d, metric) : NULL;
    if (!r)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "--metric %s: no such row in this comparison (model figures: "
                             "method_execute, native_kernels_total, delegate_time:BACKEND, ...)",
                             metric ? metric : "(none)");
    out->metric = metric;
    out->row = r;
    out->threshold_pct = threshold_pct;
    out->no_significance = no_significance != 0;
    out->failed = etp_diff_gate(r, threshold_pct, no_significance, &out->reason);
    out->exit_status = out->failed ? ETP_EXIT_GATE : ETP_EXIT_OK;
    return ETP_OK;
}
