/* hist_v3.h - a metric of a stored run as one record of PyTorch's OSS
 * benchmark database (benchmark.oss_ci_benchmark_v3). */
#ifndef ETP_HIST_V3_H
#define ETP_HIST_V3_H

#include "etprof/history.h"
#include "util/jsonw.h"

/* Write the record of metric @p m of run @p r as one JSON object. */
void hist_v3_record(etp_jw *w, const etp_history_run *r, const etp_history_metric *m);

#endif
