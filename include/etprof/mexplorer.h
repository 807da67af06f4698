/*
 * etprof/mexplorer.h - Google Model Explorer files for a program: the graph
 * of its instructions, and per-node overlays ("node data") of metrics.
 *
 * The graph reproduces what Arm's PTE adapter for Model Explorer writes for
 * the same .pte (node ids "<method>_<chain>_<instruction>", labels,
 * namespaces, attributes, edges and input/output metadata, down to Python's
 * string forms), so overlays keyed by ETDump chain/instruction ids fit both
 * etprof's graph and the adapter's. A VgfBackend delegate call links to the
 * TOSA graph of its VGF (etprof/vgf.h), drawn as Arm's VGF adapter draws it,
 * under the call's node id (etp_me_graph.vgf); an EthosUBackend call links
 * to an empty placeholder graph with the same id as the adapter's.
 *
 * Typical use:
 *   etp_me_collection *c;
 *   if (etp_me_build(program, NULL, NULL, &c, &err) == ETP_OK) {
 *       etp_me_write(c, fp, ETP_ME_PRETTY, &err);
 *       etp_me_free(c);
 *   }
 *
 * Ownership: a collection owns its graphs, nodes, edges, ids and labels
 * (etp_me_free() releases them); it points into the program it was built
 * from (plans, instructions, delegates), which must outlive it. The overlay
 * writers only read their arguments, which stay the caller's.
 *
 * Thread safety: a built collection is immutable; any number of threads may
 * read and write it out at once. Building and writing overlays keep no
 * shared state (safe from any thread on their own arguments).
 * etp_me_free() must not run beside any other use of the collection.
 */
#ifndef ETPROF_MEXPLORER_H
#define ETPROF_MEXPLORER_H

#include <stdint.h>
#include <stdio.h>

#include "etprof/error.h"
#include "etprof/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a graph node stands for. */
typedef enum etp_me_node_kind {
    ETP_ME_NODE_INPUTS = 0,     /**< "GraphInputs": produces the plan's inputs */
    ETP_ME_NODE_EMPTY_CHAIN,    /**< "Chain_<i>": a chain without instructions */
    ETP_ME_NODE_CHAIN_OUTPUTS,  /**< the extra "GraphOutputs" the adapter adds after an
                                     empty chain (a duplicate id, kept for fidelity) */
    ETP_ME_NODE_INSTRUCTION,    /**< "<graph id>_<chain>_<instruction>" */
    ETP_ME_NODE_OUTPUTS         /**< "GraphOutputs": consumes the plan's outputs */
} etp_me_node_kind;

/** One incoming edge. Both port ids are the EValue index (as a decimal string). */
typedef struct etp_me_edge {
    uint32_t source; /**< index of the producing node in etp_me_graph.nodes */
    int32_t port;    /**< EValue index carried by the edge */
} etp_me_edge;

/** One node. Strings are valid UTF-8 and owned by the collection. */
typedef struct etp_me_node {
    etp_me_node_kind kind;
    char *id;
    char *label;
    const char *ns;           /**< namespace: "GraphInputs", "GraphOutputs" or the graph id */
    int32_t chain;            /**< chain index (instruction / empty-chain nodes), else -1 */
    int32_t instruction;      /**< instruction index in its chain, else -1 */
    const etp_instruction *instr; /**< the decoded instruction, or NULL */
    int has_subgraph;         /**< subgraphIds is [id]: a delegate placeholder graph */
    etp_me_edge *edges;       /**< incomingEdges, in the adapter's order */
    uint32_t edge_count;
    int32_t *inputs;          /**< inputsMetadata EValue indices, in order */
    uint32_t input_count;
    int32_t *outputs;         /**< outputsMetadata EValue indices, in order */
    uint32_t output_count;
} etp_me_node;

/** One graph: a method (execution plan) or a delegate placeholder. */
typedef struct etp_me_graph {
    char *id;                 /**< plan name, "ExecutionPlan_<i>", or the delegate node id */
    const etp_plan *plan;     /**< the method (for delegate graphs: the calling method) */
    int32_t plan_index;
    etp_me_node *nodes;       /**< empty for delegate placeholder graphs */
    uint32_t node_count;
    const etp_delegate *delegate; /**< delegate placeholder graphs only, else NULL */
    int32_t delegate_index;   /**< delegate placeholder graphs only, else -1 */
    /** VGF delegates: the decoded TOSA graph the adapter draws here (owned by
     *  the collection; its nodes replace the empty placeholder), else NULL. */
    struct etp_me_vgf_graph *vgf;
} etp_me_graph;

/** A graph collection: the method graphs, then the delegate placeholders. */
typedef struct etp_me_collection {
    char *label;              /**< shown by Model Explorer; the adapter uses the file name */
    etp_me_graph *graphs;
    uint32_t graph_count;     /**< method graphs (at least one) */
    etp_me_graph *delegate_graphs;
    uint32_t delegate_graph_count;
} etp_me_collection;

/**
 * Build the graph collection of @p p.
 * @param p       decoded program; must outlive the collection (nodes point into it)
 * @param method  only the plan of this name, or NULL for every plan (a program
 *                without plans gives one empty graph "ExecutionPlan_0", as the adapter)
 * @param label   collection label, or NULL for the file name of p->path
 * @param out     receives the collection; release with etp_me_free()
 * @return ETP_OK; ETP_E_USAGE (no such method), ETP_E_NOMEM; a VGF
 *         delegate whose payload does not decode: its error (ETP_E_FORMAT,
 *         ETP_E_TRUNCATED, ETP_E_LIMIT), naming the program and the offset
 */
etp_status etp_me_build(const etp_program *p, const char *method, const char *label,
                        etp_me_collection **out, etp_error *err);

/** Release a collection and everything it owns (not the program). Safe on
 *  NULL. */
void etp_me_free(etp_me_collection *c);

/** Flags for etp_me_write(). */
enum {
    ETP_ME_PRETTY = 1,            /**< two-space indentation (as the adapter's fixtures) */
    ETP_ME_NO_DELEGATE_GRAPHS = 2 /**< leave the delegate placeholder graphs out */
};

/**
 * Write @p c as one Model Explorer GraphCollection object
 * {"label", "graphs": [...]} in the key order and null-field shape of the
 * adapter's output. Deterministic.
 * @return ETP_OK, or ETP_E_IO when writing fails
 */
etp_status etp_me_write(const etp_me_collection *c, FILE *fp, int flags, etp_error *err);

/** Graph with id @p id (method or delegate graph, owned by @p c), or NULL. */
const etp_me_graph *etp_me_find_graph(const etp_me_collection *c, const char *id);

/** Index of the first node of @p g with id @p id, or -1. Linear search. */
int64_t etp_me_find_node(const etp_me_graph *g, const char *id);

/**
 * Write the node id of instruction @p instr of chain @p chain in graph
 * @p graph_id ("forward_0_12") into @p buf, as snprintf (returns the length
 * the full id needs; the id is cut, still NUL-terminated, when that is
 * >= @p size). This is the key ETDump events map to: method name,
 * ProfileEvent.chain_index, ProfileEvent.instruction_id. Formatting cannot
 * fail in any other way, so the int is a length, not a status.
 */
int etp_me_node_id(char *buf, size_t size, const char *graph_id, uint32_t chain, uint32_t instr);

/* ---- Overlays (node data) ------------------------------------------------ */

/** One value of an overlay: a node id and a finite number. */
typedef struct etp_me_value {
    const char *node_id;
    double value;
} etp_me_value;

/** A colour stop of an overlay gradient; colours are "#rrggbb". */
typedef struct etp_me_stop {
    double stop;              /**< 0..1, ascending; the first is 0 and the last 1 */
    const char *bg_color;
} etp_me_stop;

/** Bits for etp_me_overlay.hide_stats: aggregate columns that make no sense. */
enum {
    ETP_ME_HIDE_MIN = 1, ETP_ME_HIDE_MAX = 2, ETP_ME_HIDE_SUM = 4, ETP_ME_HIDE_AVG = 8
};

/** One metric on one graph. */
typedef struct etp_me_overlay {
    const char *graph_id;     /**< the graph the node ids belong to */
    const char *metric;       /**< e.g. "Runtime avg" */
    const char *unit;         /**< e.g. "ms", "cycles"; NULL or "" for none */
    const etp_me_value *values;
    size_t value_count;
    const etp_me_stop *stops; /**< NULL: green #1a9850, yellow #ffd700, red #d73027 */
    size_t stop_count;
    int use_range;            /**< 1: colour with range_min..range_max (share a scale
                                   across overlays) instead of this overlay's min..max */
    double range_min, range_max;
    int significant_digits;   /**< 0: exact shortest form; 1..17: round values */
    unsigned hide_stats;      /**< ETP_ME_HIDE_* bits (e.g. SUM for non-additive metrics) */
    int colors_when_needed;   /**< 1: write bgColor/textColor only where Model Explorer
                                   would not derive the same ones from the gradient
                                   (a shared range, or all values equal); 0: always */
} etp_me_overlay;

/** Defaults: no values, default gradient, exact values, nothing hidden. */
void etp_me_overlay_init(etp_me_overlay *ov);

/**
 * Write @p ov as a Model Explorer node-data file keyed by graph id then node
 * id: {"<graph>": {"name": "<metric> (<unit>)", "results": {"<node>":
 * {"value", "bgColor", "textColor"}}, "gradient": [...],
 * "hideAggregatedStats": [...]}}. Colours are computed here with Model
 * Explorer's own rules (linear interpolation between stops, floored; text
 * colour by luminance), so nodes are coloured even when all values are equal.
 * With colors_when_needed they are left out where Model Explorer computes the
 * very same colours from the gradient over this overlay's own min..max (not
 * with use_range, nor when all values are equal): less than half the bytes.
 * Results keep the order of @p ov->values. Deterministic.
 * @return ETP_OK; ETP_E_USAGE (missing graph id or metric, a NULL node id, a
 *         duplicate node id, a non-finite value, bad stops), ETP_E_NOMEM, ETP_E_IO
 */
etp_status etp_me_write_overlay(const etp_me_overlay *ov, FILE *fp, int pretty, etp_error *err);

/**
 * Write several overlays of one metric, each on its own graph, as one
 * node-data file {"<graph 1>": {...}, "<graph 2>": {...}} (the shape of
 * etp_me_write_overlay per graph, in the order given). Each graph is
 * coloured over its own values (or its own range).
 * @return as etp_me_write_overlay; also ETP_E_USAGE for @p count 0 or a graph
 *         id given twice
 */
etp_status etp_me_write_overlays(const etp_me_overlay *ovs, size_t count, FILE *fp, int pretty,
                                 etp_error *err);

/** One string value of a label overlay, optionally with an explicit colour. */
typedef struct etp_me_label {
    const char *node_id;
    const char *value;        /**< e.g. "linked", "unlinked: no debug handle" */
    const char *bg_color;     /**< "#rrggbb" or NULL (Model Explorer then paints nothing) */
} etp_me_label;

/** String values of one run on one graph (e.g. how each node is linked). */
typedef struct etp_me_label_overlay {
    const char *graph_id;
    const char *metric;       /**< run name */
    const etp_me_label *labels;
    size_t label_count;
} etp_me_label_overlay;

/**
 * Write string-valued overlays as one node-data file keyed by graph id:
 * {"<graph>": {"name", "results": {"<node>": {"value", "bgColor"?,
 * "textColor"?}}, "showExpandedSummaryOnGroupNode": true}}. The text colour
 * follows from the background by Model Explorer's contrast rule.
 * Deterministic; labels keep their order.
 * @return ETP_OK; ETP_E_USAGE (no overlay, missing ids or values, a bad
 *         colour, a duplicate node or graph id); ETP_E_IO
 */
etp_status etp_me_write_label_overlays(const etp_me_label_overlay *ovs, size_t count, FILE *fp,
                                       int pretty, etp_error *err);

/**
 * Colour of @p v on the gradient @p stops (NULL: the default one) over
 * [min, max], as Model Explorer computes it; writes "#rrggbb" into @p bg and
 * the contrasting text colour ("#ffffff" or "#1f1f1f") into @p text (each at
 * least 8 bytes). When max == min the lowest stop's colour is used. A stop
 * whose colour is not "#rrggbb" counts as black (the overlay writers refuse
 * such gradients before colouring).
 */
void etp_me_color(const etp_me_stop *stops, size_t stop_count, double min, double max, double v,
                  char *bg, char *text);

/**
 * A file name for an overlay of @p metric in @p unit: lower-case letters and
 * digits, other runs as '-', ".json" appended ("runtime-avg-ms.json").
 * Returns the length needed, as snprintf (cut, still NUL-terminated, when
 * that is >= @p size); a length, not a status: it cannot fail otherwise.
 */
int etp_me_overlay_filename(char *buf, size_t size, const char *metric, const char *unit);

#ifdef __cplusplus
}
#endif
#endif
