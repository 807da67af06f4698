/*
 * etprof/me_links.h - the links between the analysed method's instruction
 * graph (etprof/mexplorer.h) and its source graph (etprof/source_graph.h),
 * as the Model Explorer files of a bundle: mapping.json and
 * sync_navigation.json; and the companion-program gate every drawing of the
 * program passes first.
 *
 * Typical use (after etp_analyze with an ETRecord, and etp_me_build):
 *   etp_source_graph *g;
 *   if (etp_source_graph_build(analysis, NULL, &g, &err) == ETP_OK) {
 *       etp_me_write_mapping(analysis, instruction_graph, g, fp, &err);
 *       etp_source_graph_free(g);
 *   }
 *
 * Every writer here only reads its inputs (the analysis, the graphs): writers
 * may run on several threads at once over the same inputs, each with its own
 * FILE and etp_error.
 */
#ifndef ETPROF_ME_LINKS_H
#define ETPROF_ME_LINKS_H

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
etp_status etp_me_write_mapping(const etp_analysis *a, const etp_me_graph *ig,
                                   const etp_source_graph *sg, FILE *fp, etp_error *err);

/**
 * Write the same links as a Model Explorer sync-navigation file
 * {"type": "sync_navigation", "mappingEntries": [{"leftNodeIds": [instruction],
 * "rightNodeIds": [operators]}]}: left pane the instruction graph, right pane
 * the source graph. @return ETP_OK or ETP_E_IO
 */
etp_status etp_me_write_sync_navigation(const etp_me_graph *ig, const etp_source_graph *sg,
                                           FILE *fp, etp_error *err);

/**
 * The companion-program gate: re-hash the file at @p pte_path and compare it
 * with the digest of the bytes @p a analysed (a->program_sha256).
 * @return ETP_OK when they are equal (or the analysis had no program);
 *         ETP_E_MISMATCH when the file changed since the analysis (the message
 *         says to run the analysis again); ETP_E_IO when it cannot be read
 */
etp_status etp_me_check_program(const etp_analysis *a, const char *pte_path, etp_error *err);

/**
 * etp_me_check_program() for a caller that has already hashed the file at
 * @p pte_path: @p sha256 is its digest (64 lowercase hex digits), compared
 * with a->program_sha256 without reading the file again.
 * @return ETP_OK or ETP_E_MISMATCH, as etp_me_check_program()
 */
etp_status etp_me_check_program_digest(const etp_analysis *a, const char *pte_path,
                                          const char *sha256, etp_error *err);

#ifdef __cplusplus
}
#endif
#endif
