/*
 * etprof/report.h - the standalone HTML report of an analysis (a bundle's
 * model_explorer/index.html): no server, no network.
 *
 * The writer only reads its inputs (the analysis, the graphs): several may
 * run on different threads at once over the same inputs, each with its own
 * FILE and etp_error.
 */
#ifndef ETPROF_REPORT_H
#define ETPROF_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "etprof/analysis.h"
#include "etprof/error.h"
#include "etprof/etrecord.h"
#include "etprof/mexplorer.h"
#include "etprof/source_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What the HTML report shows. */
typedef struct etp_report_inputs {
    const etp_analysis *analysis;
    const etp_me_graph *instructions;   /**< the method's instruction graph, or NULL */
    const etp_source_graph *source;     /**< the source graph, or NULL */
    const char *etdump_name;            /**< file names shown in the header (may be NULL) */
    const char *pte_name;
    const char *etrecord_name;
} etp_report_inputs;

/**
 * Write the standalone report: one HTML file with no external reference
 * (inline CSS, SVG drawings laid out here, and etprof's own script) that
 * works from file://. It shows validity and issues first, the instruction
 * and source graphs coloured by a selectable metric (pan, zoom, hover,
 * search, a details panel on click with statistics, additivity,
 * co-attributed operators, links and stack trace), delegated regions boxed,
 * unlinked nodes dashed, and sortable tables (top operators, totals per
 * operator type, delegate vs native time per backend, executions).
 * When the script has run, <body> carries data-etprof-ready="1".
 * Deterministic: same inputs, same bytes.
 * @return ETP_OK; ETP_E_NOMEM; ETP_E_LIMIT (graph too large to lay out); ETP_E_IO
 */
etp_status etp_report_write_html(const etp_report_inputs *in, FILE *fp, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
