/* inspect_internal.h - steps of etp_inspect_run() that live in their own files. */
#ifndef ETP_INSPECT_INTERNAL_H
#define ETP_INSPECT_INTERNAL_H

#include "etprof/inspect.h"

/* Select each block's method and name its instruction rows (inspect_program.c). */
etp_status etp_inspect_attach_program(etp_inspect *res, const etp_etdump *d, const etp_program *p,
                                      const char *method, int lenient, etp_error *err);

/* Per-execution totals of one block (block_summary.c). */
etp_status etp_inspect_summarize(etp_inspect *res, etp_inspect_block *blk, etp_error *err);

/* etp_event_duration of profile event @p e (event @p j of block @p block);
 * *wrapped is 1 when a 32-bit counter wrapped. An invalid interval is the
 * format error inspect and the timeline both report. */
etp_status etp_profile_ticks(const etp_etdump *d, const etp_event *e, uint32_t j, uint32_t block,
                             uint64_t *ticks, int *wrapped, etp_error *err);

#endif
