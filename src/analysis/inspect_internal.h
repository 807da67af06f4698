/* inspect_internal.h - steps of etp_inspect_run() that live in their own files. */
#ifndef ETP_INSPECT_INTERNAL_H
#define ETP_INSPECT_INTERNAL_H

#include "etprof/inspect.h"

/* Select each block's method and name its instruction rows (inspect_program.c). */
etp_status etp_inspect_attach_program(etp_inspect *res, const etp_etdump *d, const etp_program *p,
                                      const char *method, int lenient, etp_error *err);

/* Per-execution totals of one block (block_summary.c). */
etp_status etp_inspect_summarize(etp_inspect *res, etp_inspect_block *blk, etp_error *err);

#endif
