/* device_report.h - build etp_analysis.device (device_report.c) from the
 * device logs, the program and the ETDump's Ethos-U events. */
#ifndef ETP_ANALYSIS_DEVICE_REPORT_H
#define ETP_ANALYSIS_DEVICE_REPORT_H

#include "analysis/attribution/analysis_internal.h"

/* After the figures: needs Method::execute and the executions. Issues go to
 * the analysis' list. ETP_OK or ETP_E_NOMEM. */
etp_status etp_build_device_report(etp_abuild *b);
/* Release what etp_build_device_report() made. Safe on NULL. */
void etp_device_report_free(struct etp_device_report *r);

#endif
