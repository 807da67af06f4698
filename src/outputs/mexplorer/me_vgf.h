/*
 * me_vgf.h - the Model Explorer graph of a VGF, node for node as Arm's VGF
 * adapter draws it (shared/specs/vgf.md 4.2-4.4): TOSA op nodes with the
 * adapter's counter ids, resource nodes "mrt_<i>", Graph Inputs / Outputs.
 * Used for `etprof graph model.vgf` and, under the delegate-call node's id,
 * for the VGF delegates of a program (the adapter's "delegates" collection).
 *
 * Ownership: a graph owns its nodes and strings and, when built with
 * etp_me_vgf_build_owned(), the etp_vgf; nodes point into that etp_vgf.
 * Thread safety: a built graph is immutable (any number of readers).
 */
#ifndef ETP_ME_VGF_H
#define ETP_ME_VGF_H

#include "etprof/mexplorer.h"
#include "etprof/vgf.h"
#include "util/jsonw.h"

typedef struct etp_me_vgf_kv {
    const char *key;
    const char *value;
} etp_me_vgf_kv;

typedef struct etp_me_vgf_edge {
    const char *source;     /* may name a constant that has no node (the adapter's quirk) */
    uint32_t source_output;
    uint32_t target_input;
} etp_me_vgf_edge;

typedef struct etp_me_vgf_meta {
    uint32_t id;
    etp_me_vgf_kv *attrs;
    uint32_t attr_count;
} etp_me_vgf_meta;

typedef struct etp_me_vgf_node {
    const char *id;
    const char *label;
    const char *ns;
    etp_me_vgf_kv *attrs;
    uint32_t attr_count;
    etp_me_vgf_edge *edges;
    uint32_t edge_count;
    etp_me_vgf_meta *outputs;
    uint32_t output_count;
    etp_me_vgf_meta *inputs;
    uint32_t input_count;
    const etp_spv_op *op;   /* a TOSA op node, else NULL */
    int32_t segment;        /* segment index, -1 for the graph-level nodes */
} etp_me_vgf_node;

typedef struct etp_me_vgf_arena etp_me_vgf_arena;

struct etp_me_vgf_graph {
    etp_me_vgf_node *nodes;
    uint32_t node_count;
    const etp_vgf *vgf;
    etp_vgf *owned;         /* freed with the graph */
    etp_me_vgf_arena *arena;
};
typedef struct etp_me_vgf_graph etp_me_vgf_graph;

/* Build the graph of @p v (which must outlive it). ETP_E_FORMAT when a
 * constant operand cannot be read, ETP_E_NOMEM. */
etp_status etp_me_vgf_build(const etp_vgf *v, etp_me_vgf_graph **out, etp_error *err);

/* As etp_me_vgf_build(), taking @p v over (freed with the graph, and on failure). */
etp_status etp_me_vgf_build_owned(etp_vgf *v, etp_me_vgf_graph **out, etp_error *err);

void etp_me_vgf_free(etp_me_vgf_graph *g);

/* One Graph object {"id": @p graph_id, "nodes": [...], ...nulls}. */
void etp_me_vgf_write_graph(etp_jw *w, const char *graph_id, const etp_me_vgf_graph *g);

/* A whole collection {"label": @p label, "graphs": [Main]}, as the VGF adapter writes. */
etp_status etp_me_vgf_write(const etp_me_vgf_graph *g, const char *label, FILE *fp, int pretty,
                            etp_error *err);

/* Decode and attach the VGF graph of every VgfBackend delegate graph of @p c
 * (etp_me_graph.vgf); errors name the program. */
etp_status etp_me_vgf_attach(etp_me_collection *c, const etp_program *p, etp_error *err);

#endif
