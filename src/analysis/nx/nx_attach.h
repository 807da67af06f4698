/* nx_attach.h - the VGF NX cycles step of an analysis (nx_attach.c). */
#ifndef ETP_NX_ATTACH_H
#define ETP_NX_ATTACH_H

#include "etprof/analysis.h"
#include "etprof/nx_stats.h"

/* Decode and aggregate the dump's VGF_NEURAL_STATISTICS into a->nx (left
 * NULL when there are none) and copy its issues into a->issues. A decoder
 * failure fails the analysis (no fallback to runtime timing). */
etp_status etp_nx_attach(etp_analysis *a, const etp_etdump *d, const etp_nx_options *o, etp_error *err);

#endif
