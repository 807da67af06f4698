/* me_links_internal.h - pieces shared by the view writers (source graph JSON,
 * mapping, HTML report). */
#ifndef ETP_ME_LINKS_INTERNAL_H
#define ETP_ME_LINKS_INTERNAL_H

#include "analysis/attribution/source_graph_internal.h"
#include "etprof/me_links.h"
#include "util/jsonw.h"

/* Write @p g as one Model Explorer Graph object (nodes with namespaces,
 * attributes, edges and port metadata; model and module attributes). */
void etp_source_graph_write_me(etp_jw *w, const etp_source_graph *g, const etp_analysis *a);

/* The instruction-graph node index of instruction @p instr of chain 0, for
 * every instruction: a malloc'd array of @p count entries (-1 where the graph
 * has no such node), or NULL on OOM. */
int64_t *etp_me_instruction_nodes(const etp_me_graph *ig, uint32_t count);

/* How instruction node @p node of @p ig is linked to @p sg (for graph
 * inputs/outputs: not applicable). @p first_link receives the index of its
 * first link in sg->links, or -1. */
etp_link_state etp_me_instruction_link(const etp_me_graph *ig, uint32_t node,
                                          const etp_source_graph *sg, int64_t *first_link);

#endif
