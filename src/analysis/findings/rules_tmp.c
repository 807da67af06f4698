/* rules_tmp.c - placeholder while the rules are written (removed before landing). */
#include "analysis/findings/findings_internal.h"
etp_status findings_delegation(finding_ctx *c) { (void)c; return ETP_OK; }
etp_status findings_boundary(finding_ctx *c) { (void)c; return ETP_OK; }
etp_status findings_compute(finding_ctx *c) { (void)c; return ETP_OK; }
etp_status findings_overhead(finding_ctx *c) { (void)c; return ETP_OK; }
etp_status findings_stability(finding_ctx *c) { (void)c; return ETP_OK; }
etp_status findings_accelerator(finding_ctx *c) { (void)c; return ETP_OK; }
