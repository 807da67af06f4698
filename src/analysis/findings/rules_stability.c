/* rules_stability.c - how Method::execute varies across executions:
 * stability.cold_start (the first against the rest) and stability.unstable
 * (coefficient of variation, outliers, two groups of executions). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings/findings_internal.h"
#include "util/jsonw.h"

typedef struct spread spread;
static etp_status rule_cold_start(finding_ctx *c, const spread *s);

static etp_status rule_cold_start_of(finding_ctx *c, uint32_t warmup)
{
    const etp_cold_start *cs = &c->a->cold_start;
    /* Already left out with --skip-executions: nothing left to advise. */
    if (!cs->available || c->a->skipped_executions || !(cs->rest_avg > 0))
        return ETP_OK;
    if (!(cs->ratio >= finding_threshold(c, P_COLD_MIN_RATIO)))
        return ETP_OK;
    char f[48], r[48];
    finding_builder b;
    finding_begin(&b, c, "stability.cold_start", ETP_FINDING_FIRED);
    uint32_t skip = warmup > 1 ? warmup : 1;
    finding_message(&b, "the first execution took %s, %.2fx the average of the other %u (%s); it is in every "
                        "statistic unless left out with --skip-executions %u%s",
                    finding_fmt(f, sizeof f, cs->first, c->unit), cs->ratio, cs->rest_count,
                    finding_fmt(r, sizeof r, cs->rest_avg, c->unit), skip,
                    warmup > 1 ? " (the executions after it are slow outliers too)" : "");
    finding_value(&b, "first_execution", cs->first, c->unit, 0, "Method::execute of the first execution");
    finding_value(&b, "rest_avg", cs->rest_avg, c->unit, 0, "Method::execute of the others, average");
    finding_value(&b, "ratio", cs->ratio, "ratio", 0, "first / rest_avg");
    finding_value(&b, "suggested_skip_executions", skip, "executions", 0, "leading slow outliers (at least 1)");
    return finding_end(&b);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median_sorted(const double *v, uint32_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The spread of the analysed executions' Method::execute. Slow executions
 * at the start that are outliers are warm-up: they are counted, and the
 * spread (mean, deviation, groups) is over the executions after them. */
typedef struct spread {
    uint32_t all;                        /* executions with Method::execute */
    uint32_t n;                          /* of them, after the warm-up */
    double mean, sd, cv_pct, median, mad;
    uint32_t outliers, warmup;           /* warm-up: leading slow outliers, in a row */
    int bimodal;
    double gap_low, gap_high;            /* the values either side of the split */
    uint32_t low_count;
    uint32_t *outlier_exec;              /* 1-based analysed execution of each outlier, 0 otherwise
                                            (all entries; owned) */
} spread;

static void groups_of(const finding_ctx *c, const double *v, uint32_t m, double *sorted, spread *s)
{
    memcpy(sorted, v, (size_t)m * sizeof *v);
    qsort(sorted, m, sizeof *sorted, cmp_double);
    double med = m ? median_sorted(sorted, m) : 0;
    double gap_min = finding_threshold(c, P_UNSTABLE_GAP_PCT) / 100.0 * med;
    double mode_min = finding_threshold(c, P_UNSTABLE_MIN_MODE_PCT) / 100.0 * m;
    double best = 0;
    for (uint32_t i = 1; i < m; i++) {
        double g = sorted[i] - sorted[i - 1];
        if (g > best && i >= mode_min && m - i >= mode_min) {
            best = g;
            s->gap_low = sorted[i - 1];
            s->gap_high = sorted[i];
            s->low_count = i;
        }
    }
    s->bimodal = best > 0 && best >= gap_min;
}

static int measure(const finding_ctx *c, const etp_figure *ex, spread *s)
{
    const etp_analysis *a = c->a;
    uint32_t n = a->execution_count;
    memset(s, 0, sizeof *s);
    double *v = malloc(((size_t)n + 1) * sizeof *v), *work = malloc(((size_t)n + 1) * sizeof *work);
    uint32_t *idx = calloc((size_t)n + 1, sizeof *idx);
    if (!v || !work || !idx) {
        free(v);
        free(work);
        free(idx);
        return -1;
    }
    uint32_t m = 0;
    for (uint32_t x = 0; x < n; x++)
        if (ex->series.present[x]) {
            idx[m] = x;
            v[m++] = (double)ex->series.ticks[x] / a->divisor;
        }
    s->all = m;
    memcpy(work, v, (size_t)m * sizeof *v);
    qsort(work, m, sizeof *work, cmp_double);
    s->median = m ? median_sorted(work, m) : 0;
    for (uint32_t i = 0; i < m; i++)
        work[i] = fabs(v[i] - s->median);
    qsort(work, m, sizeof *work, cmp_double);
    s->mad = m ? median_sorted(work, m) : 0;
    /* A MAD of 0 (most executions equal) would call every other value an
     * outlier: a floor of 0.1% of the median keeps clock jitter out. */
    double scale = fmax(s->mad, 0.001 * s->median) * finding_threshold(c, P_UNSTABLE_OUTLIER_MADS);
    int leading = 1;
    for (uint32_t i = 0; i < m; i++) {
        int out = fabs(v[i] - s->median) > scale;
        s->outliers += out;
        if (leading && out && v[i] > s->median)
            s->warmup++;
        else
            leading = 0;
        idx[i] = out ? idx[i] + 1 : 0;
    }
    /* Keep the spread for the warm executions; at least two of them. */
    if (m - s->warmup < 2)
        s->warmup = 0;
    const double *w = v + s->warmup;
    s->n = m - s->warmup;
    double sum = 0, ss = 0;
    for (uint32_t i = 0; i < s->n; i++)
        sum += w[i];
    s->mean = s->n ? sum / s->n : 0;
    for (uint32_t i = 0; i < s->n; i++)
        ss += (w[i] - s->mean) * (w[i] - s->mean);
    s->sd = s->n > 1 ? sqrt(ss / (s->n - 1)) : 0;
    s->cv_pct = s->mean > 0 ? 100.0 * s->sd / s->mean : 0;
    groups_of(c, w, s->n, work, s);
    free(v);
    free(work);
    s->outlier_exec = idx;
    return 0;
}

static etp_status rule_unstable(finding_ctx *c, const spread *sp)
{
    const spread s = *sp;
    if (s.n < finding_threshold(c, P_UNSTABLE_MIN_EXECUTIONS) || s.n < 3)
        return ETP_OK;
    if (!(s.cv_pct >= finding_threshold(c, P_UNSTABLE_MAX_CV_PCT)) && !s.bimodal)
        return ETP_OK;
    char m[48], sd[48], lo[48], hi[48], warm[128] = "";
    uint32_t skip = c->a->skipped_executions + s.warmup;
    if (s.warmup)
        snprintf(warm, sizeof warm, "; the first %u execution%s (warm-up outliers) left out: --skip-executions %u",
                 s.warmup, s.warmup == 1 ? "" : "s", skip);
    finding_builder b;
    finding_begin(&b, c, "stability.unstable", ETP_FINDING_FIRED);
    if (s.bimodal)
        finding_message(&b, "Method::execute falls into two groups over %u executions: %u at or below %s, %u at or "
                            "above %s (mean %s, coefficient of variation %.1f%%, %u outlier%s)%s",
                        s.n, s.low_count, finding_fmt(lo, sizeof lo, s.gap_low, c->unit), s.n - s.low_count,
                        finding_fmt(hi, sizeof hi, s.gap_high, c->unit), finding_fmt(m, sizeof m, s.mean, c->unit),
                        s.cv_pct, s.outliers - s.warmup, s.outliers - s.warmup == 1 ? "" : "s", warm);
    else
        finding_message(&b, "Method::execute varies by %.1f%% (coefficient of variation; mean %s, standard deviation "
                            "%s over %u executions, %u outlier%s)%s",
                        s.cv_pct, finding_fmt(m, sizeof m, s.mean, c->unit), finding_fmt(sd, sizeof sd, s.sd, c->unit),
                        s.n, s.outliers - s.warmup, s.outliers - s.warmup == 1 ? "" : "s", warm);
    finding_value(&b, "cv_pct", s.cv_pct, "%", 0, "stddev / mean of method_execute (warm executions)");
    finding_value(&b, "mean", s.mean, c->unit, 0, "method_execute (warm executions)");
    finding_value(&b, "stddev", s.sd, c->unit, 0, "method_execute (warm executions, sample)");
    finding_value(&b, "median", s.median, c->unit, 0, "method_execute (all executions)");
    finding_value(&b, "mad", s.mad, c->unit, 0, "median absolute deviation (all executions)");
    finding_value(&b, "outliers", s.outliers, "count", 0, "executions beyond outlier_mads MADs");
    finding_value(&b, "warmup_left_out", s.warmup, "count", 0, "leading slow outliers");
    finding_value(&b, "executions", s.n, "executions", 0, "method_execute (warm executions)");
    etp_jw w;
    etp_jw_init_mem(&w, 0);
    etp_jw_obj_begin(&w);
    etp_jw_kbool(&w, "bimodal", s.bimodal);
    if (s.bimodal) {
        etp_jw_kuint(&w, "low_group", s.low_count);
        etp_jw_kuint(&w, "high_group", s.n - s.low_count);
        etp_jw_kdouble(&w, "gap_low", s.gap_low);
        etp_jw_kdouble(&w, "gap_high", s.gap_high);
    }
    /* Outliers by execution: the method's executions counted from 0,
     * skipped ones included (what --skip-executions counts). */
    etp_jw_key(&w, "outlier_executions");
    etp_jw_arr_begin(&w);
    for (uint32_t i = 0; i < s.all; i++)
        if (s.outlier_exec[i])
            etp_jw_uint(&w, c->a->skipped_executions + s.outlier_exec[i] - 1);
    etp_jw_arr_end(&w);
    if (s.warmup)
        etp_jw_kuint(&w, "suggested_skip_executions", skip);
    etp_jw_obj_end(&w);
    finding_details(&b, etp_jw_take(&w, NULL));
    return finding_end(&b);
}

static etp_status rule_cold_start(finding_ctx *c, const spread *s)
{
    return rule_cold_start_of(c, s->warmup);
}

etp_status findings_stability(finding_ctx *c)
{
    const etp_figure *ex = c->execute;
    spread s;
    memset(&s, 0, sizeof s);
    if (ex && ex->series.ticks && measure(c, ex, &s))
        return ETP_E_NOMEM;
    etp_status st = rule_cold_start(c, &s);
    if (!st && s.outlier_exec)
        st = rule_unstable(c, &s);
    free(s.outlier_exec);
    return st;
}
