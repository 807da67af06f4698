/* regress.c - the regression rules of a run history (etprof/history.h;
 * docs/history.md, "Regression rules", states them with their reasons).
 *
 * One series is judged in four steps:
 *  1. the usable points (finite values), newest first: the window is the
 *     newest `window`, the baseline up to `baseline` before it;
 *  2. the baseline's level (median) and noise (von Neumann's estimate from
 *     successive differences: a slow drift inside the baseline does not
 *     pass for noise, so a creep stays visible);
 *  3. a flag per window point: worse than the level by more than the
 *     threshold AND by more than a critical number of noise units (the
 *     z threshold, widened by Student's t when the baseline is short);
 *  4. runs of flags: two or more at the end = regression, three or more
 *     that ended = suspicious. With per-execution samples on both sides, a
 *     run stands only when the bootstrap interval of the ratio (its
 *     executions against those of the min_baseline runs before the window)
 *     excludes 1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff/diff_bootstrap.h"
#include "analysis/history/student_t.h"
#include "etprof/history.h"
#include "etprof/stats.h"
#include "util/hashmap.h"

const char *etp_regression_class_name(etp_regression_class c)
{
    switch (c) {
    case ETP_REGRESSION_OK: return "ok";
    case ETP_REGRESSION_REGRESSION: return "regression";
    case ETP_REGRESSION_SUSPICIOUS: return "suspicious";
    case ETP_REGRESSION_INSUFFICIENT_DATA: return "insufficient_data";
    }
    return "unknown";
}

void etp_regression_options_init(etp_regression_options *o)
{
    memset(o, 0, sizeof *o);
    o->window = 5;
    o->baseline = 20;
    o->min_baseline = 5;
    o->threshold_pct = 5.0;
    o->z_threshold = 3.0;
    o->confidence = 0.95;
    o->resamples = 2000;
    o->seed = 0x6574702d68697374ull; /* "etp-hist" */
}

/* The series being judged: its usable points, oldest first. */
typedef struct judge {
    const etp_history_series *s;
    const etp_regression_options *o;
    uint32_t *idx;        /* indices into s->points: baseline, then window */
    uint32_t nb, nw;      /* baseline and window points */
    double dir;           /* +1: a larger value is worse; -1: a smaller one */
    double level, spread; /* the baseline's median and noise */
    double nu;            /* degrees of freedom of the noise estimate */
    double crit;          /* noise units a flagged point lies beyond */
    double *scratch;      /* room for nb + nw values */
} judge;

static double value_at(const judge *j, uint32_t k)
{
    return j->s->points[j->idx[k]].value;
}

/* The median of points [from, to) of j->idx. */
static double median_of(const judge *j, uint32_t from, uint32_t to)
{
    for (uint32_t k = from; k < to; k++)
        j->scratch[k - from] = value_at(j, k);
    return etp_diff_stat_of(j->scratch, to - from, ETP_DIFF_STAT_P50);
}

/* Noise from successive differences: sigma^2 = sum (x[i+1] - x[i])^2 /
 * (2 (n - 1)). A trend adds only its (small) step to each difference, where
 * it would add its whole range to a standard deviation. */
static double successive_spread(const judge *j)
{
    double ss = 0;
    for (uint32_t k = 1; k < j->nb; k++) {
        double d = value_at(j, k) - value_at(j, k - 1);
        ss += d * d;
    }
    return sqrt(ss / (2.0 * (j->nb - 1)));
}

static int violates(const judge *j, double v)
{
    /* worse / level > threshold%, multiplied out so that a value exactly at
     * the threshold (105 against 100 at 5%) is not over it by rounding. */
    double worse = j->dir * (v - j->level);
    if (!(worse * 100.0 > j->o->threshold_pct * j->level))
        return 0;
    if (j->spread == 0)
        return worse > 0;
    return worse / j->spread > j->crit;
}

/* P(the level of @p k points with median @p v lies beyond the threshold),
 * from the t distribution of the noise estimate (1 or 0 without noise). */
static double beyond_threshold(const judge *j, double v, uint32_t k)
{
    double bound = j->level * (1.0 + j->dir * j->o->threshold_pct / 100.0);
    double worse = j->dir * (v - bound);
    if (j->spread == 0)
        return worse > 0 ? 1.0 : 0.0;
    double se = j->spread * sqrt(1.0 / k + M_PI / (2.0 * j->nb));
    return etp_student_t_cdf(worse / se, j->nu);
}

/* The pooled finite per-execution values of points [from, to) into @p out;
 * how many, or -1 when a point has none (then no bootstrap). */
static int64_t pool_samples(const judge *j, uint32_t from, uint32_t to, double *out)
{
    int64_t n = 0;
    for (uint32_t k = from; k < to; k++) {
        const etp_history_point *p = &j->s->points[j->idx[k]];
        if (!p->sample_count || !p->execution_values)
            return -1;
        for (uint32_t i = 0; i < p->sample_count; i++)
            if (isfinite(p->execution_values[i]))
                out[n++] = p->execution_values[i];
    }
    return n;
}

static uint64_t samples_in(const judge *j, uint32_t from, uint32_t to)
{
    uint64_t n = 0;
    for (uint32_t k = from; k < to; k++)
        n += j->s->points[j->idx[k]].sample_count;
    return n;
}

/* The statistic the series' values are: a median for ".p50" metrics, else
 * the mean (summary metrics name their statistic last). */
static etp_diff_statistic series_statistic(const etp_history_series *s)
{
    size_t n = s->metric ? strlen(s->metric) : 0;
    return n >= 4 && !strcmp(s->metric + n - 4, ".p50") ? ETP_DIFF_STAT_P50 : ETP_DIFF_STAT_AVG;
}

static uint64_t text_hash(const char *t, uint64_t seed)
{
    return etp_hash_bytes(t ? t : "", t ? strlen(t) : 0, seed);
}

/* Each series draws its own resamples: the seed XOR a hash of its key and
 * metric, so the same options give the same verdict on every machine. */
static uint64_t series_seed(const judge *j)
{
    return j->o->seed ^ text_hash(j->s->key, text_hash(j->s->metric, 0));
}

enum { BOOT_NONE = 0, BOOT_DONE = 1, BOOT_NOMEM = -2 };

/* Bootstrap window points [from, to) against the baseline: BOOT_DONE with
 * out's interval and *share (the share of ratios beyond the threshold),
 * BOOT_NONE when either side lacks samples (or no ratio can be formed). */
static int bootstrap_run(const judge *j, uint32_t from, uint32_t to, etp_regression *out,
                         double *share)
{
    const etp_regression_options *o = j->o;
    if (!o->resamples)
        return BOOT_NONE;
    /* The executions of the baseline runs nearest the window, min_baseline
     * of them: the question here is whether the deciding runs' executions
     * differ from those just before, beyond the executions' own noise (the
     * run-to-run rule has already judged the whole baseline); and the
     * bootstrap's cost grows with every execution it draws. */
    uint32_t b0 = j->nb - j->o->min_baseline;
    uint64_t nb = samples_in(j, b0, j->nb), nn = samples_in(j, from, to);
    if (nb < 2 || nn < 2 || nb > UINT32_MAX || nn > UINT32_MAX)
        return BOOT_NONE;
    double *base = malloc(nb * sizeof *base), *newv = malloc(nn * sizeof *newv);
    double *ratios = malloc((size_t)o->resamples * sizeof *ratios);
    int rc = BOOT_NOMEM;
    if (base && newv && ratios) {
        rc = BOOT_NONE;
        int64_t gb = pool_samples(j, b0, j->nb, base), gn = pool_samples(j, from, to, newv);
        int b = gb >= 2 && gn >= 2
                    ? etp_diff_bootstrap_ratios(base, (uint32_t)gb, newv, (uint32_t)gn,
                                                series_statistic(j->s), o->resamples, series_seed(j),
                                                ratios)
                    : -1;
        if (b == -2) {
            rc = BOOT_NOMEM;
        } else if (b == 0) {
            out->has_interval = 1;
            out->ratio_lo = etp_percentile_linear(ratios, o->resamples, 50.0 * (1.0 - o->confidence));
            out->ratio_hi = etp_percentile_linear(ratios, o->resamples, 50.0 * (1.0 + o->confidence));
            double bound = 1.0 + j->dir * o->threshold_pct / 100.0;
            uint32_t beyond = 0;
            for (uint32_t r = 0; r < o->resamples; r++)
                beyond += j->dir * (ratios[r] - bound) > 0;
            *share = (double)beyond / o->resamples;
            rc = BOOT_DONE;
        }
    }
    free(base);
    free(newv);
    free(ratios);
    return rc;
}

/* A run of flagged window points that may decide the verdict. */
typedef struct candidate {
    uint32_t from, to;    /* positions in j->idx */
    etp_regression_class verdict;
    const char *reason;
} candidate;

/* Verdict @p c, its evidence from points [from, to) (confidence: @p share
 * from the bootstrap, or < 0 for the t tail). */
static void decide(const judge *j, const candidate *c, double share, etp_regression *out)
{
    out->verdict = c->verdict;
    out->reason = c->reason;
    out->new_value = median_of(j, c->from, c->to);
    out->change_pct = (out->new_value / j->level - 1.0) * 100.0;
    out->z = j->spread > 0 ? (out->new_value - j->level) / j->spread : 0;
    double beyond = share >= 0 ? share : beyond_threshold(j, out->new_value, c->to - c->from);
    if (c->verdict == ETP_REGRESSION_OK) {
        out->confidence = 1.0 - beyond;
        out->change_index = -1;
        out->violations = 0;
    } else {
        out->confidence = beyond;
        out->change_index = j->idx[c->from];
        out->violations = c->to - c->from;
    }
}

static void insufficient(etp_regression *out, const char *why)
{
    out->verdict = ETP_REGRESSION_INSUFFICIENT_DATA;
    out->reason = why;
    out->change_index = -1;
}

static etp_status check_options(const etp_regression_options *o, etp_error *err)
{
    if (!o->window)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET, "regression window must be at least 1 run");
    if (o->min_baseline < 2)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "regression min_baseline must be at least 2 runs (a spread needs two)");
    if (o->baseline < o->min_baseline)
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "regression baseline (%u runs) is shorter than min_baseline (%u)", o->baseline,
                             o->min_baseline);
    if (!(o->threshold_pct >= 0) || !isfinite(o->threshold_pct))
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "regression threshold must be a finite percentage >= 0");
    if (!(o->z_threshold >= 0) || !isfinite(o->z_threshold))
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "regression z threshold must be a finite number >= 0");
    if (!(o->confidence > 0 && o->confidence < 1))
        return etp_error_set(err, ETP_E_USAGE, NULL, ETP_NO_OFFSET,
                             "regression confidence must be in (0, 1)");
    return ETP_OK;
}

/* Pick the newest usable points: *nb baseline + nw window into j->idx. */
static void gather(judge *j, uint32_t cap)
{
    const etp_history_series *s = j->s;
    uint32_t got = 0;
    for (uint32_t i = s->point_count; i-- > 0 && got < cap;)
        if (isfinite(s->points[i].value))
            j->idx[cap - 1 - got++] = i;
    memmove(j->idx, j->idx + (cap - got), got * sizeof *j->idx);
    j->nw = got < j->o->window ? got : j->o->window;
    j->nb = got - j->nw;
}

/* Judge the flags: a confirmed candidate run decides; none leaves ok. */
static etp_status judge_runs(judge *j, etp_regression *out, etp_error *err)
{
    uint32_t w0 = j->nb, w1 = j->nb + j->nw;
    uint8_t flag[64];
    uint8_t *flags = j->nw <= sizeof flag ? flag : malloc(j->nw);
    if (!flags)
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory judging a series");
    for (uint32_t k = w0; k < w1; k++)
        flags[k - w0] = (uint8_t)violates(j, value_at(j, k));
    /* Candidates, most telling first: the trailing run (two or more flags,
     * or the single newest point when the window is one run), then runs of
     * three or more that ended, newest first. */
    candidate cands[3];
    uint32_t nc = 0, t = 0;
    while (t < j->nw && flags[j->nw - 1 - t])
        t++;
    if (t >= 2 || (j->nw == 1 && t == 1))
        cands[nc++] = (candidate){w1 - t, w1, ETP_REGRESSION_REGRESSION,
                                  j->nw == 1 ? "the newest run is worse than the baseline beyond the "
                                               "threshold and the noise"
                                             : "two or more newest runs are worse than the baseline beyond "
                                               "the threshold and the noise"};
    for (uint32_t end = j->nw - t; end > 0 && nc < 3;) {
        uint32_t k = end;
        while (k > 0 && flags[k - 1])
            k--;
        if (end - k >= 3)
            cands[nc++] = (candidate){w0 + k, w0 + end, ETP_REGRESSION_SUSPICIOUS,
                                      "three or more consecutive runs were worse than the baseline beyond "
                                      "the threshold and the noise, then recovered"};
        end = k;
        while (end > 0 && !flags[end - 1])
            end--;
    }
    if (flags != flag)
        free(flags);
    candidate ok = {w0, w1, ETP_REGRESSION_OK,
                    "no run of points worse than the baseline beyond the threshold and the noise"};
    double ok_share = -1;
    const etp_regression before = *out;
    for (uint32_t c = 0; c < nc; c++) {
        etp_regression boot = before;
        double share = -1;
        int b = bootstrap_run(j, cands[c].from, cands[c].to, &boot, &share);
        if (b == BOOT_NOMEM)
            return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory in the bootstrap");
        int confirmed = b == BOOT_NONE || (j->dir > 0 ? boot.ratio_lo > 1.0 : boot.ratio_hi < 1.0);
        if (confirmed) {
            *out = boot;
            decide(j, &cands[c], share, out);
            return ETP_OK;
        }
        if (!out->has_interval) {
            /* The first rejected run explains the ok verdict. */
            *out = boot;
            ok.reason = "the runs worse than the baseline are inside the executions' noise (the "
                        "bootstrap interval of the ratio reaches 1)";
            ok_share = 1.0 - share;
        }
    }
    decide(j, &ok, -1, out);
    if (ok_share >= 0)
        out->confidence = ok_share;
    return ETP_OK;
}

etp_status etp_regression_classify(const etp_history_series *s, const etp_regression_options *o,
                                   etp_regression *out, etp_error *err)
{
    etp_regression_options defaults;
    if (!o) {
        etp_regression_options_init(&defaults);
        o = &defaults;
    }
    memset(out, 0, sizeof *out);
    out->change_index = -1;
    etp_status st = check_options(o, err);
    if (st)
        return st;
    uint64_t want = (uint64_t)o->window + o->baseline;
    uint32_t cap = want < s->point_count ? (uint32_t)want : s->point_count;
    judge j = {.s = s, .o = o, .dir = s->lower_is_better ? 1.0 : -1.0};
    j.idx = malloc(((size_t)cap + 1) * sizeof *j.idx);
    j.scratch = malloc(((size_t)cap + 1) * sizeof *j.scratch);
    if (!j.idx || !j.scratch) {
        free(j.idx);
        free(j.scratch);
        return etp_error_set(err, ETP_E_NOMEM, NULL, ETP_NO_OFFSET, "out of memory judging a series");
    }
    gather(&j, cap);
    out->baseline_points = j.nb;
    if (j.nw < o->window || j.nb < o->min_baseline) {
        insufficient(out, "fewer usable runs than the window and the smallest baseline need");
        goto done;
    }
    j.level = median_of(&j, 0, j.nb);
    j.spread = successive_spread(&j);
    out->baseline_value = j.level;
    out->baseline_spread = j.spread;
    if (!(j.level > 0)) {
        candidate all = {j.nb, j.nb + j.nw, ETP_REGRESSION_OK, "baseline and window are all zero"};
        int zero = j.level == 0 && j.spread == 0;
        for (uint32_t k = all.from; zero && k < all.to; k++)
            zero = value_at(&j, k) == 0;
        if (zero) {
            out->verdict = ETP_REGRESSION_OK;
            out->reason = all.reason;
            out->confidence = 1.0;
        } else {
            insufficient(out, "the baseline's median is not positive: a relative change is undefined");
        }
        goto done;
    }
    /* The critical value: z_threshold's one-sided tail under Student's t
     * with the noise estimate's degrees of freedom (von Neumann's estimate
     * has about two thirds of a standard deviation's), widened for the
     * uncertainty of the baseline's median. */
    j.nu = 2.0 * (j.nb - 1.0) * (j.nb - 1.0) / (3.0 * j.nb - 4.0);
    if (!(j.nu >= 1.0))
        j.nu = 1.0;
    j.crit = o->z_threshold > 0
                 ? etp_student_t_quantile(etp_normal_cdf(o->z_threshold), j.nu) *
                       sqrt(1.0 + M_PI / (2.0 * j.nb))
                 : 0;
    if (!isfinite(j.crit))
        j.crit = HUGE_VAL; /* a tail too small to resolve: nothing is beyond it */
    st = judge_runs(&j, out, err);
    out->baseline_points = j.nb;
    out->baseline_value = j.level;
    out->baseline_spread = j.spread;
done:
    free(j.idx);
    free(j.scratch);
    return st;
}
