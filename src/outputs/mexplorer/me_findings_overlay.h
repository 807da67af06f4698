/* me_findings_overlay.h - the Model Explorer overlay naming the findings
 * (etprof/findings.h) on the nodes they point at (me_findings_overlay.c). */
#ifndef ETP_ME_FINDINGS_OVERLAY_H
#define ETP_ME_FINDINGS_OVERLAY_H

#include "etprof/analysis.h"
#include "etprof/mexplorer.h"
#include "etprof/source_graph.h"

/* findings.json's string values: per graph, each node a finding names
 * gets the codes of the findings naming it ("delegation.fragmented;
 * hotspot.op_type", a withheld one marked so), in the findings' order. */
typedef struct etp_me_findings_overlay {
    etp_me_label_overlay ov[2];  /* the instruction graph's, then the source graph's */
    size_t count;                /* 0: no finding names a node of either graph */
    etp_me_label *labels;        /* owned, both graphs' */
    char **texts;                /* owned, one per label */
    size_t text_count;
} etp_me_findings_overlay;

/* Build @p out for the findings of @p a on the instruction graph @p ig and
 * the source graph @p sg (either may be NULL). Instructions and delegate
 * calls map to the instruction graph's node of the same id, a delegate
 * event to its delegate call's node, an operator to the source graph's node
 * of its name; NX chains and cascades have no node here (the VGF graph's
 * overlays show them). Nodes in graph order. ETP_OK or ETP_E_NOMEM; free
 * with etp_me_findings_overlay_free() either way. */
etp_status etp_me_findings_overlay_build(const etp_analysis *a, const etp_me_graph *ig,
                                         const etp_source_graph *sg, etp_me_findings_overlay *out,
                                         etp_error *err);
void etp_me_findings_overlay_free(etp_me_findings_overlay *o);

#endif
