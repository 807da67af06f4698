/*
 * me_layout.h - lay out a Model Explorer graph (etprof/mexplorer.h) with the
 * layered layout engine (layout.h), for drawings such as an inline SVG.
 */
#ifndef ETP_ME_LAYOUT_H
#define ETP_ME_LAYOUT_H

#include "etprof/mexplorer.h"
#include "util/layout.h"

/*
 * Lay out the nodes of @p g (indices as in g->nodes) with one layout edge per
 * incoming edge (source -> node; repeats and loops are flagged by the
 * engine). A node's box is @p char_width per character of its label (UTF-8
 * code points) plus @p padding, and @p node_height tall. @p groups gives a
 * group id per node (or NULL: none), e.g. to keep a delegate's nodes
 * together. @p o may be NULL for the engine's defaults.
 * The layout's edge i is the i-th incoming edge in node order; *edge_node
 * (if not NULL) receives a malloc'd array mapping it to its target node.
 */
etp_status etp_me_layout(const etp_me_graph *g, double char_width, double padding,
                         double node_height, const int32_t *groups, const etp_layout_options *o,
                         etp_layout *out, uint32_t **edge_node, etp_error *err);

#endif
