/* test_regress.c - the regression rules of a run history
 * (etp_regression_classify) on series built in memory: every verdict, a
 * step, a slow creep, noisy flat series at several noise levels (no false
 * regression), outliers, NaN / zero / constant baselines, values exactly at
 * the threshold, the smallest sizes, higher-is-better series, per-execution
 * samples (the diff's bootstrap, reproduced here from its documented seed),
 * and the same verdict for the same seed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/diff/diff_bootstrap.h"
#include "analysis/history/student_t.h"
#include "etprof/history.h"
#include "etprof/stats.h"
#include "gen/gen_series.h"
#include "util/hashmap.h"
#include "testutil.h"

static const etp_history_label DEVICE[] = {{"device", "pixel7"}};

static gen_series_spec spec(uint32_t points, double noise_pct, uint64_t seed)
{
    gen_series_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.group_count = 1;
    sp.group = DEVICE;
    sp.points = points;
    sp.level = 20.0;
    sp.noise_pct = noise_pct;
    sp.seed = seed;
    return sp;
}

/* Classify one generated series under @p o (NULL: defaults). */
static etp_regression judge(const gen_series_spec *sp, const etp_regression_options *o)
{
    gen_history h;
    gen_history_init(&h);
    assert_true(gen_history_add(&h, sp) == 0);
    uint32_t n;
    etp_history_series *s = gen_history_all(&h, &n);
    etp_regression r;
    etp_error err;
    assert_int_equal(etp_regression_classify(s, o, &r, &err), ETP_OK);
    assert_non_null(r.reason);
    gen_history_free(&h);
    return r;
}

/* A series from literal values (no samples). */
static etp_regression judge_values(const double *v, uint32_t n, int lower_is_better,
                                   const etp_regression_options *o)
{
    etp_history_point *p = calloc(n + 1, sizeof *p);
    assert_non_null(p);
    for (uint32_t i = 0; i < n; i++) {
        p[i].run = i + 1;
        p[i].order = i;
        p[i].value = v[i];
    }
    etp_history_series s = {.key = "k", .metric = "m.avg", .unit = "ms", .lower_is_better = lower_is_better,
                            .point_count = n, .points = p};
    etp_regression r;
    etp_error err;
    assert_int_equal(etp_regression_classify(&s, o, &r, &err), ETP_OK);
    assert_non_null(r.reason);
    free(p);
    return r;
}

static void test_names_and_options(void **state)
{
    (void)state;
    assert_string_equal(etp_regression_class_name(ETP_REGRESSION_OK), "ok");
    assert_string_equal(etp_regression_class_name(ETP_REGRESSION_REGRESSION), "regression");
    assert_string_equal(etp_regression_class_name(ETP_REGRESSION_SUSPICIOUS), "suspicious");
    assert_string_equal(etp_regression_class_name(ETP_REGRESSION_INSUFFICIENT_DATA), "insufficient_data");
    etp_regression_options o;
    etp_regression_options_init(&o);
    assert_int_equal(o.window, 5);
    assert_int_equal(o.baseline, 20);
    assert_int_equal(o.min_baseline, 5);
    assert_true(o.threshold_pct == 5.0 && o.z_threshold == 3.0 && o.confidence == 0.95);
    assert_int_equal(o.resamples, 2000);

    double v[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    etp_history_point p[12];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 12; i++)
        p[i].value = v[i];
    etp_history_series s = {.key = "k", .metric = "m", .lower_is_better = 1, .point_count = 12, .points = p};
    etp_regression r;
    etp_error err;
    etp_regression_options b;
    b = o, b.window = 0;
    assert_int_equal(etp_regression_classify(&s, &b, &r, &err), ETP_E_USAGE);
    assert_non_null(strstr(err.message, "window"));
    b = o, b.min_baseline = 1;
    assert_int_equal(etp_regression_classify(&s, &b, &r, &err), ETP_E_USAGE);
    b = o, b.baseline = 4;
    assert_int_equal(etp_regression_classify(&s, &b, &r, &err), ETP_E_USAGE);
    assert_non_null(strstr(err.message, "min_baseline"));
    b = o, b.threshold_pct = -1;
    assert_int_equal(etp_regression_classify(&s, &b, &r, &err), ETP_E_USAGE);
    b = o, b.threshold_pct = NAN;
    assert_int_equal(etp_regression_classify(&s, &b, &r, &err), ETP_E_USAGE);
    b = o, b.z_threshold = INFINITY;
    assert_int_equal(etp_regression_classify(&s, &b, &r, &err), ETP_E_USAGE);
    b = o, b.confidence = 1.0;
    assert_int_equal(etp_regression_classify(&s, &b, &r, &err), ETP_E_USAGE);
    b = o, b.confidence = 0;
    assert_int_equal(etp_regression_classify(&s, &b, &r, &err), ETP_E_USAGE);
    /* NULL options: the defaults. */
    assert_int_equal(etp_regression_classify(&s, NULL, &r, &err), ETP_OK);
    assert_int_equal(r.verdict, ETP_REGRESSION_OK);
}

/* The t distribution the critical values come from, at points known from
 * tables (two-sided 95% for 1, 5, 30 df; the normal's 97.5%). */
static void test_student_t(void **state)
{
    (void)state;
    assert_true(fabs(etp_student_t_quantile(0.975, 1) - 12.706204736) < 1e-6);
    assert_true(fabs(etp_student_t_quantile(0.975, 5) - 2.570581836) < 1e-6);
    assert_true(fabs(etp_student_t_quantile(0.975, 30) - 2.042272456) < 1e-6);
    assert_true(fabs(etp_student_t_quantile(0.975, 1e6) - 1.959966) < 1e-4);
    assert_true(fabs(etp_student_t_quantile(0.025, 5) + 2.570581836) < 1e-6);
    assert_true(fabs(etp_student_t_cdf(2.570581836, 5) - 0.975) < 1e-9);
    assert_true(fabs(etp_student_t_cdf(0, 3.5) - 0.5) < 1e-12);
    assert_true(fabs(etp_normal_cdf(1.959963985) - 0.975) < 1e-9);
    /* Fractional degrees of freedom and a far tail (z = 3 under 1.33 df;
     * scipy.stats.t.ppf(norm.cdf(3), 4/3) = 64.77093626). */
    double q = etp_student_t_quantile(etp_normal_cdf(3.0), 4.0 / 3.0);
    assert_true(fabs(q - 64.77093626) < 1e-6);
    assert_true(fabs(etp_student_t_cdf(q, 4.0 / 3.0) - etp_normal_cdf(3.0)) < 1e-10);
    assert_true(isnan(etp_student_t_quantile(1.0, 3)) && isnan(etp_student_t_cdf(NAN, 3)));
}

static void test_step_is_regression(void **state)
{
    (void)state;
    gen_series_spec sp = spec(40, 1.0, 7);
    sp.step_at = 37;
    sp.step_factor = 1.20;
    etp_regression r = judge(&sp, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    assert_int_equal(r.change_index, 37);
    assert_int_equal(r.violations, 3);
    assert_int_equal(r.baseline_points, 20);
    assert_true(r.change_pct > 15 && r.change_pct < 25);
    assert_true(r.z > 5);
    assert_true(r.confidence > 0.99);
    assert_false(r.has_interval);
    assert_true(fabs(r.baseline_value - 20.0) < 0.5);
    assert_true(r.baseline_spread > 0.05 && r.baseline_spread < 0.5);

    /* Two stepped points are enough; one is not (an isolated newest point). */
    sp.step_at = 38;
    r = judge(&sp, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    assert_int_equal(r.change_index, 38);
    sp.step_at = 39;
    r = judge(&sp, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_OK);
    assert_int_equal(r.change_index, -1);

    /* An improvement is not a regression. */
    sp.step_at = 37;
    sp.step_factor = 0.7;
    r = judge(&sp, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_OK);
    assert_true(r.change_pct < -25);
    assert_true(r.confidence > 0.99);

    /* Higher is better (a throughput): the drop is the regression, its
     * change negative. */
    sp.higher_is_better = 1;
    r = judge(&sp, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    assert_int_equal(r.change_index, 37);
    assert_true(r.change_pct < -25);
    sp.step_factor = 1.3;
    assert_int_equal(judge(&sp, NULL).verdict, ETP_REGRESSION_OK);
}

static void test_suspicious(void **state)
{
    (void)state;
    /* Three bad runs inside the window, then two good ones: an episode
     * that ended. With two good runs after two bad ones: nothing. */
    double v[30];
    for (int i = 0; i < 30; i++)
        v[i] = 10.0 + 0.1 * ((i * 7) % 5);
    v[25] = v[26] = v[27] = 13.0;
    etp_regression r = judge_values(v, 30, 1, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_SUSPICIOUS);
    assert_int_equal(r.change_index, 25);
    assert_int_equal(r.violations, 3);
    assert_true(r.change_pct > 20);
    v[27] = 10.1;
    assert_int_equal(judge_values(v, 30, 1, NULL).verdict, ETP_REGRESSION_OK);
    /* The same episode reaching the end is a regression. */
    v[27] = v[28] = v[29] = 13.0;
    r = judge_values(v, 30, 1, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    assert_int_equal(r.change_index, 25);
    assert_int_equal(r.violations, 5);
    /* A window of 3 cannot hold a run of three that ended. */
    etp_regression_options o;
    etp_regression_options_init(&o);
    o.window = 3;
    v[28] = v[29] = 10.1;
    v[25] = v[26] = v[27] = 10.1;
    v[26] = v[27] = 13.0;
    assert_int_equal(judge_values(v, 30, 1, &o).verdict, ETP_REGRESSION_OK);
}

/* A creep of 1% of the level per run, starting after 10 flat runs: the
 * rules find it once the newest runs stand more than the threshold above the
 * median of the 20 before them; the change point is where that first holds,
 * not where the creep began. Half a percent per run is found too; a quarter
 * percent per run (the window 5 runs above a baseline whose median lags it
 * by about 12 runs: about 3%) stays under the 5% threshold. */
static void test_slow_creep(void **state)
{
    (void)state;
    double v[30];
    for (int pct = 4; pct >= 1; pct /= 2) {
        for (int i = 0; i < 30; i++)
            v[i] = 100.0 * (1.0 + (i < 10 ? 0 : (i - 10) * pct / 400.0)) * (1.0 + 0.003 * ((i * 13) % 7 - 3));
        etp_regression r = judge_values(v, 30, 1, NULL);
        if (pct >= 2) {
            assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
            assert_true(r.change_index >= 25);
            assert_true(r.change_pct > 5);
        } else {
            assert_int_equal(r.verdict, ETP_REGRESSION_OK);
            assert_true(r.change_pct > 1 && r.change_pct < 5);
        }
    }
    /* The same 1%-per-run creep judged with a standard deviation for noise
     * would hide (the trend inflates it): successive differences keep the
     * noise estimate near the true 0.3% here. */
    for (int i = 0; i < 30; i++)
        v[i] = 100.0 * (1.0 + (i < 10 ? 0 : (i - 10) * 0.01)) * (1.0 + 0.003 * ((i * 13) % 7 - 3));
    etp_regression r = judge_values(v, 30, 1, NULL);
    assert_true(r.baseline_spread < 1.0);
}

/* Flat series at noise levels from 0.5% to 30% of the level, 200 seeds
 * each, normal noise and (at 2%) noise with 3% of runs 1.6x: no
 * regression and no suspicious episode. */
static void test_noisy_flat_series(void **state)
{
    (void)state;
    const double noise[] = {0.5, 1, 2, 5, 10, 20, 30};
    uint32_t ok = 0, total = 0;
    for (size_t k = 0; k < sizeof noise / sizeof noise[0]; k++)
        for (uint64_t seed = 1; seed <= 200; seed++) {
            gen_series_spec sp = spec(60, noise[k], seed * 1000 + k);
            etp_regression r = judge(&sp, NULL);
            if (r.verdict != ETP_REGRESSION_OK)
                fail_msg("noise %g%% seed %llu: %s (change %g%%, z %g)", noise[k], (unsigned long long)seed,
                         etp_regression_class_name(r.verdict), r.change_pct, r.z);
            ok++;
            total++;
        }
    assert_int_equal(ok, total);
    /* The same series are not blind: a 3x noise step shows. */
    for (size_t k = 0; k < 4; k++) {
        gen_series_spec sp = spec(60, noise[k], 99 + k);
        sp.step_at = 56;
        sp.step_factor = 1.0 + 0.06 + 0.08 * noise[k];
        assert_int_equal(judge(&sp, NULL).verdict, ETP_REGRESSION_REGRESSION);
    }
}

static void test_outliers(void **state)
{
    (void)state;
    double v[30];
    for (int i = 0; i < 30; i++)
        v[i] = 50.0 + 0.2 * ((i * 5) % 3);
    /* The newest run alone, three times slower: one violation, ok. */
    v[29] = 150;
    etp_regression r = judge_values(v, 30, 1, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_OK);
    /* In the middle of the window: ok. */
    v[29] = 50.2;
    v[27] = 150;
    assert_int_equal(judge_values(v, 30, 1, NULL).verdict, ETP_REGRESSION_OK);
    /* In the baseline: the median does not move; the noise estimate grows
     * (an outlier is evidence of noise), so a 10% step is not called on
     * this baseline while it holds the outlier, and is once it does not. */
    v[27] = 50.2;
    v[15] = 150;
    for (int i = 27; i < 30; i++)
        v[i] *= 1.10;
    r = judge_values(v, 30, 1, NULL);
    assert_true(fabs(r.baseline_value - 50.2) < 0.3);
    assert_int_equal(r.verdict, ETP_REGRESSION_OK);
    v[15] = 50.2;
    assert_int_equal(judge_values(v, 30, 1, NULL).verdict, ETP_REGRESSION_REGRESSION);
}

static void test_nan_zero_constant(void **state)
{
    (void)state;
    double v[30];
    /* A constant baseline: no noise, the threshold alone decides. */
    for (int i = 0; i < 30; i++)
        v[i] = 4096;
    etp_regression r = judge_values(v, 30, 1, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_OK);
    assert_true(r.baseline_spread == 0 && r.z == 0 && r.confidence == 1.0);
    v[28] = v[29] = 4096 * 1.04;
    assert_int_equal(judge_values(v, 30, 1, NULL).verdict, ETP_REGRESSION_OK);
    v[28] = v[29] = 4096 * 1.06;
    r = judge_values(v, 30, 1, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    assert_int_equal(r.change_index, 28);
    assert_true(r.z == 0 && r.confidence == 1.0);
    /* Exactly at the threshold is not over it (105 against 100 at 5%). */
    for (int i = 0; i < 30; i++)
        v[i] = 100;
    v[28] = v[29] = 105;
    assert_int_equal(judge_values(v, 30, 1, NULL).verdict, ETP_REGRESSION_OK);
    v[29] = 105.0001;
    v[28] = 105.0001;
    assert_int_equal(judge_values(v, 30, 1, NULL).verdict, ETP_REGRESSION_REGRESSION);

    /* NaN and infinite values are not usable points: they are skipped, the
     * change index still points into the series as given. */
    for (int i = 0; i < 30; i++)
        v[i] = 100 + (i % 3);
    v[26] = NAN;
    v[29] = INFINITY;
    v[27] = v[28] = 130;
    r = judge_values(v, 30, 1, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    assert_int_equal(r.change_index, 27);
    assert_int_equal(r.violations, 2);
    assert_int_equal(r.baseline_points, 20);
    /* Too few usable points once NaNs are left out. */
    double few[10] = {1, 1, NAN, 1, 1, 1, 1, 1, 1, 1};
    r = judge_values(few, 10, 1, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_INSUFFICIENT_DATA);
    assert_int_equal(r.change_index, -1);

    /* A zero baseline: all zero is ok; a value appearing over zero cannot be
     * put in percent. */
    for (int i = 0; i < 30; i++)
        v[i] = 0;
    r = judge_values(v, 30, 1, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_OK);
    v[29] = 3;
    r = judge_values(v, 30, 1, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_INSUFFICIENT_DATA);
    assert_non_null(strstr(r.reason, "not positive"));
    /* A negative median (not a time, but untrusted input): the same. */
    for (int i = 0; i < 30; i++)
        v[i] = -5;
    assert_int_equal(judge_values(v, 30, 1, NULL).verdict, ETP_REGRESSION_INSUFFICIENT_DATA);
}

static void test_minimum_sizes(void **state)
{
    (void)state;
    etp_regression_options o;
    etp_regression_options_init(&o);
    double v[40];
    for (int i = 0; i < 40; i++)
        v[i] = 10 + 0.05 * (i % 4);
    /* window 5 + min_baseline 5 = 10 points: judged; 9: insufficient. */
    v[8] = v[9] = 14;
    etp_regression r = judge_values(v, 10, 1, &o);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    assert_int_equal(r.baseline_points, 5);
    r = judge_values(v + 1, 9, 1, &o);
    assert_int_equal(r.verdict, ETP_REGRESSION_INSUFFICIENT_DATA);
    assert_int_equal(r.baseline_points, 4);
    assert_true(judge_values(v, 0, 1, &o).verdict == ETP_REGRESSION_INSUFFICIENT_DATA);
    /* The baseline grows to `baseline` points, not further. */
    v[8] = v[9] = 10;
    r = judge_values(v, 40, 1, &o);
    assert_int_equal(r.baseline_points, 20);
    /* A window of one: the newest point alone decides. */
    o.window = 1;
    v[39] = 14;
    r = judge_values(v, 40, 1, &o);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    assert_int_equal(r.change_index, 39);
    assert_int_equal(r.violations, 1);
    /* Short baselines need larger deviations: the same 3-sigma point that
     * a 20-run baseline flags is inside the noise of a 5-run one. */
    etp_regression_options_init(&o);
    double w[25];
    for (int i = 0; i < 25; i++)
        w[i] = 100 + ((i % 2) ? 1.0 : -1.0);
    w[23] = w[24] = 100 * 1.06 + 6.0;
    assert_int_equal(judge_values(w, 25, 1, &o).verdict, ETP_REGRESSION_REGRESSION);
    assert_int_equal(judge_values(w + 15, 10, 1, &o).verdict, ETP_REGRESSION_OK);
}

/* Ties: quantised values (a timer with a coarse tick: most values equal)
 * and points published in the same millisecond. */
static void test_ties(void **state)
{
    (void)state;
    double v[30];
    for (int i = 0; i < 30; i++)
        v[i] = (i % 3 == 0) ? 10.1 : 10.0;
    etp_regression r = judge_values(v, 30, 1, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_OK);
    assert_true(r.baseline_value == 10.0 && r.baseline_spread > 0);
    /* Every window value tied at the baseline's highest value: still ok. */
    for (int i = 25; i < 30; i++)
        v[i] = 10.1;
    assert_int_equal(judge_values(v, 30, 1, NULL).verdict, ETP_REGRESSION_OK);
    v[28] = v[29] = 10.8;
    assert_int_equal(judge_values(v, 30, 1, NULL).verdict, ETP_REGRESSION_REGRESSION);

    /* The same points with every order tied: the same verdict, field for
     * field (the rules take the points in the order given). */
    gen_series_spec sp = spec(30, 1.0, 5);
    sp.step_at = 27;
    sp.step_factor = 1.2;
    gen_history h;
    gen_history_init(&h);
    assert_true(gen_history_add(&h, &sp) == 0);
    uint32_t n;
    etp_history_series *s = gen_history_all(&h, &n);
    etp_regression a, b;
    etp_error err;
    assert_int_equal(etp_regression_classify(s, NULL, &a, &err), ETP_OK);
    for (uint32_t i = 0; i < s->point_count; i++) {
        s->points[i].order = 1.0;
        s->points[i].published_ms = 1735689600000;
    }
    assert_int_equal(etp_regression_classify(s, NULL, &b, &err), ETP_OK);
    assert_int_equal(a.verdict, ETP_REGRESSION_REGRESSION);
    assert_int_equal(b.verdict, a.verdict);
    assert_true(a.change_index == b.change_index && a.new_value == b.new_value && a.z == b.z &&
                a.confidence == b.confidence && a.baseline_spread == b.baseline_spread);
    gen_history_free(&h);
}

/* Per-execution samples: a step far outside the executions' noise is
 * confirmed by the bootstrap (interval above 1); a step the run-to-run rule
 * flags but that is inside a wide execution noise is not. */
static void test_samples_bootstrap(void **state)
{
    (void)state;
    gen_series_spec sp = spec(30, 0.5, 11);
    sp.executions = 20;
    sp.execution_noise_pct = 1.0;
    sp.step_at = 27;
    sp.step_factor = 1.15;
    etp_regression r = judge(&sp, NULL);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    assert_true(r.has_interval);
    assert_true(r.ratio_lo > 1.10 && r.ratio_hi < 1.20 && r.ratio_lo < r.ratio_hi);
    assert_true(r.confidence > 0.99);

    /* The interval is the diff's bootstrap of the pooled executions (the
     * run's three points against the 5 baseline points before the window),
     * with the seed XOR the series' key and metric hashes (as documented). */
    gen_history h;
    gen_history_init(&h);
    assert_true(gen_history_add(&h, &sp) == 0);
    uint32_t n;
    etp_history_series *s = gen_history_all(&h, &n);
    double base[5 * 20], newv[3 * 20];
    for (int i = 0; i < 5; i++)
        memcpy(base + 20 * i, s->points[20 + i].execution_values, 20 * sizeof(double));
    for (int i = 0; i < 3; i++)
        memcpy(newv + 20 * i, s->points[27 + i].execution_values, 20 * sizeof(double));
    etp_regression_options o;
    etp_regression_options_init(&o);
    uint64_t seed = o.seed ^ etp_hash_bytes(s->key, strlen(s->key),
                                            etp_hash_bytes(s->metric, strlen(s->metric), 0));
    double lo, hi;
    assert_int_equal(etp_diff_bootstrap(base, 100, newv, 60, ETP_DIFF_STAT_AVG, o.resamples, o.confidence,
                                        seed, &lo, &hi),
                     0);
    assert_true(lo == r.ratio_lo && hi == r.ratio_hi);

    /* Determinism: the same seed, the same bytes of verdict; another seed,
     * the same verdict with an interval that may move a little. */
    etp_regression again;
    etp_error err;
    assert_int_equal(etp_regression_classify(s, &o, &again, &err), ETP_OK);
    assert_true(again.ratio_lo == r.ratio_lo && again.ratio_hi == r.ratio_hi &&
                again.confidence == r.confidence && again.change_index == r.change_index &&
                again.new_value == r.new_value && again.reason == r.reason);
    o.seed = 12345;
    assert_int_equal(etp_regression_classify(s, &o, &again, &err), ETP_OK);
    assert_int_equal(again.verdict, ETP_REGRESSION_REGRESSION);
    assert_true(fabs(again.ratio_lo - r.ratio_lo) < 0.01);
    /* No resamples: no interval, the run-to-run rule alone. */
    o.resamples = 0;
    assert_int_equal(etp_regression_classify(s, &o, &again, &err), ETP_OK);
    assert_int_equal(again.verdict, ETP_REGRESSION_REGRESSION);
    assert_false(again.has_interval);
    gen_history_free(&h);

    /* Run-to-run the step stands out (runs are steady), but each run's 3
     * executions scatter by 30%: the pooled bootstrap reaches 1, so the
     * step is inside the executions' noise. */
    sp = spec(30, 0.3, 12);
    sp.executions = 3;
    sp.execution_noise_pct = 30;
    sp.step_at = 28;
    sp.step_factor = 1.08;
    gen_history_init(&h);
    assert_true(gen_history_add(&h, &sp) == 0);
    s = gen_history_all(&h, &n);
    /* Steady runs: the points are the stepped level, not their noisy
     * executions' mean. */
    for (uint32_t i = 0; i < s->point_count; i++)
        s->points[i].value = 20.0 * (i >= 28 ? 1.08 : 1.0) * (1.0 + 0.002 * (i % 3));
    etp_regression_options_init(&o);
    assert_int_equal(etp_regression_classify(s, &o, &r, &err), ETP_OK);
    assert_int_equal(r.verdict, ETP_REGRESSION_OK);
    assert_true(r.has_interval);
    assert_true(r.ratio_lo <= 1.0);
    assert_non_null(strstr(r.reason, "executions' noise"));
    assert_int_equal(r.change_index, -1);
    o.resamples = 0;
    assert_int_equal(etp_regression_classify(s, &o, &r, &err), ETP_OK);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    /* A point without samples among those the bootstrap draws from: no
     * bootstrap; one outside them (an older baseline point) does not matter. */
    o.resamples = 2000;
    s->points[10].sample_count = 0;
    assert_int_equal(etp_regression_classify(s, &o, &r, &err), ETP_OK);
    assert_int_equal(r.verdict, ETP_REGRESSION_OK);
    assert_true(r.has_interval);
    s->points[22].sample_count = 0;
    assert_int_equal(etp_regression_classify(s, &o, &r, &err), ETP_OK);
    assert_int_equal(r.verdict, ETP_REGRESSION_REGRESSION);
    assert_false(r.has_interval);
    gen_history_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_options),
        cmocka_unit_test(test_student_t),
        cmocka_unit_test(test_step_is_regression),
        cmocka_unit_test(test_suspicious),
        cmocka_unit_test(test_slow_creep),
        cmocka_unit_test(test_noisy_flat_series),
        cmocka_unit_test(test_outliers),
        cmocka_unit_test(test_nan_zero_constant),
        cmocka_unit_test(test_minimum_sizes),
        cmocka_unit_test(test_ties),
        cmocka_unit_test(test_samples_bootstrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
