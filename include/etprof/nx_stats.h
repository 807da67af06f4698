/*
 * etprof/nx_stats.h - NX cycle figures of the VGF_NEURAL_STATISTICS events
 * of an ETDump, aggregated stripe -> chain -> cascade -> segment -> model.
 *
 * Rules: measurements are summed within each execution (an ETDump run
 * block) first; then each entity gets, over the executions it appears in,
 * the mean total and op cycles (and counters), the count and the minimum,
 * maximum and median of its total cycles. Means add across entities only
 * when they cover the same executions (etp_nx_entity.full_coverage); min,
 * max, median and counts never add. When VGF instructions or segments were
 * measured in different executions, the model summary and execution count
 * are unavailable (model_available = 0, issue vgf.coverage_differs). Missing
 * stripes are never estimated: totals describe what was recorded.
 * Units: cycles (accelerator activity counters, not elapsed time).
 *
 * Ownership: an etp_nx_result owns everything reachable from it; release it
 * with etp_nx_result_free(). Thread safety: analysis keeps no shared
 * state; a finished result is read-only and may be shared.
 */
#ifndef ETPROF_NX_STATS_H
#define ETPROF_NX_STATS_H

#include <stdint.h>

#include "etprof/etdump.h"
#include "etprof/issues.h"
#include "etprof/program.h"
#include "etprof/nx_record.h"

#ifdef __cplusplus
extern "C" {
#endif

struct etp_etrecord;

typedef enum etp_nx_kind { ETP_NX_MODEL = 0, ETP_NX_SEGMENT, ETP_NX_CASCADE, ETP_NX_CHAIN, ETP_NX_STRIPE } etp_nx_kind;
/** "model", "segment", "cascade", "chain", "stripe" (static). */
const char *etp_nx_kind_name(etp_nx_kind k);

/** One TOSA operation a chain covers (from the debug database). */
typedef struct etp_nx_op {
    char *tosa_id;           /**< debug-database TOSA op id */
    char *types;             /**< TOSA op type(s), '/'-joined ("Conv2D") */
    char *labels;            /**< API labels, ';'-joined */
    int64_t spirv_id;        /**< SPIR-V result id named by a "_spirv_id_<N>" label, -1 when none */
    const char *link_reason; /**< why spirv_id is -1 (static), NULL when linked */
    char *vgf_op;            /**< companion program: the VGF graph op with that result id ("Conv2D"),
                                  NULL when not checked or not linked */
    /* Source operators named by the ETRecord's delegate map (etp_nx_link_sources): */
    int64_t *source_handles; /**< the debug handles the map gives this op (owned), NULL when none */
    uint32_t source_handle_count;
    char **source_nodes;     /**< exported-graph nodes with those handles, graph order (owned) */
    uint32_t source_node_count;
    const char *source_link_reason; /**< why no source node is linked (static), NULL when linked */
} etp_nx_op;

/** Summary over executions of one measured quantity. */
typedef struct etp_nx_summary {
    uint32_t count;          /**< executions the entity appears in */
    double mean_total, mean_op;
    uint64_t min_total, max_total;
    double median_total;
} etp_nx_summary;

typedef struct etp_nx_entity {
    etp_nx_kind kind;
    char *id;                /**< "chain/segment_0/30" (MLIA-style; instruction-qualified when
                                  several VGF instructions exist) */
    char *name;              /**< "Chain 30", "Cascade 40", "Segment 0", "Stripe 3" */
    char *local_id;          /**< chain/cascade id, stripe index, segment index */
    int parent;              /**< index of the parent entity, -1 for the model */
    int32_t instruction_id;  /**< the DELEGATE_CALL instruction, -1 for the model */
    int64_t segment_id;      /**< -1 for the model */
    int filled;              /**< a fill-in chain/cascade (the debug database had none) */
    uint32_t *stripe_ids;    /**< stripes seen in it (first-seen order) */
    uint32_t stripe_count, stripe_cap;
    uint32_t stripe_id;      /**< stripes: the stripe index */
    int cascade;             /**< stripes: index of the cascade entity */
    etp_nx_op *ops;          /**< chains: the TOSA ops; cascades: their union */
    uint32_t op_count;
    etp_nx_summary s;
    double *mean_counters;   /**< layout->counter_count means (cycles) */
    int full_coverage;       /**< appears in every execution that has VGF statistics */
    /* accumulation state (per execution) */
    uint64_t *totals;        /**< per-execution total cycles, s.count entries */
    uint32_t *execs;         /**< the executions those are of (increasing) */
    uint32_t cap;
    uint64_t sum_op, sum_total;
    uint64_t *sum_counters;
    uint32_t last_exec;      /**< execution index +1 of the pending per-execution sums */
    uint64_t cur_total;      /**< the pending execution's total cycles */
    /* chains and cascades: the union of their ops' source_nodes (owned), first-seen order */
    char **source_nodes;
    uint32_t source_node_count;
} etp_nx_entity;

/** One analysed VGF record (event). */
typedef struct etp_nx_event_info {
    uint32_t run_index;
    int32_t instruction_id;
    int schema_version;
    int available;
} etp_nx_event_info;

typedef struct etp_nx_result {
    uint32_t events;                 /**< VGF_NEURAL_STATISTICS events */
    uint32_t events_unavailable;     /**< of which available == false */
    uint32_t executions;             /**< run blocks with a decoded record */
    int model_available;             /**< coverage agreed (see above) */
    etp_nx_settings settings;        /**< the (single) effective settings */
    int have_settings;
    uint32_t *vgf_instructions;      /**< instruction ids with VGF statistics (sorted) */
    uint32_t vgf_instruction_count;
    etp_nx_entity *entities;         /**< [0] is the model; parents come before children */
    uint32_t entity_count;
    etp_issue_list issues;           /**< vgf.* findings */
    /* companion program (--pte): structural associations checked */
    int companion_checked;
    char companion_sha256[65];       /**< SHA-256 of the program bytes */
    char companion_method[128];
    uint32_t companion_associations; /**< linked TOSA ops found in their segment's SPIR-V */
    uint32_t companion_segments;     /**< (instruction, segment) pairs matched */
    struct etp_nx_index *index;      /**< lookup state */
    /* source-operator links from the ETRecord's delegate map (etp_nx_link_sources) */
    int sources_checked;             /**< an ETRecord was looked at */
    uint32_t source_linked_ops;      /**< chain ops linked to at least one source node */
    uint32_t source_unlinked_ops;    /**< chain ops without (each with its reason) */
} etp_nx_result;

/**
 * Decode and aggregate every VGF_NEURAL_STATISTICS event (or delegate
 * metadata claiming the schema) of @p d. Decoder failures are analysis
 * failures (ETP_E_FORMAT, message naming the run, instruction, segment and
 * blob); records with available = false and compute segments become issues.
 * *out is NULL when the dump has no such event (and ETP_OK is returned).
 * Settings must agree across records (else ETP_E_MISMATCH).
 */
etp_status etp_nx_analyze(const etp_etdump *d, const etp_nx_options *o, etp_nx_result **out, etp_error *err);

/** Aggregation core, for callers with their own records: start a result, */
etp_status etp_nx_result_new(etp_nx_result **out);
/** add one decoded segment of execution @p exec (0-based, non-decreasing
 *  across calls) of instruction @p instr with its debug database (may be NULL), */
etp_status etp_nx_add_segment(etp_nx_result *r, uint32_t exec, int32_t instr, int64_t segment_id,
                              const etp_nx_decoded *dec, const etp_nx_ddb *ddb, etp_error *err);
/** and finish: summaries, coverage, model availability. */
etp_status etp_nx_finish(etp_nx_result *r, etp_error *err);

/**
 * Check @p r against the deployed program @p p, method @p method (its
 * plan @p plan): every VGF instruction must be a VgfBackend DelegateCall of
 * that method, every segment a graph segment of its VGF, every linked SPIR-V
 * result id an operation of that segment's SPIR-V. A mismatch is
 * ETP_E_MISMATCH naming what did not match. Records the program's SHA-256
 * (@p sha256, or computed when NULL/empty) and the associations.
 */
etp_status etp_nx_companion_check(etp_nx_result *r, const struct etp_program *p, const struct etp_plan *plan,
                                  const char *method, const char *sha256, etp_error *err);

/**
 * Link the chains' and cascades' TOSA ops to source operators where the
 * ETRecord @p rec (may be NULL) names them, never by op type: the delegate
 * map entry of the op's DELEGATE_CALL instruction (method @p method) must
 * have a delegate debug identifier equal to the op's SPIR-V result id (in
 * decimal) or to one of its API labels; its debug handles give the nodes of
 * the method's exported graph. Every op left unlinked gets a
 * source_link_reason. Replaces earlier links; ETP_E_NOMEM only.
 */
etp_status etp_nx_link_sources(etp_nx_result *r, const struct etp_etrecord *rec, const char *method,
                               etp_error *err);

void etp_nx_result_free(etp_nx_result *r);

#ifdef __cplusplus
}
#endif
#endif
