/*
 * etprof/source_graph.h - the exported source graph of the analysed method
 * (from the ETRecord) and its links to the deployed instructions: a model
 * built from an analysis, written as Model Explorer files (me_links.h),
 * drawn by the page (report.h) and published in bundles.
 *
 * The source graph is the edge-dialect graph the ETRecord stores for the
 * method: one node per graph input tensor, one per operator (FX call_function
 * node, id = its name = the operator entity id of the analysis), and one
 * "GraphOutputs" node; edges follow tensor names from producer to consumer.
 * Links come only from the ETRecord's debug handle map and delegate map: an
 * instruction is linked to the operators whose debug handle it carries.
 * Nothing is guessed: an operator no instruction carries, an operator without
 * a debug handle and an instruction whose handles match no operator are
 * reported as unlinked, with the reason.
 *
 * Typical use (after etp_analyze with an ETRecord):
 *   etp_source_graph *g;
 *   if (etp_source_graph_build(analysis, NULL, &g, &err) == ETP_OK) {
 *       ... g->nodes[i].entity, g->links ...
 *       etp_source_graph_free(g);
 *   }
 */
#ifndef ETPROF_SOURCE_GRAPH_H
#define ETPROF_SOURCE_GRAPH_H

#include <stdint.h>

#include "etprof/analysis.h"
#include "etprof/error.h"
#include "etprof/etrecord.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a source-graph node stands for. */
typedef enum etp_src_node_kind {
    ETP_SRC_NODE_INPUT = 0,     /**< a graph input tensor (user input, parameter, buffer) */
    ETP_SRC_NODE_OPERATOR,      /**< an operator (call_function node) */
    ETP_SRC_NODE_OUTPUTS        /**< "GraphOutputs": consumes the graph's outputs */
} etp_src_node_kind;

/** How a node is linked to the other graph. */
typedef enum etp_link_state {
    ETP_LINK_LINKED = 0,        /**< linked to at least one node of the other graph */
    ETP_LINK_NO_HANDLE,         /**< operator without a debug handle */
    ETP_LINK_NO_INSTRUCTION,    /**< operator whose debug handle no instruction carries */
    ETP_LINK_NO_MAP_ENTRY,      /**< instruction absent from the debug handle map */
    ETP_LINK_UNRESOLVED,        /**< instruction whose debug handles match no operator */
    ETP_LINK_NO_MAP,            /**< operator of a method the ETRecord has no debug handle map for */
    ETP_LINK_NOT_APPLICABLE     /**< graph inputs and outputs */
} etp_link_state;

/** Kind of an instruction -> operators link. */
typedef enum etp_link_kind {
    ETP_LINK_KERNEL = 0,        /**< a KernelCall and the operators of its debug handle(s) */
    ETP_LINK_DELEGATE,          /**< a DelegateCall and every operator of its lowered region */
    ETP_LINK_DELEGATE_EVENT,    /**< one delegate debug id (delegate map) and its operators */
    ETP_LINK_INSTRUCTION        /**< another instruction kind, or unknown (no program) */
} etp_link_kind;

/** One incoming edge: the producer and the ports (output / input positions). */
typedef struct etp_src_edge {
    uint32_t source;            /**< node index of the producer */
    uint32_t output;            /**< position of the tensor among the producer's outputs */
    uint32_t input;             /**< position among the consumer's inputs */
} etp_src_edge;

/** One link from an instruction of the method's chain 0 to source operators. */
typedef struct etp_src_link {
    int32_t instruction;        /**< instruction index in chain 0 */
    etp_link_kind kind;
    const char *delegate_id;    /**< ETP_LINK_DELEGATE_EVENT: the delegate debug id (borrowed
                                     from the ETRecord), else NULL */
    const char *backend;        /**< delegate backend id when known (borrowed from the program
                                     or the ETRecord), else NULL */
    uint32_t *nodes;            /**< source node indices, ascending (owned) */
    uint32_t node_count;
    const int64_t *handles;     /**< the debug handles of the link (borrowed from the ETRecord) */
    uint32_t handle_count;
    int64_t *unresolved;        /**< handles that match no operator (owned) */
    uint32_t unresolved_count;
} etp_src_link;

/** One node of the source graph. id, label, ns, edges and links are owned by
 *  the graph; node, entity and inputs are borrowed. */
typedef struct etp_src_node {
    etp_src_node_kind kind;
    char *id;                   /**< operator name / input tensor name / "GraphOutputs"; unique */
    char *label;                /**< "aten.convolution", "input", "Graph Outputs" */
    char *ns;                   /**< namespace from the module path ("layer1/0/conv1"), "inputs",
                                     "GraphOutputs" or "" */
    const etp_graph_node *node; /**< operators: the ETRecord node (borrowed), else NULL */
    const etp_entity *entity;   /**< operators with a debug handle: their entity in the
                                     analysis (same id; borrowed), else NULL */
    etp_src_edge *edges;        /**< incoming edges, in input order */
    uint32_t edge_count;
    uint32_t input_count;       /**< inputs: 0; operators: tensor inputs; outputs: graph outputs */
    const char **inputs;        /**< their tensor names (borrowed), in order */
    etp_link_state link;
    uint32_t *links;            /**< indices into etp_source_graph.links that reach it (owned) */
    uint32_t link_count;
    int32_t group;              /**< index into etp_source_graph.groups (delegated), else -1 */
} etp_src_node;

/** A delegated region: the operators one DelegateCall runs. */
typedef struct etp_src_group {
    int32_t instruction;        /**< the DelegateCall's index in chain 0 */
    const char *backend;        /**< backend id (borrowed, as etp_src_link.backend), or NULL
                                     when unknown */
    uint32_t node_count;        /**< operators in the group */
} etp_src_group;

/**
 * The source graph of one method. Only etp_source_graph_build makes one (it
 * keeps a lookup index beside it, out of sight): do not create or copy the
 * struct yourself; pass the pointer it returned. Every array and string is
 * owned by the graph, except the fields marked borrowed. Once built the graph
 * never changes: any number of threads may read it and call
 * etp_source_graph_find on it at once.
 */
typedef struct etp_source_graph {
    char *id;                   /**< graph id, "<method>.source" by default */
    const char *method;         /**< the analysed method (borrowed from the analysis) */
    const etp_exported_program *program; /**< the ETRecord's edge program (borrowed) */
    etp_src_node *nodes;        /**< inputs, operators (graph order), then GraphOutputs */
    uint32_t node_count;
    uint32_t operator_count;
    etp_src_link *links;        /**< by instruction; instruction-level link before its
                                     delegate-event links */
    uint32_t link_count;
    etp_src_group *groups;      /**< by instruction */
    uint32_t group_count;
    uint32_t unlinked_operators;/**< operators whose link is not ETP_LINK_LINKED */
} etp_source_graph;

/**
 * Build the source graph of the analysed method from @p a's ETRecord.
 * Only reads @p a and its ETRecord (no global state): several graphs may be
 * built at once, from the same analysis too, while other threads read it.
 * @param a         an analysis made with an ETRecord; it (and its inputs)
 *                  must outlive the graph, which points into them
 * @param graph_id  graph id, or NULL for "<method>.source" (copied)
 * @param out       receives the graph, owned by the caller (release with
 *                  etp_source_graph_free); NULL on failure
 * @param err       receives the reason on failure (may be NULL)
 * @return ETP_OK; ETP_E_USAGE (no ETRecord, or no edge program for the
 *         method); ETP_E_LIMIT (more than 2^31 nodes); ETP_E_NOMEM
 */
etp_status etp_source_graph_build(const etp_analysis *a, const char *graph_id,
                                  etp_source_graph **out, etp_error *err);

/** Release @p g and everything it owns (not what it borrows). Safe on NULL;
 *  no other thread may still be reading @p g. */
void etp_source_graph_free(etp_source_graph *g);

/** Index in g->nodes of the node with id @p id, or -1 (binary search on the
 *  graph's sorted index; read-only, any thread). */
int64_t etp_source_graph_find(const etp_source_graph *g, const char *id);

/** "linked", "unlinked: no debug handle", ... (stable text used in the files;
 *  a static string, "?" for an unknown value; any thread). */
const char *etp_link_state_name(etp_link_state s);
/** "kernel", "delegate", "delegate_event", "instruction" (a static string,
 *  "?" for an unknown value; any thread). */
const char *etp_link_kind_name(etp_link_kind k);

#ifdef __cplusplus
}
#endif
#endif
