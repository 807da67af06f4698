/* gen_series.h - run-history series made in memory (for the regression
 * rules' tests, the trend page's test and the benchmarks): a level, run-to-run
 * noise, a step, a creep, outliers and per-execution samples, each point
 * labelled like a CI run (branch, commit, device, seq, the group's labels).
 *
 * Pure functions of the spec (splitmix64 streams, no libm in the values), so
 * a test can assert verdicts on them. Not thread-safe: one gen_history per
 * thread. */
#ifndef ETP_GEN_SERIES_H
#define ETP_GEN_SERIES_H

#include <stdint.h>

#include "etprof/history.h"
#include "gen/gen_util.h"

/* What one series looks like; zero fields mean "none" (no noise, no step,
 * ...). Points are numbered from 0. */
typedef struct gen_series_spec {
    const char *key;            /* series key (copied); NULL: made from the group */
    const char *metric;         /* default "method_execute.avg" */
    const char *unit;           /* default "ms" */
    uint32_t group_count;
    const etp_history_label *group; /* e.g. device=pixel7 (copied; every point gets them too) */
    int higher_is_better;       /* 0: lower is better (times) */
    uint32_t points;
    double level;               /* the value before any change (default 10) */
    double noise_pct;           /* run-to-run noise: normal, sigma in % of level */
    double creep_pct;           /* added per point, % of level */
    uint32_t step_at;           /* first point of a step (with step_factor != 0) */
    double step_factor;         /* values from step_at on are multiplied by it */
    double spike_rate;          /* share of points multiplied by spike_factor */
    double spike_factor;
    uint32_t executions;        /* per-execution samples per point (0: none) */
    double execution_noise_pct; /* their noise around the point's value, % */
    int64_t start_ms;           /* publication time of point 0 (default 2025-01-01) */
    int64_t every_ms;           /* between points (default one hour) */
    int64_t first_run;          /* store run id of point 0 (default 1) */
    uint64_t seed;
} gen_series_spec;

/* Series and everything they point to, freed together. */
typedef struct gen_history {
    gen_arena arena;
    gen_vec series;             /* etp_history_series */
} gen_history;

void gen_history_init(gen_history *h);
/* Append a series made from @p sp: its index, or -1 when out of memory
 * (earlier series stay). Pointers into h->series move on the next add. */
int64_t gen_history_add(gen_history *h, const gen_series_spec *sp);
/* The series made so far (valid until the next add). */
etp_history_series *gen_history_all(gen_history *h, uint32_t *count);
void gen_history_free(gen_history *h);

/* Approximately standard normal: the sum of twelve uniforms minus 6 (tails
 * to +-6 sigma; no libm, the same bits everywhere). */
double gen_normal(gen_rng *r);

#endif
