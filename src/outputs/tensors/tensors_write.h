/* tensors_write.h - a run's logged tensors as CSV, JSON and a terminal
 * table (`etprof tensors`, detailed/tensors.csv), every value through the
 * column table of etprof/tensor_columns.h. */
#ifndef ETP_TENSORS_WRITE_H
#define ETP_TENSORS_WRITE_H

#include <stdio.h>

#include "etprof/analysis.h"
#include "etprof/tensors.h"
#include "util/csvw.h"
#include "util/jsonw.h"

/* Every column of every logged value, a header row first. */
void etp_tensors_csv(etp_csvw *w, const etp_tensor_set *s);
/* The etprof.tensors document: inputs, counts, the columns with their
 * units, the bundled check, and each value with its first @p values
 * elements ("values", in storage order; 0: none). */
void etp_tensors_json(etp_jw *w, const etp_analysis *a, const etp_tensor_set *s, uint64_t values);
/* The bundled check as a JSON object (also in summary.json). */
void etp_bundled_check_json(etp_jw *w, const etp_bundled_check *c);
/* A terminal table, and the bundled check's verdict. */
void etp_tensors_text(FILE *fp, const etp_tensor_set *s, uint64_t values);

#endif
