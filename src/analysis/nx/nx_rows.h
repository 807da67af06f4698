/* nx_rows.h - the operators table's VGF NX rows of an analysis (nx_rows.c). */
#ifndef ETP_NX_ROWS_H
#define ETP_NX_ROWS_H

#include "etprof/analysis.h"
#include "etprof/nx_stats.h"

/* The operators table's kind of an NX row of group kind @p k ("nx_segment",
 * "nx_cascade", "nx_chain"); NULL for the kinds that have no row (the model,
 * stripes). */
const char *etp_nx_row_kind_name(etp_nx_kind k);

/* a->nx_rows from a->nx (nothing when a->nx is NULL). Call after the
 * entities are handed to @p a (the rows name their instruction's backend).
 * On failure the rows built so far stay for etp_nx_rows_free(). */
etp_status etp_nx_rows_build(etp_analysis *a, etp_error *err);
void etp_nx_rows_free(etp_analysis *a);

#endif
