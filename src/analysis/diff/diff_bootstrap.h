/* diff_bootstrap.h - the diff's percentile bootstrap of a ratio of
 * statistics (algorithm in etprof/diff.h), shared with the run history's
 * regression rules (analysis/history/regress.c) so that both draw the same
 * resamples from the same seed. */
#ifndef ETP_DIFF_BOOTSTRAP_H
#define ETP_DIFF_BOOTSTRAP_H

#include <stdint.h>

#include "etprof/diff.h"

/* The @p resamples ratios stat(new resample) / stat(base resample), sorted
 * ascending, into @p ratios (room for @p resamples): 0; -1 when they cannot
 * be formed (fewer than 2 values a side, no resamples, or a resample whose
 * base statistic is not positive), -2 when out of memory. */
int etp_diff_bootstrap_ratios(const double *base, uint32_t nb, const double *newv, uint32_t nn,
                              etp_diff_statistic st, uint32_t resamples, uint64_t seed,
                              double *ratios);
/* Its percentile interval at @p confidence: 0 and the bounds in *lo, *hi;
 * -1 or -2 as etp_diff_bootstrap_ratios. */
int etp_diff_bootstrap(const double *base, uint32_t nb, const double *newv, uint32_t nn,
                       etp_diff_statistic st, uint32_t resamples, double confidence,
                       uint64_t seed, double *lo, double *hi);
/* The statistic of @p n values (reordered in place for the median). */
double etp_diff_stat_of(double *v, uint32_t n, etp_diff_statistic st);

#endif
