/* inspect_report.h - `etprof inspect` output: a terminal table or JSON. */
#ifndef ETP_INSPECT_REPORT_H
#define ETP_INSPECT_REPORT_H

#include <stdio.h>

#include "etprof/inspect.h"

/* Plain-text tables, one per block. */
void etp_inspect_write_text(const etp_inspect *in, const etp_etdump *d, const etp_program *p,
                            FILE *fp);
/* One JSON document (schema "etprof.inspect" v1); @p raw adds every sample.
 * Returns 0, -1 on write error. */
int etp_inspect_write_json(const etp_inspect *in, const etp_etdump *d, const etp_program *p,
                           int raw, FILE *fp);

#endif
