/* device_output.h - the device report (etprof/device_report.h) as JSON
 * members and as terminal text (device_output.c). */
#ifndef ETP_DEVICE_OUTPUT_H
#define ETP_DEVICE_OUTPUT_H

#include <stdio.h>

#include "etprof/analysis.h"
#include "util/jsonw.h"

/* The values of "device", "memory" and "npu" (objects; null without a report). */
void etp_json_device(etp_jw *w, const etp_analysis *a);
void etp_json_memory(etp_jw *w, const etp_analysis *a);
void etp_json_npu(etp_jw *w, const etp_analysis *a);
/* The value of "debug_buffer": the buffer the debug events were checked
 * against (null when none was given). */
void etp_json_debug_buffer(etp_jw *w, const etp_analysis *a);
/* Terminal lines: "Memory: ...", the Ethos-U split, the device figures. */
void etp_device_write_text(const etp_analysis *a, FILE *fp);
/* For the operators table: "NPU 90%, input copy 7%, rest 3% ..." of the
 * Ethos-U delegate instruction @p e (from its columns), into @p buf; NULL
 * for other entities. */
const char *etp_npu_row_note(const etp_analysis *a, const etp_entity *e, char *buf, size_t cap);
/* One line for a delegate call site: whether the NPU or the CPU side of
 * the call (input/output copies and the rest of execute()) is the larger
 * cost; static text. */
const char *etp_npu_verdict(const struct etp_npu_call_site *c);
/* "1,234,567" into @p buf. */
const char *etp_thousands(uint64_t v, char *buf, size_t cap);

#endif
