/*
 * layout.h - layered ("Sugiyama") drawing of a directed graph, for inline SVG.
 *
 * Steps: drop self loops and duplicate edges; reverse the back edges a
 * depth-first search finds (cycles); longest-path layers from the sources
 * (sources then pulled down next to their first consumer); long edges split
 * into chains of dummy nodes (within a budget; edges past it are drawn
 * straight); barycenter sweeps down and up, keeping the order with the
 * fewest crossings; x by repeated weighted placement towards neighbours,
 * solved exactly per layer under the no-overlap constraints (isotonic
 * regression); y by layer. Nodes that share a group id stay contiguous in
 * every layer, with extra padding at group boundaries, so a box drawn around
 * a group's nodes of one layer holds no other node of that layer.
 *
 * Deterministic: the result depends only on the input arrays (ties are
 * broken by node and edge index). Cost is about O((V + E + D) log V) per
 * sweep, D the number of dummy nodes.
 */
#ifndef ETP_LAYOUT_H
#define ETP_LAYOUT_H

#include <stdint.h>

#include "etprof/error.h"

/** A node to place: its box size (e.g. from the label) and optional group. */
typedef struct etp_layout_node {
    double width, height;
    int32_t group;           /**< >= 0: keep with the other nodes of this group; -1: none */
} etp_layout_node;

/** A directed edge between node indices. */
typedef struct etp_layout_edge {
    uint32_t from, to;
} etp_layout_edge;

typedef struct etp_layout_options {
    double node_sep;         /**< horizontal gap between two nodes (default 20) */
    double edge_sep;         /**< gap next to an edge's bend point (default 10) */
    double rank_sep;         /**< vertical gap between layers (default 50) */
    double group_pad;        /**< extra gap where a group starts or ends (default 16) */
    double margin;           /**< around the drawing (default 10) */
    int sweeps;              /**< ordering sweeps, alternating down/up (default 8) */
    int placement_rounds;    /**< x refinement rounds, each down then up (default 8) */
    uint64_t max_dummies;    /**< budget of bend points; 0 = 4 * (nodes + edges) + 10000 */
} etp_layout_options;

/** Flags of an input edge in etp_layout.edge_flags. */
enum {
    ETP_LAYOUT_EDGE_REVERSED = 1,  /**< points upward: it closed a cycle */
    ETP_LAYOUT_EDGE_SELF = 2,      /**< a self loop: no points */
    ETP_LAYOUT_EDGE_DUPLICATE = 4, /**< same points as an earlier edge with the same ends */
    ETP_LAYOUT_EDGE_STRAIGHT = 8   /**< over the bend-point budget: a straight line */
};

typedef struct etp_layout_point {
    double x, y;
} etp_layout_point;

/** The result. Arrays are indexed like the input; free with etp_layout_release(). */
typedef struct etp_layout {
    uint32_t node_count, edge_count;
    double *x, *y;           /**< node centres (top-left = x - width/2, y - height/2) */
    uint32_t *layer;         /**< layer of each node, 0 at the top */
    uint32_t *order;         /**< position of each node within its layer (incl. bend points) */
    uint32_t layer_count;
    uint32_t *point_start;   /**< edge e's polyline is points[point_start[e] .. point_start[e+1]) */
    etp_layout_point *points;/**< from the source's box edge through bends to the target's */
    uint8_t *edge_flags;     /**< ETP_LAYOUT_EDGE_* per input edge */
    double width, height;    /**< drawing size including margins */
    uint64_t dummy_count;    /**< bend points used */
    uint64_t crossings;      /**< edge crossings between adjacent layers after ordering */
} etp_layout;

/** Fill @p o with the defaults above. */
void etp_layout_options_init(etp_layout_options *o);

/**
 * Lay out @p n nodes and @p m edges. @p o may be NULL for the defaults.
 * On success *out owns its arrays (release with etp_layout_release()).
 * @return ETP_OK; ETP_E_USAGE (an edge end >= n, a negative or non-finite
 *         size); ETP_E_LIMIT (more than 2^31 nodes incl. bend points); ETP_E_NOMEM
 */
etp_status etp_layout_compute(const etp_layout_node *nodes, uint32_t n, const etp_layout_edge *edges,
                              uint32_t m, const etp_layout_options *o, etp_layout *out,
                              etp_error *err);

/** Free the arrays of @p l (safe on a zeroed or released layout). */
void etp_layout_release(etp_layout *l);

#endif
