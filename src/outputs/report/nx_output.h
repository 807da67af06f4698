/* nx_output.h - VGF NX cycles as output: detailed/nx_hierarchy.json, the
 * summary.json block and the terminal lines (nx_output.c). */
#ifndef ETP_NX_REPORT_H
#define ETP_NX_REPORT_H

#include <stdio.h>

#include "etprof/nx_stats.h"
#include "util/jsonw.h"

#define ETP_NX_HIERARCHY_SCHEMA "etprof.nx-hierarchy"

/* The whole hierarchy (malloc'd JSON text, *len its length), NULL on OOM. */
char *etp_nx_hierarchy_json(const etp_nx_result *r, size_t *len);
/* The "vgf_cycles" value of summary.json and `analyze --json`: decoder
 * settings and model metrics. */
void etp_nx_summary_write(etp_jw *w, const etp_nx_result *r);
/* A few lines for the terminal: settings, model cycles, top chains. */
void etp_nx_write_text(const etp_nx_result *r, FILE *fp);

#endif
