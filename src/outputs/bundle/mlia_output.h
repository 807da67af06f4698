/* mlia_output.h - (private to mlia_output.c and mlia_items.c) the bundle's mlia-output.json: the analysis as MLIA's
 * standardized result (output schema 1.1.0 with target schema 1.0.0,
 * ../shared/fixtures/mlia-schema/), so that a team moving from MLIA's
 * measured workflow keeps its consumers. docs/mlia.md gives the mapping.
 *
 * Read from the typed analysis results only (figures, entities, NX
 * hierarchy, issues, findings, memory), never from another output's text.
 * The schema requires run_id and timestamp: they are the bundle's own (the
 * manifest's), so this file, like run_metadata.json, differs between two
 * publications of the same inputs in those two members only. */
#ifndef ETP_MLIA_OUTPUT_H
#define ETP_MLIA_OUTPUT_H

#include "etprof/analysis.h"
#include "etprof/publish.h"
#include "outputs/bundle/publish_internal.h"
#include "util/jsonw.h"

#define ETP_MLIA_SCHEMA_VERSION "1.1.0"

/* The whole document: etp_mlia_output_json(), declared with the bundle's
 * other writers in publish_internal.h. */

/* One metric with a value: {name, value, unit, aggregation?, samples?
 * (0: none), qualifiers.basis?}. */
void etp_mlia_metric(etp_jw *w, const char *name, double v, const char *unit, const char *agg, uint64_t samples,
                     const char *basis);

/* mlia_items.c: the per-entity parts of the performance result: breakdowns,
 * entities (with placement, parents and children) and advice (findings). */
void etp_mlia_breakdowns(etp_jw *w, const etp_analysis *a);
void etp_mlia_entities(etp_jw *w, const etp_analysis *a);
void etp_mlia_advice(etp_jw *w, const etp_analysis *a);

/* Where a delegate backend runs, as MLIA names placements: "NPU"
 * (Ethos-U), "NX" (VGF with NX statistics), "GPU" (VGF, Vulkan), "DSP"
 * (QNN), "CPU" (portable kernels, XNNPACK), "Unknown". */
const char *etp_mlia_placement(const etp_analysis *a, const char *backend);

#endif
