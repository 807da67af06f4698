/* me_nx_overlay.h - Model Explorer overlays of VGF NX cycles on the nodes of
 * the program's VGF graph (nx_overlay.c). */
#ifndef ETP_NX_OVERLAY_H
#define ETP_NX_OVERLAY_H

#include <stddef.h>

#include "etprof/analysis.h"

/* The overlay JSON texts (malloc'd) for @p a: *values = each TOSA node's
 * chain mean total cycles (a group measurement: every node of a chain shows
 * the chain's figure; never summed), *labels = the chain and cascade each
 * node belongs to. Both NULL (ETP_OK) when there is nothing to draw: no VGF
 * statistics, no program, or no chain linked to the graph. */
etp_status etp_nx_overlays(const etp_analysis *a, char **values, size_t *vlen, char **labels, size_t *llen,
                           etp_error *err);

#endif
