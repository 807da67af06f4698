/*
 * etprof/views.h - the views of an analysis: the navigation links between the
 * analysed method's instruction graph and its source graph (source_graph.h,
 * included here), and the standalone HTML report.
 *
 * Typical use (after etp_analyze with an ETRecord, and etp_me_build):
 *   etp_source_graph *g;
 *   if (etp_source_graph_build(analysis, NULL, &g, &err) == ETP_OK) {
 *       etp_views_write_mapping(analysis, instruction_graph, g, fp, &err);
 *       etp_source_graph_free(g);
 *   }
 *
 * Every writer here only reads its inputs (the analysis, the graphs): writers
 * may run on several threads at once over the same inputs, each with its own
 * FILE and etp_error.
 */
#ifndef ETPROF_VIEWS_H
#define ETPROF_VIEWS_H

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

/**
 * Write the navigation mapping between the instruction graph @p ig (the
 * analysed method's graph in the program's collection) and @p sg as JSON
 * (schema "etprof.me-mapping" v1): every link with its kind, instruction
 * node id, source node ids, handles and unresolved handles; unlinked
 * instructions and operators with the reason. Only node ids present in the
 * two graphs are written. Deterministic.
 * @return ETP_OK, ETP_E_NOMEM or ETP_E_IO
 */
etp_status etp_views_write_mapping(const etp_analysis *a, const etp_me_graph *ig,
                                   const etp_source_graph *sg, FILE *fp, etp_error *err);

/**
 * Write the same links as a Model Explorer sync-navigation file
 * {"type": "sync_navigation", "mappingEntries": [{"leftNodeIds": [instruction],
 * "rightNodeIds": [operators]}]}: left pane the instruction graph, right pane
 * the source graph. @return ETP_OK or ETP_E_IO
 */
etp_status etp_views_write_sync_navigation(const etp_me_graph *ig, const etp_source_graph *sg,
                                           FILE *fp, etp_error *err);

/**
 * The companion-program gate: re-hash the file at @p pte_path and compare it
 * with the digest of the bytes @p a analysed (a->program_sha256).
 * @return ETP_OK when they are equal (or the analysis had no program);
 *         ETP_E_MISMATCH when the file changed since the analysis (the message
 *         says to run the analysis again); ETP_E_IO when it cannot be read
 */
etp_status etp_views_check_program(const etp_analysis *a, const char *pte_path, etp_error *err);

/**
 * etp_views_check_program() for a caller that has already hashed the file at
 * @p pte_path: @p sha256 is its digest (64 lowercase hex digits), compared
 * with a->program_sha256 without reading the file again.
 * @return ETP_OK or ETP_E_MISMATCH, as etp_views_check_program()
 */
etp_status etp_views_check_program_digest(const etp_analysis *a, const char *pte_path,
                                          const char *sha256, etp_error *err);

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
