/*
 * etprof/views.h - the views of an analysis: the exported source graph of the
 * analysed method (from the ETRecord), its navigation links to the deployed
 * instructions, and the standalone HTML report.
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
#ifndef ETPROF_VIEWS_H
#define ETPROF_VIEWS_H

#include <stdint.h>
#include <stdio.h>

#include "etprof/analysis.h"
#include "etprof/error.h"
#include "etprof/etrecord.h"
#include "etprof/mexplorer.h"

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
    const char *delegate_id;    /**< ETP_LINK_DELEGATE_EVENT: the delegate debug id, else NULL */
    const char *backend;        /**< delegate backend id when known, else NULL */
    uint32_t *nodes;            /**< source node indices, ascending (owned) */
    uint32_t node_count;
    const int64_t *handles;     /**< the debug handles of the link (owned by the ETRecord) */
    uint32_t handle_count;
    int64_t *unresolved;        /**< handles that match no operator (owned) */
    uint32_t unresolved_count;
} etp_src_link;

/** One node of the source graph. Strings are owned by the graph. */
typedef struct etp_src_node {
    etp_src_node_kind kind;
    char *id;                   /**< operator name / input tensor name / "GraphOutputs"; unique */
    char *label;                /**< "aten.convolution", "input", "Graph Outputs" */
    char *ns;                   /**< namespace from the module path ("layer1/0/conv1"), "inputs",
                                     "GraphOutputs" or "" */
    const etp_graph_node *node; /**< operators: the ETRecord node, else NULL */
    const etp_entity *entity;   /**< operators with a debug handle: their entity in the
                                     analysis (same id), else NULL */
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
    const char *backend;        /**< backend id, or NULL when unknown */
    uint32_t node_count;        /**< operators in the group */
} etp_src_group;

/** The source graph of one method. */
typedef struct etp_source_graph {
    char *id;                   /**< graph id, "<method>.source" by default */
    const char *method;
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
    uint32_t *by_id_;           /**< internal: node indices sorted by id */
} etp_source_graph;

/**
 * Build the source graph of the analysed method from @p a's ETRecord.
 * @param a         an analysis made with an ETRecord; it (and its inputs)
 *                  must outlive the graph
 * @param graph_id  graph id, or NULL for "<method>.source"
 * @param out       receives the graph (release with etp_source_graph_free)
 * @return ETP_OK; ETP_E_USAGE (no ETRecord, or no edge program for the
 *         method); ETP_E_LIMIT (more than 2^31 nodes); ETP_E_NOMEM
 */
etp_status etp_source_graph_build(const etp_analysis *a, const char *graph_id,
                                  etp_source_graph **out, etp_error *err);

/** Release. Safe on NULL. */
void etp_source_graph_free(etp_source_graph *g);

/** Index of the node with id @p id, or -1 (binary search on a sorted index). */
int64_t etp_source_graph_find(const etp_source_graph *g, const char *id);

/** "linked", "no debug handle", ... (stable text used in the files). */
const char *etp_link_state_name(etp_link_state s);
/** "kernel", "delegate", "delegate_event", "instruction". */
const char *etp_link_kind_name(etp_link_kind k);

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
