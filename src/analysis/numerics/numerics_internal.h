/* numerics_internal.h - the parts of a tensor set's building that live in
 * their own files (analysis/numerics/). */
#ifndef ETP_NUMERICS_INTERNAL_H
#define ETP_NUMERICS_INTERNAL_H

#include "etprof/tensors.h"

struct etp_analysis;

/* Fill @p s->bundled: the bundled program's expected outputs of the test
 * case that ran against the outputs @p s holds (bundled_check.c). */
etp_status etp_bundled_check_run(const struct etp_analysis *a, etp_tensor_set *s, const etp_tensors_options *o,
                                 etp_error *err);

struct etp_analysis_options;

/* The analysis' part: read @p a's logged values from the options' debug
 * buffer bytes into a->tensors and record what the bundled check and the
 * decoding found as issues (tensor_issues.c). */
etp_status etp_read_tensors(struct etp_analysis *a, const struct etp_analysis_options *opt, etp_error *err);

#endif
