/*
 * etprof/stats.h - summary statistics of duration samples.
 *
 * Samples are integer tick durations; statistics are reported in a target
 * unit (value = ticks / divisor). Percentiles use linear interpolation
 * between closest ranks exactly as numpy's default percentile does, so
 * results can be checked against the Python Inspector.
 *
 * The functions keep no state and allocate nothing the caller must free:
 * they are safe from any thread on distinct sample arrays (the ticks and
 * values functions reorder the array they are given).
 */
#ifndef ETPROF_STATS_H
#define ETPROF_STATS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etp_stats {
    uint64_t n;     /**< number of samples (0: all other fields are 0 and meaningless) */
    double sum;     /**< total of all samples */
    double avg;     /**< arithmetic mean, from the exact integer total */
    double p10, p50, p90;
    double min, max;
} etp_stats;

/**
 * Compute statistics of @p n tick samples. @p ticks is reordered in place
 * (pass a copy to keep the original order). Values are divided by
 * @p divisor (> 0).
 */
void etp_stats_from_ticks(uint64_t *ticks, size_t n, double divisor, etp_stats *out);

/**
 * Same for signed samples (e.g. differences that can be negative), already
 * in ticks. @p values is sorted in place.
 */
void etp_stats_from_signed(int64_t *values, size_t n, double divisor, etp_stats *out);

/**
 * numpy-compatible linear percentile of @p n ascending @p sorted values,
 * @p q in [0, 100].
 */
double etp_percentile_linear(const double *sorted, size_t n, double q);

#ifdef __cplusplus
}
#endif
#endif
