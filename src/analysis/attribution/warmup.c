/* warmup.c - the first execution against the rest (a cold start) over every
 * execution of the method, skipped (warm-up) ones included: the figure that
 * tells whether --skip-executions is worth giving. */
#include <stdlib.h>
#include <string.h>

#include "analysis/attribution/analysis_internal.h"
#include "etprof/runner_log.h"
#include "etprof/stats.h"

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Mean and median of @p v[0..n) (n >= 1; sorts v). */
static void mean_median(double *v, uint32_t n, double *mean, double *median)
{
    double s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += v[i];
    *mean = s / n;
    qsort(v, n, sizeof *v, cmp_double);
    *median = etp_percentile_linear(v, n, 50);
}

etp_status etp_compute_cold_start(etp_abuild *b)
{
    etp_analysis *a = b->a;
    etp_cold_start *cs = &a->cold_start;
    uint32_t n = a->method_executions;
    memset(cs, 0, sizeof *cs);
    /* Method::execute of every execution of the method (figures.c). */
    const uint64_t *ticks = a->method_execute_ticks;
    const uint8_t *has = a->method_execute_present;
    double *rest = malloc((n + 1) * sizeof *rest);
    if (!rest)
        return etp_abuild_oom(b);
    b->all_execute_ticks = 0;
    b->all_execute_count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (has[i]) {
            b->all_execute_ticks += (double)ticks[i];
            b->all_execute_count++;
        }
    /* The first execution is the method's first, not the first with an
     * event: a missing Method::execute there leaves the figure out. */
    if (n >= 2 && has[0]) {
        uint32_t k = 0;
        for (uint32_t i = 1; i < n; i++)
            if (has[i])
                rest[k++] = (double)ticks[i] / a->divisor;
        if (k) {
            cs->available = 1;
            cs->first = (double)ticks[0] / a->divisor;
            cs->rest_count = k;
            mean_median(rest, k, &cs->rest_avg, &cs->rest_p50);
            cs->ratio = cs->rest_avg > 0 ? cs->first / cs->rest_avg : 0;
        }
    }
    const etp_runner_log *log = b->opt->runner_log;
    if (log && log->iteration_count >= 2) {
        double s = 0;
        for (uint32_t i = 1; i < log->iteration_count; i++)
            s += log->iteration_ms[i];
        cs->log_available = 1;
        cs->log_first_ms = log->iteration_ms[0];
        cs->log_rest_count = log->iteration_count - 1;
        cs->log_rest_avg_ms = s / cs->log_rest_count;
    }
    free(rest);
    return ETP_OK;
}
